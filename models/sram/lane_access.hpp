#pragma once
// A multi-lane access to a banked SRAM, carried by a generic payload on the
// SRAM's `lookup_socket`: every lane presents one byte address in the same
// cycle (an epilogue unit's adder-tree inputs, a lookup datapath's lanes).
// The SRAM counts bank conflicts from these addresses (BankModel), annotates
// the cycles they take as delay and reports them in `cycles`.
//
// Data: the payload's data pointer holds `addrs.size()` x `lane_bytes` bytes,
// lane after lane; an access that carries no data (timing mode) has a null
// pointer and length 0, and the SRAM moves nothing.
// `repeat`: the same addresses presented that many times over (timing mode,
// where a lane-to-bank pattern does not depend on the data, is evaluated once
// per tile rather than once per column).
#include <cstdint>
#include <vector>

#include <tlm>

namespace eva {

struct LaneAccess : tlm::tlm_extension<LaneAccess> {
  std::vector<std::uint64_t> addrs;
  std::uint64_t lane_bytes = 2;
  std::uint64_t repeat = 1;
  std::uint64_t cycles = 0;  // set by the SRAM: cycles of all repeats, conflicts included

  tlm::tlm_extension_base* clone() const override { return new LaneAccess(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const LaneAccess&>(other); }
};

// Sends one lane access through `socket` (an initiator bound to an SRAM's
// lookup_socket); returns the cycles it took. `data`: lanes x lane_bytes bytes
// to read into or write from, or null.
template <class Socket>
std::uint64_t lane_transport(Socket& socket, tlm::tlm_generic_payload& trans, LaneAccess& access, bool write,
                             std::uint8_t* data, sc_core::sc_time& delay) {
  trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  trans.set_address(access.addrs.empty() ? 0 : access.addrs.front());
  trans.set_data_ptr(data);
  trans.set_data_length(data ? static_cast<unsigned>(access.addrs.size() * access.lane_bytes) : 0u);
  trans.set_streaming_width(trans.get_data_length());
  trans.set_byte_enable_ptr(nullptr);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  trans.set_extension(&access);
  socket->b_transport(trans, delay);
  trans.clear_extension(&access);
  return access.cycles;
}

}  // namespace eva
