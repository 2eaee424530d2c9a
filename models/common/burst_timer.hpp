#pragma once
// What a memory offers a DMA that is its only initiator: it times a burst the
// moment the burst arrives, as the `ideal` pipe does (DramTarget::burst_timer).
// The DMA then times its data-less transfers itself, burst by burst with the
// same window of outstanding bursts as on its socket, instead of sending each
// burst through the socket with its events; the times, the counts and the
// order in which the memory sees the bursts are the same (test/golden). Who
// binds the two decides that no other initiator shares the memory (Platform).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>

namespace eva {

// The DMA's window of outstanding bursts, as exclusive timing keeps it: when
// each slot is free (kernel time values in ascending order, at most the
// window's size, in a ring: responses come in arrival order from a pipe, so
// a new time almost always goes last), and when the last burst left.
class BurstWindow {
 public:
  using Value = sc_core::sc_time::value_type;

  void reset(std::size_t capacity) {
    m_ring.assign(capacity, 0);
    m_head = 0;
    m_size = 0;
  }
  Value front() const { return m_ring[m_head]; }
  void pop_front() {
    m_head = next(m_head);
    --m_size;
  }
  void insert(Value t) {
    ++m_size;
    place(m_ring.data(), m_ring.size(), m_head, m_size, t);
  }
  // The next burst takes the slot that frees first: it leaves then, once the
  // one before has left, and not before `now`.
  Value take(Value now) {
    const Value at = std::max({now, last_send, front()});
    pop_front();
    return at;
  }
  // It left at `at`; its slot is free again at `response`.
  void sent(Value at, Value response) {
    last_send = at;
    insert(response);
  }

  // take() and sent() for each burst of `rows` rows of `row_bytes` at
  // `addr`, `stride` apart, each cut into bursts of `burst` bytes, with
  // `time(addr, bytes, arrival)` for a burst's response; returns the latest
  // response. The window's state stays in locals for the run (the ring's
  // stores cannot alias them). The window holds at least one slot.
  template <class Time>
  Value run(std::uint64_t addr, std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t stride, std::uint64_t burst,
            Value now, Time&& time) {
    if (rows == 0) return 0;
    Value* const ring = m_ring.data();
    const std::size_t cap = m_ring.size(), size = m_size;
    std::size_t head = m_head, back = head + size - 1;  // the front's and the back's slots
    if (back >= cap) back -= cap;
    Value latest = ring[back];  // the back's time: the latest
    // After the first burst the last send is at least `now`: fold it in once.
    Value last = std::max(last_send, now), response = 0;
    const auto send = [&](std::uint64_t at_addr, std::uint64_t len) {
      const Value at = std::max(last, ring[head]);
      const Value r = time(at_addr, len, at);
      last = at;
      // The front's slot is taken; `r` goes in at the back, past the later
      // times (almost always none: the memory answers in order).
      head = head + 1 == cap ? 0 : head + 1;
      back = back + 1 == cap ? 0 : back + 1;
      if (r >= latest) {
        ring[back] = r;
        latest = r;
      } else {
        place(ring, cap, head, size, r);
        latest = ring[back];
      }
      response = std::max(response, r);
    };
    // Each row: its whole bursts, then the shorter last one if any (an empty
    // row is one empty burst).
    const std::uint64_t whole = row_bytes / burst, rest = row_bytes - whole * burst;
    for (std::uint64_t row = 0; row < rows; ++row) {
      const std::uint64_t base = addr + row * stride;
      for (std::uint64_t k = 0; k < whole; ++k) send(base + k * burst, burst);
      if (rest != 0 || whole == 0) send(base + whole * burst, rest);
    }
    m_head = head;
    last_send = last;
    return response;
  }

  Value last_send = 0;

 private:
  std::size_t next(std::size_t i) const { return i + 1 == m_ring.size() ? 0 : i + 1; }
  // Puts `t` into the ring of `cap` slots holding `size` times from `head`
  // (its last slot still free), from the back, past the later times.
  static void place(Value* ring, std::size_t cap, std::size_t head, std::size_t size, Value t) {
    std::size_t at = head + size - 1;
    if (at >= cap) at -= cap;
    for (std::size_t k = size - 1; k > 0; --k) {
      const std::size_t before = at == 0 ? cap - 1 : at - 1;
      if (ring[before] <= t) break;
      ring[at] = ring[before];
      at = before;
    }
    ring[at] = t;
  }
  std::vector<Value> m_ring;
  std::size_t m_head = 0, m_size = 0;
};

class BurstTimer {
 public:
  // Whether every byte of [addr, addr + bytes) is a valid target (a burst the
  // memory would refuse goes through the socket, for its error response).
  virtual bool burst_timer_covers(std::uint64_t addr, std::uint64_t bytes) const = 0;
  // A burst of `bytes` at `addr` arriving at `arrival` (>= every earlier
  // arrival): when its data has moved (its response). Times are kernel time
  // values (sc_time::value()), so that a DMA's loop converts nothing per
  // burst.
  using Value = sc_core::sc_time::value_type;
  virtual Value time_burst(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes, Value arrival) = 0;
  // Counts `requests` bursts of `bytes` in all, as if each had come through
  // the socket.
  virtual void count_bursts(tlm::tlm_command cmd, std::uint64_t requests, std::uint64_t bytes) = 0;
  // A transfer's bursts: `rows` rows of `row_bytes` at `addr`, `stride`
  // apart, each cut into bursts of `burst` bytes (a row's last may be
  // shorter), leaving through `window` no earlier than `now`, in order.
  // Returns the latest response. The same times as time_burst() burst by
  // burst, which is what this default does; a memory may override it to do
  // the same in one loop, with its arithmetic inline.
  virtual Value time_run(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t rows, std::uint64_t row_bytes,
                         std::uint64_t stride, std::uint64_t burst, Value now, BurstWindow& window) {
    return window.run(addr, rows, row_bytes, stride, burst, now,
                      [&](std::uint64_t a, std::uint64_t len, Value at) { return time_burst(cmd, a, len, at); });
  }

 protected:
  ~BurstTimer() = default;
};

}  // namespace eva
