#pragma once
// Running a cycle-level memory and its only initiator ahead of the kernel
// (DramController::run_ahead, Dma's issue thread).
//
// On the socket path every device burst costs kernel events: the memory's
// scheduler method, its response method, and the initiator's issue thread,
// woken a delta later. While nothing else in the simulation has anything to
// do, those three can run as one plain C++ loop that plays the kernel's part:
// it keeps each process's pending notification (the earliest one, as the
// kernel does), runs in each delta the methods first and then the issue loop
// if it was woken in the delta before, and moves time to the earliest
// notification. The memory runs it when the initiator's issue loop would wait,
// up to the earliest time at which any other process has something to do
// (sc_time_to_pending_activity, with the memory's own events withdrawn), and
// it stops before any time step whose responses end a transfer: someone may
// wait for that end, so that step, with everything it wakes, is the kernel's.
// A memory that answers writes as it takes them also stops before any step in
// which a write could end (write_could_end).
// Between the two the memory, its channels and the initiator see the same
// calls in the same order as through the kernel, so every figure is the same
// (the golden tests hold them to it); only the events go.
//
// Who binds the two decides that nothing sits between them (Platform); the
// memory checks that no other initiator has a request held or a blocking
// call waiting before it runs ahead.
#include <cstddef>
#include <cstdint>

#include <systemc>
#include <tlm>

namespace eva {

// The time while a memory runs ahead of the kernel: its code and the
// initiator's take `now` as the current time then, the kernel's otherwise.
struct RunAheadClock {
  bool active = false;
  sc_core::sc_time now;
  sc_core::sc_time get() const { return active ? now : sc_core::sc_time_stamp(); }
};

class RunAheadInitiator {
 public:
  // Whether `trans` is one of this initiator's payloads.
  virtual bool owns(const tlm::tlm_generic_payload& trans) const = 0;
  // Whether the issue loop was woken (in the delta just run) since the last
  // call; clears it.
  bool take_wakeup() {
    const bool woken = m_woken;
    m_woken = false;
    return woken;
  }
  // One pass of the issue loop at the clock's time, up to where it would wait.
  virtual void issue_ready() = 0;
  // Whether the responses `batch[0..n)`, all due at one time and given in no
  // particular order, would end a transfer.
  virtual bool would_end_transfer(tlm::tlm_generic_payload* const* batch, std::size_t n) const = 0;
  // Whether a queued write could end in the memory's next time step (a
  // memory that answers writes as it takes them asks this before each); the
  // initiator asks the memory back what one step can take (takes_per_step).
  virtual bool write_could_end() const = 0;

 protected:
  ~RunAheadInitiator() = default;
  // The memory's clock, once the initiator may run ahead (nullptr: never).
  void follow(const RunAheadClock* clock) { m_clock = clock; }
  bool running_ahead() const { return m_clock && m_clock->active; }
  // The current time: the loop's while running ahead, else the kernel's.
  sc_core::sc_time now() const { return m_clock ? m_clock->get() : sc_core::sc_time_stamp(); }
  // Wakes the issue loop a delta later: through the loop while running ahead,
  // else by notifying `wakeup`.
  void wake(sc_core::sc_event& wakeup) {
    if (running_ahead())
      m_woken = true;
    else
      wakeup.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  const RunAheadClock* m_clock = nullptr;
  bool m_woken = false;
};

class RunAheadTarget {
 public:
  // Called from the initiator's issue thread when it would wait for its
  // wake-up: runs the memory and the initiator ahead while that is exact
  // (above), and returns with the kernel's events set as the socket path
  // would have left them. The thread then waits as it would have.
  virtual void run_ahead(RunAheadInitiator& initiator) = 0;
  virtual const RunAheadClock& run_ahead_clock() const = 0;
  // At most how many requests of a kind (write or read) the memory can take
  // in its next time step, as it stands.
  virtual std::uint64_t takes_per_step(bool write) const = 0;

 protected:
  ~RunAheadTarget() = default;
};

}  // namespace eva
