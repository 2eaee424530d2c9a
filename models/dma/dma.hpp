#pragma once
// A DMA engine moving contiguous and 2-D blocks between DRAM and on-chip
// buffers, as an approximately-timed TLM initiator toward memory.
//
// Transfers are queued and started without blocking the caller; an issue
// thread cuts them into bursts of `burst_bytes` and sends each as BEGIN_REQ,
// keeping at most `max_outstanding` in flight across all transfers (a burst
// waits for a free slot, and for END_REQ when the target applies
// back-pressure). A transfer is done when its last burst's response arrives.
// So bandwidth comes from concurrency against the memory model: with one
// burst in flight it is burst / latency, with enough it is the DRAM's peak.
//
// Targets may annotate END_REQ and BEGIN_RESP with a delay (on either path):
// the DMA takes them when they are due. A transfer that carries no data moves
// no data: its reads land in the DMA's own scratch, its writes have every
// byte disabled.
//
// The on-chip end of a transfer is either a host buffer (or none, in timing
// mode) or an SRAM reached through `sram_socket` (loosely timed): loads write
// each burst into the SRAM when it arrives, stores read each burst from the
// SRAM before it leaves, and the SRAM's access time adds to the transfer.
//
// A burst that comes back with an error response does not stop anything: the
// DMA records the first one (bus_error(), sticky until clear_bus_error()),
// marks its transfer failed, and the transfer completes as usual (the data it
// moved is undefined). Whoever drives the DMA checks after its transfers.
// A burst whose response has not come `response_timeout_ns` after its request
// is treated the same way at that moment (BusError::timeout); its response,
// if it ever comes, is then taken and dropped, and only then is its payload
// reused. (A target that never takes the request, holding END_REQ, still
// stalls the DMA: the timeout covers responses.)
//
// Exclusive timing (set_exclusive_timer): when the memory behind the socket
// times a burst on arrival and no other initiator reaches it, a transfer that
// moves no data is timed here when it starts: each burst takes the slot that
// frees first, leaves when the issue thread would send it, and the memory
// times it (BurstTimer); one event per transfer marks its end. The bursts
// arrive at the memory at the same times and in the same order as on the
// socket, so every figure is the same; it is the per-burst events that go.
// Transfers that move data, and any transfer queued behind one, use the
// socket as before, and wait for the slots the timed bursts hold.
//
// Running ahead (set_run_ahead_target): against a memory with its own
// scheduler (the timed controller) that no other initiator reaches, the issue
// thread, when it would wait, lets the memory run its processes and the
// thread's issue loop (issue_ready) ahead of the kernel while that is exact
// (common/run_ahead.hpp): only while no store through the SRAM is queued (its
// SRAM read would make the loop wait). A memory that answers writes as it
// takes them (posted) stops the loop where a write could end
// (write_could_end). Every burst still crosses the socket.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "common/burst_timer.hpp"
#include "common/run_ahead.hpp"
#include "common/stats.hpp"
#include "common/timing_only.hpp"
#include "dma/dma_config.hpp"

namespace eva {

class Dma : public sc_core::sc_module, private tlm::tlm_mm_interface, private RunAheadInitiator {
 public:
  tlm_utils::simple_initiator_socket<Dma> initiator_socket;      // toward DRAM (AT)
  tlm_utils::simple_initiator_socket_optional<Dma> sram_socket;  // toward an on-chip SRAM (LT)

  // A started transfer; copies share it.
  class Transfer {
   public:
    Transfer() = default;
    bool done() const { return !m_state || (m_state->left == 0 && sc_core::sc_time_stamp() >= m_state->last); }
    // One of its bursts came back with an error response.
    bool failed() const { return m_state && m_state->failed; }

   private:
    friend class Dma;
    struct State {
      std::uint64_t left = 0;  // bursts not yet finished
      sc_core::sc_time last = sc_core::SC_ZERO_TIME;
      sc_core::sc_time start = sc_core::SC_ZERO_TIME;  // when it was started (timelines)
      std::uint64_t bytes = 0;
      bool write = false;
      bool failed = false;
      // Timing-only loads into an SRAM: the write of the last burst, which
      // ends the transfer (the others overlap the bursts still arriving).
      sc_core::sc_time sram_tail = sc_core::SC_ZERO_TIME;
      sc_core::sc_event finished;
      // The delta (sc_delta_count) in which `finished` was last notified for
      // the next delta, if any (Dma::new_state reuses no state before then).
      static constexpr std::uint64_t no_delta = ~std::uint64_t{0};
      std::uint64_t delta_notified = no_delta;
      // Its job is queued up to the first queued write and counted in
      // Dma::m_ahead_unsent, if this is Dma::m_ahead_gen (write_could_end).
      std::uint64_t ahead_gen = 0;
    };
    std::shared_ptr<State> m_state;
  };

  // The first burst since the last clear_bus_error() that came back with an
  // error response.
  struct BusError {
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    std::uint64_t addr = 0;   // the burst's first byte
    std::uint64_t bytes = 0;  // the burst's length
    bool write = false;
    bool timeout = false;  // no response within response_timeout_ns (status: TLM_GENERIC_ERROR_RESPONSE)
    explicit operator bool() const { return status != tlm::TLM_OK_RESPONSE; }
    // "read of 64 B at 0x40000000 failed: TLM_ADDRESS_ERROR_RESPONSE"
    std::string message() const;
  };

  Dma(const sc_core::sc_module_name& name, const DmaConfig& config);
  ~Dma() override;
  Dma(const Dma&) = delete;
  Dma& operator=(const Dma&) = delete;

  // A 2-D block: `rows` rows of `row_bytes`, `stride` bytes apart in DRAM,
  // packed one after the other in the buffer. A null buffer moves time but no
  // data. The buffer must stay valid until the transfer is done.
  Transfer start_read(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                      std::uint8_t* dst);
  Transfer start_write(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                       const std::uint8_t* src);
  // The same with the SRAM on `sram_socket` at `sram_addr` as the buffer.
  // `sram_pitch` (loads): bytes from one row's start to the next's in the SRAM
  // (0: packed, the row size), for layouts that interleave rows across banks.
  Transfer start_load(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                      std::uint64_t sram_addr, bool timing_only = false, std::uint64_t sram_pitch = 0);
  Transfer start_store(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                       std::uint64_t sram_addr, bool timing_only = false);
  // Blocks the calling thread until the transfer is done.
  static void wait_for(const Transfer& t);

  // Blocking forms.
  void read(std::uint64_t addr, std::uint64_t bytes, std::uint8_t* dst) {
    wait_for(start_read(addr, bytes, 1, bytes, dst));
  }
  void write(std::uint64_t addr, std::uint64_t bytes, const std::uint8_t* src) {
    wait_for(start_write(addr, bytes, 1, bytes, src));
  }
  void read_2d(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
               std::uint8_t* dst) {
    wait_for(start_read(addr, row_bytes, rows, stride, dst));
  }
  void write_2d(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                const std::uint8_t* src) {
    wait_for(start_write(addr, row_bytes, rows, stride, src));
  }

  const StatGroup& stats() const { return m_stats; }
  // Bytes of the bursts issued so far (the "bytes_read"/"bytes_written" stats).
  std::uint64_t bytes_read() const { return static_cast<std::uint64_t>(m_stats.get(m_bytes_read)); }
  std::uint64_t bytes_written() const { return static_cast<std::uint64_t>(m_stats.get(m_bytes_written)); }
  const BusError& bus_error() const { return m_bus_error; }
  void clear_bus_error() { m_bus_error = BusError{}; }
  // `timer` is the memory on initiator_socket, which no other initiator
  // reaches (see above); nullptr: every burst through the socket. Before the
  // simulation starts; not with a response timeout (that needs each burst on
  // the socket).
  void set_exclusive_timer(BurstTimer* timer);
  // Transfers timed by the exclusive timer so far.
  std::uint64_t exclusive_transfers() const { return m_exclusive_transfers; }
  // `target` is the memory on initiator_socket, which no other initiator
  // reaches and nothing sits in front of: when the issue thread would wait,
  // it lets the memory run itself and the thread's loop ahead of the kernel
  // while that is exact (common/run_ahead.hpp); nullptr: never. Before the
  // simulation starts; not with a response timeout.
  void set_run_ahead_target(RunAheadTarget* target);
  // Tests: the count of bursts not yet sent up to the first queued write
  // (kept as bursts leave, for running ahead) is checked against a walk of
  // the job queue at each use; a difference throws std::logic_error.
  void set_self_check(bool on) { m_self_check = on; }

  // Descriptor overlap (dma.descriptor_overlap, run by Platform's driver).
  // An operation's control calls operands_consumed() once it has taken the
  // last of its streamed operands (weights, indices, codebooks) into its
  // units: their buffers are free for the next descriptor's loads.
  void operands_consumed() {
    m_consumed = true;
    m_consumed_event.notify(sc_core::SC_ZERO_TIME);
  }
  bool consumed() const { return m_consumed; }
  void clear_consumed() { m_consumed = false; }
  const sc_core::sc_event& consumed_event() const { return m_consumed_event; }
  // From hold_reads() to release_held_reads() two descriptors share the DMA:
  // the current one draining, the next one loading. Reads that touch any of
  // `ranges` ([first, end) byte addresses) are held, in order, until the
  // release: the next descriptor's inputs wait for the current one's outputs.
  // Other transfers go on meanwhile, through the socket, the current one's
  // write-back first: a write goes ahead of the reads queued (the next one's
  // loads; a read begun goes on after it).
  void hold_reads(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) {
    m_hold = std::move(ranges);
    m_sharing = true;
  }
  void release_held_reads();

 private:
  enum class End { none, host, sram };
  struct Job {
    std::shared_ptr<Transfer::State> state;
    tlm::tlm_command cmd;
    std::uint64_t addr, row_bytes, rows, stride;
    End end;
    std::uint8_t* host;              // End::host
    std::uint64_t sram;              // End::sram
    bool timing_only;                // End::sram without data
    std::uint64_t sram_pitch = 0;    // End::sram: row to row in the SRAM (0: row_bytes)
    std::uint64_t row = 0, col = 0;  // the next burst
  };
  // A pooled payload with what the DMA keeps about it.
  struct Slot : tlm::tlm_generic_payload {
    const Dma* dma = nullptr;  // whose slot it is (owns)
    TimingOnly timing_only;
    std::shared_ptr<Transfer::State> owner;
    std::vector<std::uint8_t> staging;  // the burst's data on its way to or from the SRAM
    std::uint64_t sram_addr = 0;
    bool to_sram = false;
    bool pending = false;    // sent, its response not yet taken
    bool timed_out = false;  // its transfer gave it up; the late response is dropped
    sc_core::sc_time deadline;
  };

  Transfer start(Job job);
  // A transfer's state: a pooled one no longer in use, or a new one. Reuse
  // keeps its event's process lists, so a transfer costs no allocation.
  std::shared_ptr<Transfer::State> new_state();
  // A started job toward the memory: timed at once, or queued for the socket
  // (true) at `at`, by default last (a write-back while sharing: ahead of
  // the reads).
  bool dispatch(Job& job, std::optional<std::size_t> at = std::nullopt);
  // Exclusive timing: whether `job` may be timed at once, and timing it.
  bool can_time_now(const Job& job) const;
  void time_now(Job& job);
  void exclusive_done();  // SC_METHOD: transfers timed by time_now() that are over
  void issue_thread();
  // The issue loop's parts: the loaded bursts written into the SRAM; the
  // next burst of the first job, in a slot (a store's SRAM read time in
  // `sram_delay`, which the burst waits before it leaves).
  void drain_to_sram();
  Slot& next_burst(sc_core::sc_time& sram_delay);
  bool blocked() const { return m_jobs.empty() || m_free.empty() || m_waiting_end_req; }
  // Run ahead (RunAheadInitiator): whether the queued jobs allow it: no
  // store through the SRAM (its SRAM read would make the loop wait).
  bool can_run_ahead() const;
  bool write_could_end() const override;
  bool owns(const tlm::tlm_generic_payload& trans) const override;
  void issue_ready() override;
  bool would_end_transfer(tlm::tlm_generic_payload* const* batch, std::size_t n) const override;
  void account_timing_load(Job& job);
  void send(Slot& slot);
  void finish(tlm::tlm_generic_payload& trans);
  void retire(Slot& slot, const sc_core::sc_time& done);
  void give_back(Slot& slot);  // the slot is free again
  // One burst of `state`'s transfer is over at `done`.
  void complete_burst(std::shared_ptr<Transfer::State> state, const sc_core::sc_time& done);
  void watchdog();  // SC_METHOD: times out the bursts past their deadline
  void time_out(Slot& slot);
  // A burst of `slot`'s transfer failed: counted, the transfer marked, the
  // first since clear_bus_error() kept.
  void burst_failed(Slot& slot, tlm::tlm_response_status status, bool timeout);
  sc_core::sc_time sram_access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, std::uint64_t len,
                               bool timing_only);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void on_response(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);
  void free(tlm::tlm_generic_payload*) override {}  // slots are pooled, never freed

  const DmaConfig m_config;
  std::vector<std::uint8_t> m_scratch;  // the data pointer of timing-only bursts
  // Timing-only writes carry every byte disabled: a memory that ignores
  // TimingOnly still writes nothing.
  std::vector<unsigned char> m_disabled;
  tlm_utils::peq_with_cb_and_phase<Dma> m_responses;  // responses annotated into the future
  tlm::tlm_generic_payload m_sram_trans;              // SRAM accesses (loosely timed, one at a time)
  TimingOnly m_sram_timing_only;
  std::vector<std::unique_ptr<Slot>> m_slots;
  std::vector<Slot*> m_free;
  std::deque<Job> m_jobs;
  // Jobs in m_jobs that are writes, and stores through the SRAM among them (can_run_ahead).
  std::size_t m_queued_writes = 0, m_queued_stores = 0;
  // write_could_end(): the bursts not yet sent of the queued jobs up to the
  // first queued write (the reads before it, and its own), kept as the
  // front job sends them, and counted again (a new generation) when a job is
  // queued before the end or the first write leaves the queue.
  mutable std::array<std::uint64_t, 2> m_ahead_unsent{0, 0};  // reads, the write
  mutable std::uint64_t m_ahead_gen = 1;
  mutable bool m_ahead_valid = false;
  bool m_self_check = false;
  std::uint64_t unsent(const Job& j) const;  // its bursts not yet sent
  // The bursts not yet sent of the queued jobs up to the first queued write
  // (reads, the write); with `gen` (not 0), the jobs counted are marked so.
  std::array<std::uint64_t, 2> count_ahead(std::uint64_t gen) const;
  void forget_ahead() {
    m_ahead_valid = false;
    ++m_ahead_gen;
  }
  std::deque<Slot*> m_to_sram;  // loaded bursts waiting to be written into the SRAM
  sc_core::sc_event m_wakeup;   // a job, a free slot, END_REQ, or a burst for the SRAM
  tlm::tlm_generic_payload* m_waiting_end_req = nullptr;
  BusError m_bus_error;
  const sc_core::sc_time m_timeout;  // response_timeout_ns (zero: none)
  // The watchdog wakes at the earliest deadline of a pending burst (at most
  // once per timeout while bursts are in flight) and scans the slots.
  sc_core::sc_event m_watchdog;
  bool m_watchdog_armed = false;
  // Exclusive timing: the memory's timer; the window (when each slot not
  // held by a burst on the socket is free, and when the last burst left); the
  // slots held by bursts on the socket; and the timed transfers' ends by time.
  BurstTimer* m_timer = nullptr;
  BurstWindow m_window;  // the slots not held by bursts on the socket, and the last send
  std::size_t m_socket_slots = 0;
  struct Timed {
    sc_core::sc_time response;  // the last burst's response: when the transfer is over as on the socket
    std::uint64_t seq;
    std::shared_ptr<Transfer::State> state;
    bool operator>(const Timed& o) const { return response != o.response ? response > o.response : seq > o.seq; }
  };
  std::priority_queue<Timed, std::vector<Timed>, std::greater<>> m_timed;
  std::uint64_t m_timed_seq = 0;
  sc_core::sc_event m_timed_due;
  std::uint64_t m_exclusive_transfers = 0;
  RunAheadTarget* m_run_ahead = nullptr;
  // Transfer states for reuse, oldest at m_states_next (a ring: transfers
  // mostly end in the order they start).
  static constexpr std::size_t states_pooled = 512;
  std::vector<std::shared_ptr<Transfer::State>> m_states;
  std::size_t m_states_next = 0;
  // Descriptor overlap: the current operation's streamed operands are all
  // taken; the ranges whose reads wait, and the reads waiting.
  bool m_consumed = false;
  sc_core::sc_event m_consumed_event;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> m_hold;
  bool m_sharing = false;
  std::deque<Job> m_held;
  StatGroup m_stats{"dma"};
  std::size_t m_bursts, m_bytes_read, m_bytes_written, m_bus_errors, m_bus_timeouts;
};

}  // namespace eva
