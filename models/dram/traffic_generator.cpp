#include "dram/traffic_generator.hpp"

#include <algorithm>
#include <stdexcept>

namespace eva {

namespace {
constexpr double bin_ns = 0.25;
constexpr unsigned bins = 400000;  // up to 100 us; longer latencies land in the overflow bin
}  // namespace

TrafficGenerator::TrafficGenerator(const sc_core::sc_module_name& name, const TrafficConfig& config)
    : sc_module(name),
      initiator_socket("initiator_socket"),
      m_config(config),
      m_rng(config.seed),
      m_scratch(config.request_bytes),
      m_latency(boost::histogram::make_histogram(boost::histogram::axis::regular<>(bins, 0.0, bins * bin_ns))) {
  initiator_socket.register_nb_transport_bw(this, &TrafficGenerator::nb_transport_bw);
  for (std::uint64_t i = 0; i < config.outstanding; ++i) {
    m_slots.push_back(std::make_unique<Slot>());
    m_slots.back()->set_extension(&m_slots.back()->timing_only);
    m_slots.back()->set_mm(this);  // nb_transport payloads have a memory manager (IEEE 1666-2011 14.5)
    m_free.push_back(m_slots.back().get());
  }
  SC_HAS_PROCESS(TrafficGenerator);
  SC_METHOD(run);
  sensitive << m_wakeup;
}

TrafficGenerator::~TrafficGenerator() {
  for (auto& s : m_slots) s->clear_extension<TimingOnly>();
}

std::uint64_t TrafficGenerator::address(std::uint64_t i, bool& write) {
  const std::uint64_t rb = m_config.request_bytes;
  const std::uint64_t slots = std::max<std::uint64_t>(1, m_config.span / rb);
  write = false;
  switch (m_config.pattern) {
    case TrafficPattern::seq:
      return i * rb;
    case TrafficPattern::random:
      return (m_rng() % slots) * rb;
    case TrafficPattern::strided:
      return (i * m_config.stride) % (slots * rb);
    case TrafficPattern::mix: {
      // Two reads then one write, each stream sequential; writes go to the
      // upper half of the span.
      write = i % 3 == 2;
      const std::uint64_t n = write ? i / 3 : (i / 3) * 2 + i % 3;
      return (write ? (slots / 2) * rb : 0) + (n % (slots / 2)) * rb;
    }
  }
  return 0;
}

void TrafficGenerator::set_run_ahead_target(RunAheadTarget* target) {
  // Writes may be posted: their answers come before their bursts drain, which
  // a run ahead does not follow (DramController::run_ahead).
  m_run_ahead = m_config.pattern == TrafficPattern::mix ? nullptr : target;
  follow(m_run_ahead ? &m_run_ahead->run_ahead_clock() : nullptr);
}

void TrafficGenerator::run() {
  // A method, not a thread: issuing costs no context switch. It runs at start,
  // and again whenever a slot frees or a held request is taken.
  issue();
  if (m_run_ahead) m_run_ahead->run_ahead(*this);
}

bool TrafficGenerator::owns(const tlm::tlm_generic_payload& trans) const {
  return std::any_of(m_slots.begin(), m_slots.end(), [&trans](const std::unique_ptr<Slot>& s) {
    return static_cast<const tlm::tlm_generic_payload*>(s.get()) == &trans;
  });
}

bool TrafficGenerator::would_end_transfer(tlm::tlm_generic_payload* const*, std::size_t n) const {
  return m_done + n >= total();
}

bool TrafficGenerator::write_could_end() const {
  // The run ends (a transfer of its own) once every request is taken: those
  // not yet sent and the one held.
  const std::uint64_t untaken = total() - m_next + (m_waiting_end_req ? 1 : 0);
  return untaken <= m_run_ahead->takes_per_step(false) + m_run_ahead->takes_per_step(true);
}

void TrafficGenerator::issue() {
  while (m_next < total() && !m_waiting_end_req && !m_free.empty()) {
    Slot& slot = *m_free.back();
    m_free.pop_back();
    bool write = false;
    slot.set_address(address(m_next++, write));
    slot.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    slot.set_data_ptr(m_scratch.data());
    slot.set_data_length(static_cast<unsigned int>(m_config.request_bytes));
    slot.set_streaming_width(static_cast<unsigned int>(m_config.request_bytes));
    slot.set_byte_enable_ptr(nullptr);
    slot.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    slot.sent = now();
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    m_waiting_end_req = &slot;
    slot.acquire();
    const tlm::tlm_sync_enum s = initiator_socket->nb_transport_fw(slot, phase, delay);
    if (s == tlm::TLM_ACCEPTED) break;  // held: END_REQ will come
    m_waiting_end_req = nullptr;
    if (s == tlm::TLM_COMPLETED) finish(slot);
  }
}

tlm::tlm_sync_enum TrafficGenerator::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                                     sc_core::sc_time&) {
  if (&trans == m_waiting_end_req && (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP)) {
    m_waiting_end_req = nullptr;
    wake(m_wakeup);
  }
  if (phase == tlm::BEGIN_RESP) finish(static_cast<Slot&>(trans));
  return phase == tlm::END_REQ ? tlm::TLM_ACCEPTED : tlm::TLM_COMPLETED;
}

void TrafficGenerator::finish(Slot& slot) {
  if (slot.is_response_error()) throw std::runtime_error(std::string(name()) + ": " + slot.get_response_string());
  const double ns = (now() - slot.sent).to_seconds() * 1e9;
  m_latency(ns);
  m_latency_sum_ns += ns;
  m_latency_max_ns = std::max(m_latency_max_ns, ns);
  ++m_done;
  m_last = now();
  slot.release();
  m_free.push_back(&slot);
  wake(m_wakeup);
}

double TrafficGenerator::latency_ns_quantile(double q) const {
  const double target = q * static_cast<double>(m_done);
  double seen = 0.0;
  for (auto&& x : boost::histogram::indexed(m_latency, boost::histogram::coverage::all)) {
    seen += *x;
    if (seen >= target && *x > 0) {
      if (x.index() < 0) return 0.0;
      if (x.index() >= static_cast<int>(bins)) return m_latency_max_ns;
      return x.bin().upper();
    }
  }
  return m_latency_max_ns;
}

}  // namespace eva
