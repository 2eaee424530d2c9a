#include "checker/protocol_checker.hpp"

#include <fmt/format.h>

namespace eva {

namespace {

std::string at_time(const sc_core::sc_time& t) { return t.to_string(); }

const char* status_name(tlm::tlm_response_status s) {
  switch (s) {
    case tlm::TLM_OK_RESPONSE:
      return "TLM_OK_RESPONSE";
    case tlm::TLM_INCOMPLETE_RESPONSE:
      return "TLM_INCOMPLETE_RESPONSE";
    case tlm::TLM_GENERIC_ERROR_RESPONSE:
      return "TLM_GENERIC_ERROR_RESPONSE";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
      return "TLM_ADDRESS_ERROR_RESPONSE";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:
      return "TLM_COMMAND_ERROR_RESPONSE";
    case tlm::TLM_BURST_ERROR_RESPONSE:
      return "TLM_BURST_ERROR_RESPONSE";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
      return "TLM_BYTE_ENABLE_ERROR_RESPONSE";
  }
  return "an unknown status";
}

}  // namespace

ProtocolChecker::ProtocolChecker(const sc_core::sc_module_name& name)
    : sc_module(name), target_socket("target_socket"), initiator_socket("initiator_socket") {
  target_socket.register_nb_transport_fw(this, &ProtocolChecker::nb_transport_fw);
  target_socket.register_b_transport(this, &ProtocolChecker::b_transport);
  target_socket.register_transport_dbg(this, &ProtocolChecker::transport_dbg);
  target_socket.register_get_direct_mem_ptr(this, &ProtocolChecker::get_direct_mem_ptr);
  initiator_socket.register_nb_transport_bw(this, &ProtocolChecker::nb_transport_bw);
  initiator_socket.register_invalidate_direct_mem_ptr(this, &ProtocolChecker::invalidate_direct_mem_ptr);
}

ProtocolChecker::Attributes ProtocolChecker::attributes_of(const tlm::tlm_generic_payload& t) {
  return Attributes{t.get_command(),        t.get_address(),         t.get_data_ptr(),
                    t.get_data_length(),    t.get_byte_enable_ptr(), t.get_byte_enable_length(),
                    t.get_streaming_width()};
}

void ProtocolChecker::report(const std::string& rule, const tlm::tlm_generic_payload* trans, const char* phase,
                             const std::string& what) {
  ++m_violations;
  Violation v;
  v.rule = rule;
  v.message = fmt::format("{}: base protocol, {}: {} (address 0x{:x}, {})", name(), rule, what,
                          trans ? trans->get_address() : 0, phase);
  if (m_handler)
    m_handler(v);
  else
    SC_REPORT_ERROR("eva/protocol_checker", v.message.c_str());
}

void ProtocolChecker::check_payload(const tlm::tlm_generic_payload& t, const char* phase) {
  if (t.get_command() != tlm::TLM_IGNORE_COMMAND) {
    if (t.get_data_length() == 0)
      report("data length", &t, phase, "a read or write of 0 bytes (a transfer of none is TLM_IGNORE_COMMAND)");
    if (t.get_streaming_width() == 0) report("streaming width", &t, phase, "a streaming width of 0");
  }
  if (t.get_byte_enable_ptr() && t.get_byte_enable_length() == 0)
    report("byte enables", &t, phase, "a byte-enable pointer with a byte-enable length of 0");
}

void ProtocolChecker::check_unchanged(const tlm::tlm_generic_payload& t, const Attributes& a, bool address,
                                      const char* phase) {
  const auto changed = [&](const char* what) {
    report("attribute modified", &t, phase, fmt::format("the {} differs from what the initiator set", what));
  };
  if (t.get_command() != a.command) changed("command");
  if (address && t.get_address() != a.address)
    report("attribute modified", &t, phase,
           fmt::format("the address differs from what the initiator set (0x{:x})", a.address));
  if (t.get_data_ptr() != a.data) changed("data pointer");
  if (t.get_data_length() != a.length) changed("data length");
  if (t.get_byte_enable_ptr() != a.byte_enables) changed("byte-enable pointer");
  if (t.get_byte_enable_length() != a.byte_enable_length) changed("byte-enable length");
  if (t.get_streaming_width() != a.streaming_width) changed("streaming width");
}

void ProtocolChecker::check_mm(const tlm::tlm_generic_payload& t, const char* phase) {
  if (!t.has_mm())
    report("memory manager", &t, phase, "an nb_transport transaction without a memory manager");
  else if (t.get_ref_count() <= 0)
    report(
        "memory manager", &t, phase,
        fmt::format("reference count {} while in flight (the initiator acquires before sending)", t.get_ref_count()));
}

void ProtocolChecker::advance(tlm::tlm_generic_payload& t, Flight& f, const sc_core::sc_time& at, const char* phase) {
  if (at < f.last)
    report("timing", &t, phase,
           fmt::format("at {}, before the transaction's previous phase at {}", at_time(at), at_time(f.last)));
  else
    f.last = at;
}

void ProtocolChecker::request_ended(const tlm::tlm_generic_payload& t, Flight& f, const sc_core::sc_time& at) {
  if (m_request == &t) {
    m_request = nullptr;
    m_request_free = at;
  }
  f.phase = Phase::end_req;
}

void ProtocolChecker::response_begins(tlm::tlm_generic_payload& t, Flight& f, const sc_core::sc_time& at,
                                      const char* how) {
  if (f.phase == Phase::begin_resp)
    report("phase order", &t, how, "BEGIN_RESP for a transaction already in its response phase");
  if (f.phase == Phase::begin_req) request_ended(t, f, at);  // BEGIN_RESP implies END_REQ
  if (m_response && m_response != &t)
    report("response exclusion", &t, how,
           fmt::format("BEGIN_RESP while the transaction at 0x{:x} awaits END_RESP", m_response->get_address()));
  else if (at < m_response_free)
    report("response exclusion", &t, how,
           fmt::format("BEGIN_RESP at {}, before the previous END_RESP at {}", at_time(at), at_time(m_response_free)));
  if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    report("response status", &t, how, "a response with TLM_INCOMPLETE_RESPONSE (the target sets the status)");
  check_unchanged(t, f.attributes, true, how);
  f.phase = Phase::begin_resp;
  m_response = &t;
}

void ProtocolChecker::finished(const tlm::tlm_generic_payload& t, const sc_core::sc_time& at) {
  if (m_request == &t) {
    m_request = nullptr;
    m_request_free = at;
  }
  if (m_response == &t) {
    m_response = nullptr;
    m_response_free = at;
  }
  m_flight.erase(&t);
}

tlm::tlm_sync_enum ProtocolChecker::begin_request(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  const char* p = "BEGIN_REQ";
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  ++m_transactions;
  check_payload(t, p);
  check_mm(t, p);
  if (m_flight.count(&t))
    report("ownership", &t, p, "BEGIN_REQ for a transaction object already in flight on this socket pair");
  if (m_blocking.count(&t)) report("b_transport and nb_transport mixed", &t, p, "BEGIN_REQ inside its b_transport");
  if (t.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    report(
        "response status", &t, p,
        fmt::format("sent with {} (the initiator sets TLM_INCOMPLETE_RESPONSE)", status_name(t.get_response_status())));
  if (m_request && m_request != &t)
    report("request exclusion", &t, p,
           fmt::format("BEGIN_REQ while the transaction at 0x{:x} awaits END_REQ", m_request->get_address()));
  else if (at < m_request_free)
    report("request exclusion", &t, p,
           fmt::format("BEGIN_REQ at {}, before the previous END_REQ at {}", at_time(at), at_time(m_request_free)));
  Flight& f = m_flight[&t];
  f = Flight{attributes_of(t), Phase::begin_req, at};
  m_request = &t;

  const tlm::tlm_sync_enum s = initiator_socket->nb_transport_fw(t, phase, delay);
  const auto it = m_flight.find(&t);
  if (it == m_flight.end()) return s;  // finished on the backward path during the call
  Flight& g = it->second;
  const sc_core::sc_time out = sc_core::sc_time_stamp() + delay;
  switch (s) {
    case tlm::TLM_ACCEPTED:
      if (phase != tlm::BEGIN_REQ && g.phase == Phase::begin_req)
        report("return", &t, p, fmt::format("TLM_ACCEPTED with the phase changed to {}", phase.get_name()));
      break;
    case tlm::TLM_UPDATED:
      advance(t, g, out, "TLM_UPDATED to BEGIN_REQ");
      if (phase == tlm::END_REQ) {
        if (g.phase == Phase::begin_req) request_ended(t, g, out);
      } else if (phase == tlm::BEGIN_RESP) {
        response_begins(t, g, out, "BEGIN_RESP returned to BEGIN_REQ");
      } else {
        report("return", &t, p, fmt::format("TLM_UPDATED with phase {} (END_REQ or BEGIN_RESP)", phase.get_name()));
      }
      break;
    case tlm::TLM_COMPLETED:
      advance(t, g, out, "TLM_COMPLETED to BEGIN_REQ");
      if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
        report("response status", &t, "TLM_COMPLETED to BEGIN_REQ",
               "completed with TLM_INCOMPLETE_RESPONSE (the target sets the status)");
      check_unchanged(t, g.attributes, true, "TLM_COMPLETED to BEGIN_REQ");
      finished(t, out);
      break;
  }
  return s;
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) return begin_request(t, phase, delay);
  const std::string name = phase.get_name();
  const auto it = m_flight.find(&t);
  if (it == m_flight.end()) {
    report("phase order", &t, name.c_str(), "a phase on the forward path for a transaction not in flight");
    return initiator_socket->nb_transport_fw(t, phase, delay);
  }
  Flight& f = it->second;
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  check_mm(t, name.c_str());
  if (phase != tlm::END_RESP) {
    report("phase order", &t, name.c_str(), "the initiator sends only BEGIN_REQ and END_RESP");
    return initiator_socket->nb_transport_fw(t, phase, delay);
  }
  if (f.phase != Phase::begin_resp) report("phase order", &t, "END_RESP", "END_RESP before BEGIN_RESP");
  advance(t, f, at, "END_RESP");
  const tlm::tlm_sync_enum s = initiator_socket->nb_transport_fw(t, phase, delay);
  if (s == tlm::TLM_UPDATED) report("return", &t, "END_RESP", "TLM_UPDATED to END_RESP (no phase follows it)");
  finished(t, at);
  return s;
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
  const std::string name = phase.get_name();
  const auto it = m_flight.find(&t);
  if (it == m_flight.end()) {
    report("phase order", &t, name.c_str(), "a phase on the backward path for a transaction not in flight");
    return target_socket->nb_transport_bw(t, phase, delay);
  }
  Flight& f = it->second;
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  check_mm(t, name.c_str());
  if (phase == tlm::END_REQ) {
    if (f.phase != Phase::begin_req) report("phase order", &t, "END_REQ", "END_REQ after the request phase ended");
    advance(t, f, at, "END_REQ");
    request_ended(t, f, at);
    const tlm::tlm_sync_enum s = target_socket->nb_transport_bw(t, phase, delay);
    if (s == tlm::TLM_UPDATED) report("return", &t, "END_REQ", "TLM_UPDATED to END_REQ");
    if (s == tlm::TLM_COMPLETED) finished(t, at);
    return s;
  }
  if (phase != tlm::BEGIN_RESP) {
    report("phase order", &t, name.c_str(), "the target sends only END_REQ and BEGIN_RESP");
    return target_socket->nb_transport_bw(t, phase, delay);
  }
  advance(t, f, at, "BEGIN_RESP");
  response_begins(t, f, at, "BEGIN_RESP");
  const tlm::tlm_sync_enum s = target_socket->nb_transport_bw(t, phase, delay);
  const sc_core::sc_time out = sc_core::sc_time_stamp() + delay;
  if (s == tlm::TLM_ACCEPTED) return s;  // END_RESP follows on the forward path
  if (s == tlm::TLM_UPDATED && phase != tlm::END_RESP)
    report("return", &t, "BEGIN_RESP", fmt::format("TLM_UPDATED with phase {} (END_RESP)", phase.get_name()));
  if (out < at)
    report("timing", &t, "BEGIN_RESP",
           fmt::format("the response ended at {}, before it began at {}", at_time(out), at_time(at)));
  finished(t, out);
  return s;
}

void ProtocolChecker::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const char* p = "b_transport";
  ++m_transactions;
  check_payload(t, p);
  if (m_flight.count(&t)) report("b_transport and nb_transport mixed", &t, p, "b_transport of a transaction in flight");
  if (t.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    report(
        "response status", &t, p,
        fmt::format("sent with {} (the initiator sets TLM_INCOMPLETE_RESPONSE)", status_name(t.get_response_status())));
  const Attributes a = attributes_of(t);
  const sc_core::sc_time before = sc_core::sc_time_stamp() + delay;
  const bool nested = !m_blocking.insert(&t).second;
  if (nested) report("ownership", &t, p, "b_transport of a transaction already inside b_transport here");
  initiator_socket->b_transport(t, delay);
  if (!nested) m_blocking.erase(&t);
  const char* r = "b_transport return";
  if (sc_core::sc_time_stamp() + delay < before)
    report("timing", &t, r,
           fmt::format("returned at {}, before it was called at {}", at_time(sc_core::sc_time_stamp() + delay),
                       at_time(before)));
  check_unchanged(t, a, true, r);
  if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    report("response status", &t, r, "returned with TLM_INCOMPLETE_RESPONSE (the target sets the status)");
}

unsigned int ProtocolChecker::transport_dbg(tlm::tlm_generic_payload& t) {
  ++m_debug;
  const Attributes a = attributes_of(t);
  const unsigned int n = initiator_socket->transport_dbg(t);
  check_unchanged(t, a, true, "transport_dbg return");
  if (n > a.length)
    report("debug transport", &t, "transport_dbg return",
           fmt::format("{} bytes transferred of a {}-byte request", n, a.length));
  return n;
}

bool ProtocolChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  ++m_dmi;
  const tlm::tlm_command cmd = t.get_command();
  const std::uint64_t addr = t.get_address();
  const bool granted = initiator_socket->get_direct_mem_ptr(t, dmi);
  const char* p = "get_direct_mem_ptr";
  if (t.get_address() != addr || t.get_command() != cmd)
    report("attribute modified", &t, p,
           fmt::format("the address or command differs from what the initiator set (0x{:x})", addr));
  if (dmi.get_start_address() > dmi.get_end_address())
    report("DMI", &t, p,
           fmt::format("a region [0x{:x}, 0x{:x}] that ends before it starts", dmi.get_start_address(),
                       dmi.get_end_address()));
  if (!granted) return granted;
  if (!dmi.get_dmi_ptr()) report("DMI", &t, p, "granted with a null pointer");
  if (addr < dmi.get_start_address() || addr > dmi.get_end_address())
    report("DMI", &t, p,
           fmt::format("granted [0x{:x}, 0x{:x}], which does not hold the requested address 0x{:x}",
                       dmi.get_start_address(), dmi.get_end_address(), addr));
  if (cmd == tlm::TLM_READ_COMMAND && !dmi.is_read_allowed())
    report("DMI", &t, p, "a read was asked for and the grant does not allow reads");
  if (cmd == tlm::TLM_WRITE_COMMAND && !dmi.is_write_allowed())
    report("DMI", &t, p, "a write was asked for and the grant does not allow writes");
  return granted;
}

void ProtocolChecker::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (start > end)
    report("DMI", nullptr, "invalidate_direct_mem_ptr",
           fmt::format("an invalidated range [0x{:x}, 0x{:x}] that ends before it starts", start, end));
  target_socket->invalidate_direct_mem_ptr(start, end);
}

}  // namespace eva
