#pragma once
// Thread processes for an operation's pipeline stages, reused from one
// operation to the next. A stage started here runs as a thread sc_spawn'ed at
// that moment would: runnable in the same evaluation phase, and its end
// notified at once, as a process's termination is. But each pool thread's
// coroutine and stack are made once, not once per operation: a spawn maps a
// stack and protects its guard page (system calls), which cost more than the
// simulation of a short operation (docs/PERFORMANCE.md).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

namespace eva {

class WorkerPool {
 public:
  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Stages waited for together.
  class Group {
   public:
    // Blocks the calling thread until every stage started in the group has ended.
    void wait() {
      while (m_running > 0) sc_core::wait(m_done);
    }

   private:
    friend class WorkerPool;
    std::size_t m_running = 0;
    sc_core::sc_event m_done;
  };

  // Runs `stage` in an idle pool thread, or in a new one named after `name`.
  void start(Group& group, std::function<void()> stage, const char* name);

 private:
  struct Worker {
    std::function<void()> stage;
    Group* group = nullptr;
    sc_core::sc_event go;
  };
  void loop(Worker& w);

  std::vector<std::unique_ptr<Worker>> m_workers;
  std::vector<Worker*> m_idle;
};

}  // namespace eva
