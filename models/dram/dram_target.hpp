#pragma once
// What every DRAM model shares as a TLM-2.0 target: sparse storage, the
// approximately-timed protocol (BEGIN_REQ/END_REQ/BEGIN_RESP/END_RESP, with a
// payload event queue for responses and back-pressure when the model has no
// room), a blocking b_transport that goes through the same timing, debug
// transport, DMI into storage, and traffic counters.
//
// A model derives and implements accept(): take a request now or refuse it
// (no room); when it has room again it calls retry_held(), and when a
// request's data has all moved it calls complete() with the time. A model
// whose timing is known when a request arrives (the ideal pipe) also
// implements time_now(), and its b_transport then annotates the delay instead
// of waiting; the cycle models' b_transport waits for their controller.
// Byte enables are honoured (a disabled byte is neither written nor read);
// DMI grants cover whole storage pages (SparseStorage::page_bytes).
#include <cstdint>
#include <deque>
#include <queue>
#include <unordered_map>
#include <vector>

#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "common/burst_timer.hpp"
#include "common/run_ahead.hpp"
#include "common/stats.hpp"
#include "dram/sparse_storage.hpp"

namespace eva {

class DramTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramTarget> target_socket;

  DramTarget(const sc_core::sc_module_name& name, double capacity_bytes);
  DramTarget(const DramTarget&) = delete;
  DramTarget& operator=(const DramTarget&) = delete;

  SparseStorage& storage() { return m_storage; }
  std::uint64_t bytes_read() const { return static_cast<std::uint64_t>(m_stats.get(m_bytes_read)); }
  std::uint64_t bytes_written() const { return static_cast<std::uint64_t>(m_stats.get(m_bytes_written)); }
  const StatGroup& stats() const { return m_stats; }

  virtual double peak_bytes_per_second() const = 0;
  // Energy of the run so far, `elapsed` long, in the parts every model
  // charges (docs/ENERGY.md, "DRAM energy"): the device core (commands,
  // bursts, refresh), the interface (I/O), and the background (standby and
  // power-down).
  struct Energy {
    double core_j = 0, io_j = 0, background_j = 0;
    double total() const { return core_j + io_j + background_j; }
  };
  virtual Energy energy_parts(const sc_core::sc_time& elapsed) const = 0;
  double energy_j(const sc_core::sc_time& elapsed) const { return energy_parts(elapsed).total(); }
  // Latency of one isolated access (the DMI latency).
  virtual sc_core::sc_time access_latency() const = 0;
  // Brings the statistics up to date at `now` (before a report).
  void flush_stats(const sc_core::sc_time& now);
  // A model that times a request on arrival offers its timing to a DMA that
  // is its only initiator (common/burst_timer.hpp); the others return nullptr.
  virtual BurstTimer* burst_timer() { return nullptr; }
  // A model with its own scheduler that can run it and its only initiator
  // ahead of the kernel offers that (common/run_ahead.hpp); the others return
  // nullptr.
  virtual RunAheadTarget* run_ahead_target() { return nullptr; }
  // Writes answered before their bursts reached the device (a controller's
  // posted writes) and not yet written there; `posted_drained` is notified
  // when the count returns to zero.
  virtual std::uint64_t posted_pending() const { return 0; }
  const sc_core::sc_event& posted_drained() const { return m_posted_drained; }

 protected:
  // Takes `trans` at the current time, or returns false when there is no room.
  virtual bool accept(tlm::tlm_generic_payload& trans) = 0;
  // Models whose timing needs no simulation: takes `trans` arriving at
  // absolute time `arrival` and returns true with `done` set to when its data
  // has moved. Others return false.
  virtual bool time_now(tlm::tlm_generic_payload&, const sc_core::sc_time& /*arrival*/, sc_core::sc_time& /*done*/) {
    return false;
  }
  // The request's data has all moved at absolute time `at` (>= now).
  void complete(tlm::tlm_generic_payload& trans, const sc_core::sc_time& at);
  // There may be room again for a refused request.
  void retry_held();
  // Counts requests served outside the socket (BurstTimer).
  void count(bool write, std::uint64_t bytes, std::uint64_t requests = 1);
  // Whether a request of `bytes` at `addr` lies wholly in the memory.
  bool in_range(std::uint64_t addr, std::uint64_t bytes) const {
    const std::uint64_t end = addr + bytes;
    return bytes > 0 && end >= addr && static_cast<double>(end) <= m_capacity;
  }
  StatGroup m_stats;
  sc_core::sc_event m_posted_drained;
  // The current time: the kernel's, or the run-ahead loop's (run_ahead.hpp).
  RunAheadClock m_clock;
  sc_core::sc_time current_time() const { return m_clock.get(); }
  // For a model's run-ahead loop: whether no other initiator has a request
  // held or a blocking call waiting; the pending response notification,
  // withdrawn from the kernel (true if there was one, at `at`) and given back;
  // the responses due by `now`, answered; and whether those due at `at`
  // would end one of `initiator`'s transfers.
  bool run_ahead_allowed(const RunAheadInitiator& initiator) const {
    return m_blocking.empty() && (!m_held || initiator.owns(*m_held));
  }
  bool withdraw_due(sc_core::sc_time& at);
  void restore_due();
  bool due_pending(sc_core::sc_time& at) const {
    at = m_due_next_at;
    return m_due_next_pending;
  }
  void respond_due();
  bool due_ends_transfer(const sc_core::sc_time& at, const RunAheadInitiator& initiator);
  // A model's own statistics, brought up to date at `now`.
  virtual void flush_model_stats(const sc_core::sc_time& /*now*/) {}

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void on_peq(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);
  void on_response_due();
  void respond(tlm::tlm_generic_payload& trans);
  bool check(tlm::tlm_generic_payload& trans) const;
  bool try_accept(tlm::tlm_generic_payload& trans);
  void count(tlm::tlm_generic_payload& trans);
  // Moves the data of `trans` in its direction (honouring byte enables),
  // unless timing-only.
  void move(tlm::tlm_generic_payload& trans);
  void send_response(tlm::tlm_generic_payload& trans);
  void send_pending();

  double m_capacity;
  SparseStorage m_storage;
  tlm_utils::peq_with_cb_and_phase<DramTarget> m_peq;  // requests annotated into the future
  // Responses by due time (a heap: cheaper than the PEQ's map on this path).
  struct Due {
    sc_core::sc_time at;
    std::uint64_t seq;
    tlm::tlm_generic_payload* trans;
    bool operator>(const Due& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct DueQueue : std::priority_queue<Due, std::vector<Due>, std::greater<>> {
    // The heap's array: each entry is due no later than its two children.
    const std::vector<Due>& items() const { return c; }
  };
  DueQueue m_due;
  std::uint64_t m_due_seq = 0;
  sc_core::sc_event m_response_due;
  // Notifies m_response_due at absolute time `at` unless a notification no
  // later is pending (an earlier one replaces a later one; a later is dropped).
  void notify_due(const sc_core::sc_time& at);
  bool m_due_pending = false;  // m_response_due has a notification at m_due_at
  sc_core::sc_time m_due_at;
  // The earliest notification made since the method last ran: exactly when
  // it runs next (m_due_at may be later); in a run ahead, the loop's.
  bool m_due_next_pending = false;
  sc_core::sc_time m_due_next_at;
  std::vector<std::size_t> m_due_walk;  // scratch: due_ends_transfer()
  std::vector<tlm::tlm_generic_payload*> m_due_trans;
  tlm::tlm_generic_payload* m_held = nullptr;  // a BEGIN_REQ refused for lack of room
  bool m_response_busy = false;                // a BEGIN_RESP awaits END_RESP
  std::deque<tlm::tlm_generic_payload*> m_responses;
  std::unordered_map<tlm::tlm_generic_payload*, sc_core::sc_event*> m_blocking;  // b_transport callers
  sc_core::sc_event m_room;
  std::size_t m_reads, m_writes, m_bytes_read, m_bytes_written;
  std::size_t m_core_uj, m_io_uj, m_background_uj;
};

}  // namespace eva
