#pragma once
// A TLM-2.0 base-protocol checker (IEEE 1666-2011, clauses 11, 14 and 15): a
// module with a target socket (bind the initiator to it) and an initiator
// socket (bind it to the target) that forwards every call unchanged in both
// directions (b_transport, nb_transport_fw/bw, transport_dbg,
// get_direct_mem_ptr, invalidate_direct_mem_ptr) and checks what passes:
//
// - phases: BEGIN_REQ -> (END_REQ) -> BEGIN_RESP -> END_RESP, early
//   completion with TLM_COMPLETED or TLM_UPDATED, the return value and phase
//   each call may give, and a transaction's phase transitions in
//   non-decreasing time (annotated delay included);
// - exclusion: at most one transaction in the request phase (BEGIN_REQ
//   without END_REQ or BEGIN_RESP) and one in the response phase (BEGIN_RESP
//   without END_RESP) on this socket pair, a BEGIN_REQ not before the END_REQ
//   time of the one before;
// - the response status: TLM_INCOMPLETE_RESPONSE when the initiator sends a
//   transaction, set by the target before the response (or the return of
//   b_transport);
// - attributes the target must not change: command, address, data pointer,
//   data length, byte-enable pointer and length, streaming width (an
//   interconnect downstream may translate the address while it owns the
//   transaction, but the initiator's address is back by the response);
// - payload rules: data length and streaming width non-zero for reads and
//   writes, a non-null byte-enable pointer with a non-zero length;
// - ownership: a transaction object not reused while in flight, b_transport
//   and nb_transport not mixed on one transaction, an nb_transport
//   transaction with a memory manager and a reference count above zero;
// - DMI: a granted region that holds the requested address, a non-null
//   pointer, read (write) access when a read (write) was asked for, start <=
//   end (also for invalidations); transport_dbg returns at most the data
//   length.
//
// Each violation goes to the handler (by default SC_REPORT_ERROR with the
// checker's name) naming the rule, the socket pair (this checker's name), the
// address and the phase; the counters say how much was checked.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace eva {

class ProtocolChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProtocolChecker> target_socket;        // the initiator binds here
  tlm_utils::simple_initiator_socket<ProtocolChecker> initiator_socket;  // bound to the target

  struct Violation {
    std::string rule;     // a short name, e.g. "request exclusion"
    std::string message;  // the checker, the rule, the address, the phase and what was seen
  };
  using Handler = std::function<void(const Violation&)>;

  explicit ProtocolChecker(const sc_core::sc_module_name& name);
  ProtocolChecker(const ProtocolChecker&) = delete;
  ProtocolChecker& operator=(const ProtocolChecker&) = delete;

  // Replaces the default handler (SC_REPORT_ERROR); tests collect instead.
  void on_violation(Handler handler) { m_handler = std::move(handler); }
  // b_transport calls and nb_transport transactions (each BEGIN_REQ) checked.
  std::uint64_t transactions_checked() const { return m_transactions; }
  // DMI requests and debug transports checked.
  std::uint64_t dmi_checked() const { return m_dmi; }
  std::uint64_t debug_checked() const { return m_debug; }
  std::uint64_t violations() const { return m_violations; }
  // nb_transport transactions begun and not yet finished.
  std::size_t in_flight() const { return m_flight.size(); }

 private:
  enum class Phase { begin_req, end_req, begin_resp };
  // What the initiator set, which nobody downstream may change.
  struct Attributes {
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    std::uint64_t address = 0;
    unsigned char* data = nullptr;
    unsigned int length = 0;
    unsigned char* byte_enables = nullptr;
    unsigned int byte_enable_length = 0;
    unsigned int streaming_width = 0;
  };
  struct Flight {
    Attributes attributes;
    Phase phase = Phase::begin_req;
    sc_core::sc_time last;  // the time of its latest phase transition
  };

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  tlm::tlm_sync_enum begin_request(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum end_response(tlm::tlm_generic_payload& trans, Flight& f, tlm::tlm_phase& phase,
                                  sc_core::sc_time& delay);
  // The target's answer to BEGIN_REQ (on return or on the backward path).
  void request_ended(const tlm::tlm_generic_payload& trans, Flight& f, const sc_core::sc_time& at);
  // BEGIN_RESP reaches the initiator: exclusion, status, attributes.
  void response_begins(tlm::tlm_generic_payload& trans, Flight& f, const sc_core::sc_time& at, const char* how);
  void finished(const tlm::tlm_generic_payload& trans, const sc_core::sc_time& at);
  void advance(tlm::tlm_generic_payload& trans, Flight& f, const sc_core::sc_time& at, const char* phase);
  void check_payload(const tlm::tlm_generic_payload& trans, const char* phase);
  void check_unchanged(const tlm::tlm_generic_payload& trans, const Attributes& a, bool address, const char* phase);
  void check_mm(const tlm::tlm_generic_payload& trans, const char* phase);
  void report(const std::string& rule, const tlm::tlm_generic_payload* trans, const char* phase,
              const std::string& what);
  static Attributes attributes_of(const tlm::tlm_generic_payload& trans);

  Handler m_handler;
  std::unordered_map<const tlm::tlm_generic_payload*, Flight> m_flight;
  std::unordered_set<const tlm::tlm_generic_payload*> m_blocking;  // inside b_transport
  const tlm::tlm_generic_payload* m_request = nullptr;             // in the request phase
  const tlm::tlm_generic_payload* m_response = nullptr;            // in the response phase
  sc_core::sc_time m_request_free = sc_core::SC_ZERO_TIME;         // when the last request phase ended
  sc_core::sc_time m_response_free = sc_core::SC_ZERO_TIME;        // when the last response phase ended
  std::uint64_t m_transactions = 0, m_dmi = 0, m_debug = 0, m_violations = 0;
};

}  // namespace eva
