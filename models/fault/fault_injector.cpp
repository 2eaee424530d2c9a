#include "fault/fault_injector.hpp"

#include <algorithm>

namespace eva {

FaultInjector::FaultInjector(const sc_core::sc_module_name& name, const FaultConfig& config)
    : sc_module(name),
      target_socket("target_socket"),
      initiator_socket("initiator_socket"),
      m_config(config),
      m_delay(config.delay_ns, sc_core::SC_NS),
      m_rng(config.seed),
      m_delayed(this, &FaultInjector::respond) {
  target_socket.register_b_transport(this, &FaultInjector::b_transport);
  target_socket.register_nb_transport_fw(this, &FaultInjector::nb_transport_fw);
  target_socket.register_transport_dbg(this, &FaultInjector::transport_dbg);
  target_socket.register_get_direct_mem_ptr(this, &FaultInjector::get_direct_mem_ptr);
  initiator_socket.register_nb_transport_bw(this, &FaultInjector::nb_transport_bw);
  initiator_socket.register_invalidate_direct_mem_ptr(this, &FaultInjector::invalidate_direct_mem_ptr);
  m_errors = m_stats.add("errors_injected", "requests", "transactions answered with an error response here");
  m_delays = m_stats.add("delays_injected", "requests", "responses delayed by delay_ns");
}

bool FaultInjector::touches(const tlm::tlm_generic_payload& t, std::uint64_t base, std::uint64_t size) {
  if (size == 0) return false;
  const std::uint64_t a = t.get_address(), len = t.get_data_length() ? t.get_data_length() : 1;
  return a < base + size && base < a + len;
}

bool FaultInjector::inject_error(const tlm::tlm_generic_payload& t) {
  if (m_config.error_limit && errors_injected() >= m_config.error_limit) return false;
  bool hit = touches(t, m_config.error_base, m_config.error_size);
  // One draw per transaction whatever the window says, so the draws do not
  // depend on the window.
  if (m_config.error_rate > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(m_rng) < m_config.error_rate)
    hit = true;
  if (hit) m_stats.inc(m_errors);
  return hit;
}

bool FaultInjector::delayed(const tlm::tlm_generic_payload& t) const {
  return m_config.delay_ns > 0.0 && touches(t, m_config.delay_base, m_config.delay_size);
}

void FaultInjector::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (inject_error(trans)) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  initiator_socket->b_transport(trans, delay);
  if (delayed(trans)) {
    m_stats.inc(m_delays);
    delay += m_delay;
  }
}

tlm::tlm_sync_enum FaultInjector::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ && inject_error(trans)) {
    // Completed here: the memory never sees it (base protocol: a target may
    // answer BEGIN_REQ with TLM_COMPLETED, which implies every later phase).
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  if (phase == tlm::BEGIN_REQ && delayed(trans)) {
    // Answered here, delay_ns from now; the data moves now.
    m_stats.inc(m_delays);
    const unsigned int moved = initiator_socket->transport_dbg(trans);
    trans.set_response_status(moved == trans.get_data_length() ? tlm::TLM_OK_RESPONSE
                                                               : tlm::TLM_GENERIC_ERROR_RESPONSE);
    m_delayed.notify(trans, tlm::BEGIN_RESP, delay + m_delay);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) response_ends(sc_core::sc_time_stamp() + delay);
  return initiator_socket->nb_transport_fw(trans, phase, delay);
}

void FaultInjector::response_ends(const sc_core::sc_time& at) { m_response_free = std::max(m_response_free, at); }

void FaultInjector::respond(tlm::tlm_generic_payload& trans, const tlm::tlm_phase&) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (now < m_response_free) {  // another response is still on its way to the initiator
    m_delayed.notify(trans, tlm::BEGIN_RESP, m_response_free - now);
    return;
  }
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum s = target_socket->nb_transport_bw(trans, phase, delay);
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::END_RESP))
    response_ends(now + delay);
  else
    SC_REPORT_ERROR(name(), "the initiator did not end a delayed response at BEGIN_RESP");
}

tlm::tlm_sync_enum FaultInjector::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  const tlm::tlm_sync_enum s = target_socket->nb_transport_bw(trans, phase, delay);
  if (phase == tlm::BEGIN_RESP && s == tlm::TLM_COMPLETED) response_ends(sc_core::sc_time_stamp() + delay);
  if (phase == tlm::END_RESP && s == tlm::TLM_UPDATED) response_ends(sc_core::sc_time_stamp() + delay);
  return s;
}

unsigned int FaultInjector::transport_dbg(tlm::tlm_generic_payload& trans) {
  return initiator_socket->transport_dbg(trans);
}

bool FaultInjector::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  if (m_config.enabled()) return false;  // dmi keeps its default: no DMI anywhere
  return initiator_socket->get_direct_mem_ptr(trans, dmi);
}

void FaultInjector::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  target_socket->invalidate_direct_mem_ptr(start, end);
}

}  // namespace eva
