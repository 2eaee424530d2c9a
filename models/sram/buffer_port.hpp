#pragma once
// A unit's loosely-timed port into the on-chip buffers (through the
// accelerator's LocalBus): timing-mode accesses that move no data
// (TimingOnly) but are counted and timed by the buffer, as the traffic of a
// tile; and, for functional runs, the buffer's bytes through DMI, as a
// datapath's direct port reads them.
#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "common/timing_only.hpp"

namespace eva {

class BufferPort : public tlm_utils::simple_initiator_socket_optional<BufferPort> {
 public:
  explicit BufferPort(const char* name);
  ~BufferPort() override;
  BufferPort(const BufferPort&) = delete;
  BufferPort& operator=(const BufferPort&) = delete;

  // An access of `bytes` at local address `addr` that moves no data; returns
  // the delay the buffer annotates. Throws std::runtime_error if the address
  // is not a buffer's (a model error, not an input error).
  // `repeat`: the same access that many times over.
  sc_core::sc_time touch(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes, std::uint64_t repeat = 1);
  // The same for traffic larger than the buffer window [base, base + size)
  // that holds it: streamed through it from `base` in pieces of the window
  // and the rest (operands the control does not tile to the buffer's
  // capacity), the whole pieces as one access repeated.
  void stream(tlm::tlm_command cmd, std::uint64_t base, std::uint64_t size, std::uint64_t bytes);
  // The bytes at [addr, addr + bytes) through DMI, for a functional datapath.
  std::uint8_t* direct(std::uint64_t addr, std::uint64_t bytes);

 private:
  std::vector<tlm::tlm_dmi> m_dmi;  // granted regions
  // One payload for every timing access, marked timing-only once.
  tlm::tlm_generic_payload m_trans;
  TimingOnly m_timing_only;
};

}  // namespace eva
