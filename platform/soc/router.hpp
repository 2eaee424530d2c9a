#pragma once
// An address-map router: any number of initiators (loosely or approximately
// timed) bound to target_socket, targets bound to initiator_socket in the
// order of their map() calls. Each target serves one window [base, base +
// size) and sees addresses relative to base. Accesses that fall in a hole or
// straddle a window's end get TLM_ADDRESS_ERROR_RESPONSE. DMI grants and
// invalidations are forwarded with the address translated both ways.
//
// Approximately timed traffic: the router keeps the base protocol's request
// exclusion toward each target (one BEGIN_REQ awaiting its END_REQ at a time;
// others wait in order of arrival), and passes END_REQ, BEGIN_RESP (with any
// delay, on either path) and END_RESP between each transaction's initiator
// and its target.
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

namespace eva::soc {

class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> target_socket;        // initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<Router> initiator_socket;  // targets, in map() order

  struct Window {
    std::string name;
    std::uint64_t base = 0, size = 0;
    unsigned target = 0;  // its binding index on initiator_socket
  };

  explicit Router(const sc_core::sc_module_name& name);

  // The `target`-th binding of initiator_socket serves [base, base + size).
  // Throws std::invalid_argument for an empty or overlapping window.
  void map(unsigned target, std::uint64_t base, std::uint64_t size, const std::string& name);
  // The window that holds all of [addr, addr + len), or nullptr.
  const Window* decode(std::uint64_t addr, std::uint64_t len) const;
  const std::vector<Window>& windows() const { return m_windows; }
  std::uint64_t address_errors() const { return m_address_errors; }

 private:
  struct Pending {
    unsigned initiator = 0;
    const Window* window = nullptr;
    std::uint64_t address = 0;  // the initiator's address
    bool request_open = false;  // holds its target's request channel
    bool target_done = false;   // the target completed it; the initiator's END_RESP stays here
  };
  struct TargetState {
    bool busy = false;  // a BEGIN_REQ awaits its END_REQ
    sc_core::sc_time free_at = sc_core::SC_ZERO_TIME;
    std::deque<tlm::tlm_generic_payload*> waiting;
  };

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);

  // Decodes `trans` for a transport call; sets the address error and returns
  // nullptr for a hole.
  const Window* route(tlm::tlm_generic_payload& trans);
  // Sends a BEGIN_REQ on to its target and books the request channel.
  tlm::tlm_sync_enum forward_request(Pending& p, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void request_channel_free(TargetState& t, const sc_core::sc_time& delay);
  void send_waiting();  // SC_METHOD: requests that waited for their target

  std::vector<Window> m_windows;
  std::vector<TargetState> m_targets;
  std::unordered_map<tlm::tlm_generic_payload*, Pending> m_pending;
  sc_core::sc_event m_retry;
  std::uint64_t m_address_errors = 0;
};

}  // namespace eva::soc
