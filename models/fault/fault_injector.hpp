#pragma once
// A fault-injecting interconnect stage, for testing how initiators and
// software survive a bad memory (docs/FAULTS.md): bind the initiator to
// `target_socket` and `initiator_socket` to the memory. Every call is
// forwarded unchanged except that
// - a transaction in the error window (or drawn at error_rate) is answered
//   here with TLM_GENERIC_ERROR_RESPONSE and never reaches the memory
//   (b_transport returns it; nb_transport completes it at BEGIN_REQ with
//   TLM_COMPLETED);
// - a transaction in the delay window is answered by the injector itself,
//   delay_ns after its request: its data moves at once through the memory's
//   debug transport (the memory's own timing does not apply to it), the
//   request ends at once, and BEGIN_RESP follows on the backward path, never
//   before the end of a response already on its way to the initiator (the
//   base protocol's response exclusion). b_transport: forwarded, delay_ns
//   added. An initiator must end each response when it takes BEGIN_RESP
//   (return TLM_COMPLETED or END_RESP), as the project's DMA does;
// - DMI is refused while any fault is configured (it would bypass them), and
//   debug transport passes untouched.
#include <cstdint>
#include <random>

#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "common/stats.hpp"
#include "fault/fault_config.hpp"

namespace eva {

class FaultInjector : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<FaultInjector> target_socket;        // the initiator binds here
  tlm_utils::simple_initiator_socket<FaultInjector> initiator_socket;  // bound to the memory

  FaultInjector(const sc_core::sc_module_name& name, const FaultConfig& config);
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  std::uint64_t errors_injected() const { return static_cast<std::uint64_t>(m_stats.get(m_errors)); }
  std::uint64_t delays_injected() const { return static_cast<std::uint64_t>(m_stats.get(m_delays)); }
  const StatGroup& stats() const { return m_stats; }

 private:
  static bool touches(const tlm::tlm_generic_payload& t, std::uint64_t base, std::uint64_t size);
  bool inject_error(const tlm::tlm_generic_payload& t);
  bool delayed(const tlm::tlm_generic_payload& t) const;
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  void respond(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);  // a delayed response is due
  void response_ends(const sc_core::sc_time& at);

  const FaultConfig m_config;
  const sc_core::sc_time m_delay;
  std::mt19937_64 m_rng;
  tlm_utils::peq_with_cb_and_phase<FaultInjector> m_delayed;
  sc_core::sc_time m_response_free = sc_core::SC_ZERO_TIME;  // the initiator's response channel is free from
  StatGroup m_stats{"fault"};
  std::size_t m_errors, m_delays;
};

}  // namespace eva
