#include "common/worker_pool.hpp"

#include <utility>

namespace eva {

void WorkerPool::start(Group& group, std::function<void()> stage, const char* name) {
  ++group.m_running;
  if (!m_idle.empty()) {
    Worker& w = *m_idle.back();
    m_idle.pop_back();
    w.stage = std::move(stage);
    w.group = &group;
    w.go.notify();  // immediate: runnable in this evaluation phase, as a spawned thread is
    return;
  }
  m_workers.push_back(std::make_unique<Worker>());
  Worker& w = *m_workers.back();
  w.stage = std::move(stage);
  w.group = &group;
  sc_core::sc_spawn([this, &w] { loop(w); }, sc_core::sc_gen_unique_name(name));
}

void WorkerPool::loop(Worker& w) {
  for (;;) {
    while (!w.stage) sc_core::wait(w.go);
    const std::function<void()> stage = std::move(w.stage);
    w.stage = nullptr;
    Group& group = *w.group;
    stage();
    m_idle.push_back(&w);
    if (--group.m_running == 0) group.m_done.notify();  // immediate, as a termination is
  }
}

}  // namespace eva
