#pragma once
// A traffic generator for measuring a DRAM model (eva-sim dram-bench): an
// approximately-timed initiator that issues fixed-size requests as fast as
// the target takes them, with at most `outstanding` in flight, and records
// each request's latency (BEGIN_REQ sent to BEGIN_RESP received).
//
// Running ahead (set_run_ahead_target): bound straight to a memory that can
// run itself and its only initiator ahead of the kernel, the generator hands
// its issue loop to that memory whenever the loop would wait
// (common/run_ahead.hpp). Only for read patterns; the batch with the last
// response goes back to the kernel, so the simulation ends as it would.
#include <cstdint>
#include <random>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <boost/histogram.hpp>
#include <systemc>
#include <tlm>

#include "common/run_ahead.hpp"
#include "common/timing_only.hpp"

namespace eva {

enum class TrafficPattern { seq, random, strided, mix };

struct TrafficConfig {
  TrafficPattern pattern = TrafficPattern::seq;
  std::uint64_t bytes = 8ull << 20;  // total moved
  std::uint64_t request_bytes = 64;  // per request
  std::uint64_t outstanding = 128;   // requests in flight
  std::uint64_t stride = 4096;       // strided: bytes between requests
  std::uint64_t span = 1ull << 30;   // random, strided: addresses in [0, span)
  std::uint64_t seed = 1;            // random
};

class TrafficGenerator : public sc_core::sc_module, private tlm::tlm_mm_interface, private RunAheadInitiator {
 public:
  tlm_utils::simple_initiator_socket<TrafficGenerator> initiator_socket;

  TrafficGenerator(const sc_core::sc_module_name& name, const TrafficConfig& config);
  ~TrafficGenerator() override;
  TrafficGenerator(const TrafficGenerator&) = delete;
  TrafficGenerator& operator=(const TrafficGenerator&) = delete;

  // The memory bound to the socket, when nothing sits between the two and it
  // is the memory's only initiator; nullptr: never run ahead.
  void set_run_ahead_target(RunAheadTarget* target);

  std::uint64_t requests_done() const { return m_done; }
  std::uint64_t bytes_done() const { return m_done * m_config.request_bytes; }
  sc_core::sc_time last_response() const { return m_last; }
  double latency_ns_mean() const { return m_done ? m_latency_sum_ns / static_cast<double>(m_done) : 0.0; }
  double latency_ns_max() const { return m_latency_max_ns; }
  // The q-quantile (0..1) of the latencies, from a histogram of 0.25 ns bins.
  double latency_ns_quantile(double q) const;

 private:
  struct Slot : tlm::tlm_generic_payload {
    TimingOnly timing_only;
    sc_core::sc_time sent;
  };
  void run();
  // One pass of the issue loop: sends requests until none is left, no slot is
  // free or one is held.
  void issue();
  std::uint64_t total() const { return m_config.bytes / m_config.request_bytes; }
  // RunAheadInitiator.
  bool owns(const tlm::tlm_generic_payload& trans) const override;
  void issue_ready() override { issue(); }
  bool would_end_transfer(tlm::tlm_generic_payload* const* batch, std::size_t n) const override;
  bool write_could_end() const override;
  std::uint64_t address(std::uint64_t i, bool& write);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void finish(Slot& slot);
  void free(tlm::tlm_generic_payload*) override {}  // slots are pooled, never freed

  const TrafficConfig m_config;
  std::mt19937_64 m_rng;
  std::vector<std::unique_ptr<Slot>> m_slots;
  std::vector<Slot*> m_free;
  std::vector<std::uint8_t> m_scratch;
  sc_core::sc_event m_wakeup;  // a slot freed or a held request was taken
  tlm::tlm_generic_payload* m_waiting_end_req = nullptr;
  RunAheadTarget* m_run_ahead = nullptr;
  std::uint64_t m_next = 0;  // the next request to issue
  std::uint64_t m_done = 0;
  sc_core::sc_time m_last = sc_core::SC_ZERO_TIME;
  double m_latency_sum_ns = 0.0, m_latency_max_ns = 0.0;
  using Histogram = decltype(boost::histogram::make_histogram(boost::histogram::axis::regular<>(1, 0.0, 1.0)));
  Histogram m_latency;
};

}  // namespace eva
