#pragma once
// What a memory offers a DMA that is its only initiator: it times a burst the
// moment the burst arrives, as the `ideal` pipe does (DramTarget::burst_timer).
// The DMA then times its data-less transfers itself, burst by burst with the
// same window of outstanding bursts as on its socket, instead of sending each
// burst through the socket with its events; the times, the counts and the
// order in which the memory sees the bursts are the same (test/golden). Who
// binds the two decides that no other initiator shares the memory (Platform).
#include <cstdint>

#include <systemc>
#include <tlm>

namespace eva {

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

 protected:
  ~BurstTimer() = default;
};

}  // namespace eva
