#include "dma/dma.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "common/timeline.hpp"

namespace eva {

Dma::Dma(const sc_core::sc_module_name& name, const DmaConfig& config)
    : sc_module(name),
      initiator_socket("initiator_socket"),
      sram_socket("sram_socket"),
      m_config(config),
      m_scratch(static_cast<std::size_t>(config.burst_bytes)),
      m_disabled(static_cast<std::size_t>(config.burst_bytes), TLM_BYTE_DISABLED),
      m_responses(this, &Dma::on_response),
      m_timeout(config.response_timeout_ns, sc_core::SC_NS) {
  initiator_socket.register_nb_transport_bw(this, &Dma::nb_transport_bw);
  for (int i = 0; i < config.max_outstanding; ++i) {
    m_slots.push_back(std::make_unique<Slot>());
    m_slots.back()->set_mm(this);
    m_slots.back()->dma = this;
    m_slots.back()->staging.resize(static_cast<std::size_t>(config.burst_bytes));
    m_free.push_back(m_slots.back().get());
  }
  m_bursts = m_stats.add("bursts", "requests", "bursts issued");
  m_bytes_read = m_stats.add("bytes_read", "B", "bytes moved from memory");
  m_bytes_written = m_stats.add("bytes_written", "B", "bytes moved to memory");
  m_bus_errors = m_stats.add("bus_errors", "requests", "bursts answered with an error response or timed out");
  m_bus_timeouts = m_stats.add("bus_timeouts", "requests", "bursts without a response within response_timeout_ns");
  SC_HAS_PROCESS(Dma);
  SC_THREAD(issue_thread);
  SC_METHOD(watchdog);
  sensitive << m_watchdog;
  dont_initialize();
  SC_METHOD(exclusive_done);
  sensitive << m_timed_due;
  dont_initialize();
}

void Dma::set_exclusive_timer(BurstTimer* timer) {
  if (timer && m_timeout != sc_core::SC_ZERO_TIME)
    throw std::logic_error(std::string(name()) + ": exclusive timing needs every burst on the socket with a timeout");
  m_timer = timer;
  m_window.reset(static_cast<std::size_t>(m_config.max_outstanding));
  if (timer)
    for (int i = 0; i < m_config.max_outstanding; ++i) m_window.insert(0);
}

void Dma::set_run_ahead_target(RunAheadTarget* target) {
  if (target && m_timeout != sc_core::SC_ZERO_TIME)
    throw std::logic_error(std::string(name()) + ": running ahead needs every burst on the socket with a timeout");
  m_run_ahead = target;
  follow(target ? &target->run_ahead_clock() : nullptr);
}

bool Dma::can_run_ahead() const { return !m_timer && m_queued_stores == 0; }

std::uint64_t Dma::unsent(const Job& j) const {
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  return (j.rows - j.row) * ((j.row_bytes + burst - 1) / burst) - j.col / burst;
}

std::array<std::uint64_t, 2> Dma::count_ahead(std::uint64_t gen) const {
  std::array<std::uint64_t, 2> n{0, 0};
  for (const Job& j : m_jobs) {
    if (gen != 0) j.state->ahead_gen = gen;
    const bool write = j.cmd == tlm::TLM_WRITE_COMMAND;
    n[write] += unsent(j);
    if (write) break;
  }
  return n;
}

bool Dma::write_could_end() const {
  // A write ends once all its bursts are taken, and the DMA sends its jobs'
  // bursts in queue order: the held request and every burst not yet sent,
  // of the jobs up to the first queued write (reads, then that write), must
  // all be taken first. A held write's own transfer may end sooner: its
  // bursts still to be answered, less those in flight (at most
  // max_outstanding).
  const bool held = m_waiting_end_req != nullptr, held_write = held && m_waiting_end_req->is_write();
  if (!held_write && m_queued_writes == 0) return false;
  const std::uint64_t writes = m_run_ahead->takes_per_step(true);
  if (held_write && static_cast<const Slot*>(m_waiting_end_req)->owner->left <=
                        writes + static_cast<std::uint64_t>(m_config.max_outstanding))
    return true;
  if (m_queued_writes == 0) return false;
  if (!m_ahead_valid) {
    m_ahead_unsent = count_ahead(m_ahead_gen);
    m_ahead_valid = true;
  }
  if (m_self_check) {
    const std::array<std::uint64_t, 2> walked = count_ahead(0);
    if (walked != m_ahead_unsent)
      throw std::logic_error(
          fmt::format("{}: {} read and {} write bursts counted unsent up to the first queued write, {} and {} queued",
                      name(), m_ahead_unsent[0], m_ahead_unsent[1], walked[0], walked[1]));
  }
  return m_ahead_unsent[1] + held_write <= writes &&
         m_ahead_unsent[0] + (held && !held_write) <= m_run_ahead->takes_per_step(false);
}

bool Dma::owns(const tlm::tlm_generic_payload& trans) const {
  const auto* slot = dynamic_cast<const Slot*>(&trans);
  return slot && slot->dma == this;
}

void Dma::issue_ready() {
  for (;;) {
    drain_to_sram();
    if (blocked()) return;
    sc_core::sc_time sram_delay;
    Slot& slot = next_burst(sram_delay);  // no store through the SRAM (can_run_ahead): no SRAM read before it leaves
    send(slot);
  }
}

bool Dma::would_end_transfer(tlm::tlm_generic_payload* const* batch, std::size_t n) const {
  for (std::size_t i = 0; i < n; ++i) {
    const Transfer::State* owner = static_cast<const Slot*>(batch[i])->owner.get();
    std::uint64_t in_batch = 0;
    for (std::size_t j = 0; j < n; ++j) in_batch += static_cast<const Slot*>(batch[j])->owner.get() == owner;
    if (in_batch >= owner->left) return true;
  }
  return false;
}

Dma::~Dma() {
  for (auto& s : m_slots) s->clear_extension<TimingOnly>();
}

Dma::Transfer Dma::start_read(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                              std::uint8_t* dst) {
  return start(Job{
      {}, tlm::TLM_READ_COMMAND, addr, row_bytes, rows, stride, dst ? End::host : End::none, dst, 0, dst == nullptr});
}

Dma::Transfer Dma::start_write(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                               const std::uint8_t* src) {
  // The target only reads the buffer of a write; TLM's payload is not const-typed.
  return start(Job{{},
                   tlm::TLM_WRITE_COMMAND,
                   addr,
                   row_bytes,
                   rows,
                   stride,
                   src ? End::host : End::none,
                   const_cast<std::uint8_t*>(src),
                   0,
                   src == nullptr});
}

Dma::Transfer Dma::start_load(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                              std::uint64_t sram_addr, bool timing_only, std::uint64_t sram_pitch) {
  return start(Job{{},
                   tlm::TLM_READ_COMMAND,
                   addr,
                   row_bytes,
                   rows,
                   stride,
                   End::sram,
                   nullptr,
                   sram_addr,
                   timing_only,
                   sram_pitch == row_bytes ? 0 : sram_pitch});
}

Dma::Transfer Dma::start_store(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                               std::uint64_t sram_addr, bool timing_only) {
  return start(
      Job{{}, tlm::TLM_WRITE_COMMAND, addr, row_bytes, rows, stride, End::sram, nullptr, sram_addr, timing_only});
}

Dma::Transfer Dma::start(Job job) {
  Transfer t;
  if (job.row_bytes == 0 || job.rows == 0) return t;
  if (job.stride == job.row_bytes && job.sram_pitch == 0) {  // rows that touch form one contiguous block
    job.row_bytes *= job.rows;
    job.rows = 1;
  }
  if (job.end == End::sram && sram_socket.size() == 0)
    throw std::logic_error(std::string(name()) + ": an SRAM transfer needs sram_socket bound");
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  t.m_state = new_state();
  t.m_state->left = job.rows * ((job.row_bytes + burst - 1) / burst);
  t.m_state->start = sc_core::sc_time_stamp();
  t.m_state->bytes = job.rows * job.row_bytes;
  t.m_state->write = job.cmd == tlm::TLM_WRITE_COMMAND;
  job.state = t.m_state;
  if (job.cmd == tlm::TLM_READ_COMMAND && !m_hold.empty()) {
    const std::uint64_t first = job.addr, end = job.addr + (job.rows - 1) * job.stride + job.row_bytes;
    for (const auto& [lo, hi] : m_hold)
      if (first < hi && lo < end) {
        m_held.push_back(job);
        return t;
      }
  }
  dispatch(job);
  return t;
}

std::shared_ptr<Dma::Transfer::State> Dma::new_state() {
  // A pooled state is free again once only the pool holds it and it is over
  // with no notification of its event pending: one at its end has fired by
  // then, unless made for the next delta of this one. The ring is looked at
  // from the oldest on, a few at a time (a state held long, say an input
  // block that serves many tiles, is passed over).
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const std::uint64_t delta = sc_core::sc_delta_count();
  for (std::size_t tries = std::min<std::size_t>(4, m_states.size()); tries > 0; --tries) {
    std::shared_ptr<Transfer::State>& s = m_states[m_states_next];
    m_states_next = (m_states_next + 1) % m_states.size();
    if (s.use_count() == 1 && s->left == 0 && now >= s->last && !(now == s->last && s->delta_notified == delta)) {
      Transfer::State& st = *s;
      st.last = st.start = st.sram_tail = sc_core::SC_ZERO_TIME;
      st.bytes = 0;
      st.write = st.failed = false;
      st.delta_notified = Transfer::State::no_delta;
      return s;
    }
  }
  auto s = std::make_shared<Transfer::State>();
  if (m_states.size() < states_pooled) {  // the newest, just before the next to look at
    m_states.insert(m_states.begin() + static_cast<std::ptrdiff_t>(m_states_next), s);
    m_states_next = (m_states_next + 1) % m_states.size();
  }
  return s;
}

bool Dma::dispatch(Job& job, std::optional<std::size_t> at) {
  if (!m_sharing && can_time_now(job)) {
    time_now(job);
    return false;
  }
  auto pos = m_jobs.end();
  if (at)
    pos = m_jobs.begin() + static_cast<std::ptrdiff_t>(*at);
  else if (m_sharing && job.cmd == tlm::TLM_WRITE_COMMAND)
    pos = std::find_if(m_jobs.begin(), m_jobs.end(), [](const Job& j) { return j.cmd == tlm::TLM_READ_COMMAND; });
  if (pos != m_jobs.end()) forget_ahead();  // at the end, it comes after the first write, if any
  m_jobs.insert(pos, job);
  if (job.cmd == tlm::TLM_WRITE_COMMAND) {
    ++m_queued_writes;
    m_queued_stores += job.end == End::sram;
  }
  m_wakeup.notify(sc_core::SC_ZERO_TIME);
  return true;
}

void Dma::release_held_reads() {
  m_hold.clear();
  m_sharing = false;
  std::deque<Job> held;
  held.swap(m_held);
  // They were started before the reads queued since (the next op's loads):
  // they go first, in their order.
  std::size_t front = 0;
  for (Job& job : held) {
    job.state->start = sc_core::sc_time_stamp();
    if (dispatch(job, front)) ++front;
  }
}

bool Dma::can_time_now(const Job& job) const {
  // Only while nothing waits for the socket or holds a slot there: a job
  // behind one must follow it (the queue is first come, first served).
  if (!m_timer || !m_jobs.empty() || m_socket_slots > 0) return false;
  if (!(job.end == End::none || (job.end == End::sram && job.timing_only))) return false;
  std::uint64_t span = 0, end = 0;
  if (__builtin_mul_overflow(job.rows - 1, job.stride, &span) || __builtin_add_overflow(span, job.row_bytes, &span) ||
      __builtin_add_overflow(job.addr, span, &end))
    return false;
  return m_timer->burst_timer_covers(job.addr, span);
}

// The issue thread's loop without its events: a burst leaves when a slot is
// free and the thread has sent the one before (a store reads the SRAM first);
// its slot is free again at its response.
void Dma::time_now(Job& job) {
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const BurstTimer::Value now_v = now.value();  // the loop keeps kernel time values
  const bool load = job.end == End::sram && job.cmd == tlm::TLM_READ_COMMAND;
  const bool store = job.end == End::sram && job.cmd == tlm::TLM_WRITE_COMMAND;
  if (load) account_timing_load(job);
  const sc_core::sc_time tail = load ? job.state->sram_tail : sc_core::SC_ZERO_TIME;
  const std::size_t bytes_stat = job.cmd == tlm::TLM_READ_COMMAND ? m_bytes_read : m_bytes_written;
  BurstTimer::Value response = 0;
  if (store)  // each burst leaves once its data is read from the SRAM
    for (std::uint64_t row = 0; row < job.rows; ++row)
      for (std::uint64_t col = 0; col < job.row_bytes; col += burst) {
        const std::uint64_t len = std::min(burst, job.row_bytes - col);
        const BurstTimer::Value at =
            m_window.take(now_v) +
            sram_access(tlm::TLM_READ_COMMAND, job.sram + row * job.row_bytes + col, m_scratch.data(), len, true)
                .value();
        const BurstTimer::Value r = m_timer->time_burst(job.cmd, job.addr + row * job.stride + col, len, at);
        m_window.sent(at, r);
        response = std::max(response, r);
      }
  else
    response = m_timer->time_run(job.cmd, job.addr, job.rows, job.row_bytes, job.stride, burst, now_v, m_window);
  // Counted per transfer: sums of whole bytes and requests, as exact as per burst.
  const std::uint64_t bursts = job.rows * ((job.row_bytes + burst - 1) / burst);
  m_stats.inc(m_bursts, static_cast<double>(bursts));
  m_stats.inc(bytes_stat, static_cast<double>(job.rows * job.row_bytes));
  m_timer->count_bursts(job.cmd, bursts, job.rows * job.row_bytes);
  job.state->sram_tail = tail;
  const sc_core::sc_time end = sc_core::sc_time::from_value(response);
  ++m_exclusive_transfers;
  if (tail != sc_core::SC_ZERO_TIME) {
    // A load ends at its last burst's response plus that burst's SRAM
    // write: the timed notification exclusive_done() would make at `end`,
    // made now, with the state it would set (and its timeline interval).
    Transfer::State& s = *job.state;
    s.left = 0;
    s.last = end + tail;
    s.finished.notify(s.last - now);
    if (Timeline* t = Timeline::of(*this)) t->interval("dma read", fmt::format("{} B", s.bytes), s.start, s.last);
    return;
  }
  m_timed.push(Timed{end, m_timed_seq++, job.state});
  m_timed_due.notify(end - now);  // an earlier notification replaces a later one
}

void Dma::exclusive_done() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!m_timed.empty() && m_timed.top().response <= now) {
    const std::shared_ptr<Transfer::State> state = m_timed.top().state;
    m_timed.pop();
    // As the last burst's response ends it on the socket (complete_burst).
    state->last = now + state->sram_tail;
    state->left = 1;
    complete_burst(state, state->last);
  }
  if (!m_timed.empty()) m_timed_due.notify(m_timed.top().response - now);
}

void Dma::wait_for(const Transfer& t) {
  while (!t.done()) sc_core::wait(t.m_state->finished);
}

sc_core::sc_time Dma::sram_access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, std::uint64_t len,
                                  bool timing_only) {
  // One payload for every SRAM access (a payload's construction allocates).
  tlm::tlm_generic_payload& p = m_sram_trans;
  p.set_command(cmd);
  p.set_address(addr);
  p.set_data_ptr(data);
  p.set_data_length(static_cast<unsigned int>(len));
  p.set_streaming_width(static_cast<unsigned int>(len));
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (timing_only) p.set_extension(&m_sram_timing_only);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  sram_socket->b_transport(p, delay);
  if (timing_only) p.clear_extension(&m_sram_timing_only);
  if (p.is_response_error())
    throw std::runtime_error(fmt::format("{}: SRAM {} of {} B at 0x{:x} failed: {}", name(),
                                         cmd == tlm::TLM_READ_COMMAND ? "read" : "write", len, addr,
                                         p.get_response_string()));
  return delay;
}

// A timing-only load moves no data into the SRAM, so its SRAM writes are
// counted once, when the job starts, rather than burst by burst: all bytes
// but the last burst's in one access (their writes overlap the arrivals),
// the last burst's apart, as its write time ends the transfer.
void Dma::account_timing_load(Job& job) {
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  const std::uint64_t total = job.rows * job.row_bytes;
  const std::uint64_t last = job.row_bytes % burst ? job.row_bytes % burst : std::min(burst, job.row_bytes);
  const std::uint64_t pitch = job.sram_pitch ? job.sram_pitch : job.row_bytes;
  if (total > last) sram_access(tlm::TLM_WRITE_COMMAND, job.sram, nullptr, total - last, true);
  job.state->sram_tail = sram_access(tlm::TLM_WRITE_COMMAND, job.sram + (job.rows - 1) * pitch + job.row_bytes - last,
                                     nullptr, last, true);
}

void Dma::drain_to_sram() {
  // Loaded bursts go into the SRAM first: that frees their slots.
  while (!m_to_sram.empty()) {
    Slot& slot = *m_to_sram.front();
    m_to_sram.pop_front();
    const sc_core::sc_time d = sram_access(tlm::TLM_WRITE_COMMAND, slot.sram_addr, slot.staging.data(),
                                           slot.get_data_length(), slot.get_extension<TimingOnly>() != nullptr);
    retire(slot, now() + d);
  }
}

void Dma::issue_thread() {
  for (;;) {
    drain_to_sram();
    if (blocked()) {
      if (m_run_ahead && can_run_ahead()) m_run_ahead->run_ahead(*this);
      wait(m_wakeup);
      continue;
    }
    if (m_timer) {  // the slot timed bursts free first, once the thread is past what they sent
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      const sc_core::sc_time at = sc_core::sc_time::from_value(std::max(m_window.last_send, m_window.front()));
      if (at > now) {
        wait(at - now, m_wakeup);
        continue;
      }
      m_window.pop_front();
      ++m_socket_slots;
    }
    sc_core::sc_time sram_delay;
    Slot& slot = next_burst(sram_delay);
    if (sram_delay != sc_core::SC_ZERO_TIME) wait(sram_delay);
    send(slot);
  }
}

Dma::Slot& Dma::next_burst(sc_core::sc_time& sram_delay) {
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  Job& job = m_jobs.front();
  if (job.row == 0 && job.col == 0 && job.end == End::sram && job.timing_only && job.cmd == tlm::TLM_READ_COMMAND)
    account_timing_load(job);
  Slot& slot = *m_free.back();
  m_free.pop_back();
  const std::uint64_t len = std::min(burst, job.row_bytes - job.col);
  const std::uint64_t offset = job.row * job.row_bytes + job.col;
  const std::uint64_t sram_offset = job.sram_pitch ? job.row * job.sram_pitch + job.col : offset;
  tlm::tlm_generic_payload& trans = slot;
  trans.set_command(job.cmd);
  trans.set_address(job.addr + job.row * job.stride + job.col);
  trans.set_data_length(static_cast<unsigned int>(len));
  trans.set_streaming_width(static_cast<unsigned int>(len));
  trans.set_byte_enable_ptr(nullptr);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  slot.to_sram = job.end == End::sram && job.cmd == tlm::TLM_READ_COMMAND;
  slot.sram_addr = job.sram + sram_offset;
  sram_delay = sc_core::SC_ZERO_TIME;
  if (job.end == End::host) {
    trans.set_data_ptr(job.host + offset);
  } else if (job.end == End::sram) {
    trans.set_data_ptr(slot.staging.data());
    if (job.cmd == tlm::TLM_WRITE_COMMAND)  // a store reads the SRAM first
      sram_delay = sram_access(tlm::TLM_READ_COMMAND, slot.sram_addr, slot.staging.data(), len, job.timing_only);
  } else {
    trans.set_data_ptr(m_scratch.data());
    if (job.cmd == tlm::TLM_WRITE_COMMAND) {
      trans.set_byte_enable_ptr(m_disabled.data());
      trans.set_byte_enable_length(static_cast<unsigned int>(len));
    }
  }
  if (job.timing_only) {
    if (!trans.get_extension<TimingOnly>()) trans.set_extension(&slot.timing_only);
  } else {
    trans.clear_extension<TimingOnly>();
  }
  slot.owner = job.state;
  m_stats.inc(m_bursts);
  m_stats.inc(job.cmd == tlm::TLM_READ_COMMAND ? m_bytes_read : m_bytes_written, static_cast<double>(len));
  m_ahead_unsent[job.cmd == tlm::TLM_WRITE_COMMAND] -= m_ahead_valid && job.state->ahead_gen == m_ahead_gen;
  job.col += len;
  if (job.col == job.row_bytes) {
    job.col = 0;
    ++job.row;
  }
  if (job.row == job.rows) {   // all its bursts are on their way
    job.state->ahead_gen = 0;  // no longer queued
    if (job.cmd == tlm::TLM_WRITE_COMMAND) {
      --m_queued_writes;
      m_queued_stores -= job.end == End::sram;
      forget_ahead();  // the next write's jobs ahead are counted afresh
    }
    m_jobs.pop_front();
  }
  return slot;
}

void Dma::send(Slot& slot) {
  tlm::tlm_generic_payload& trans = slot;
  m_window.last_send = now().value();
  trans.acquire();
  slot.pending = true;
  if (m_timeout != sc_core::SC_ZERO_TIME) {
    slot.deadline = sc_core::sc_time_stamp() + m_timeout;
    if (!m_watchdog_armed) {
      m_watchdog_armed = true;
      m_watchdog.notify(m_timeout);
    }
  }
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  m_waiting_end_req = &trans;
  const tlm::tlm_sync_enum s = initiator_socket->nb_transport_fw(trans, phase, delay);
  if (s == tlm::TLM_ACCEPTED) return;  // back-pressure: the next burst waits for END_REQ
  m_waiting_end_req = nullptr;
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP)) {
    if (s == tlm::TLM_UPDATED) {
      tlm::tlm_phase end = tlm::END_RESP;
      sc_core::sc_time d = delay;  // the response ends when it is due
      initiator_socket->nb_transport_fw(trans, end, d);
    }
    if (delay != sc_core::SC_ZERO_TIME)
      m_responses.notify(trans, phase, delay);  // due later: the issue thread goes on
    else
      finish(trans);
    return;
  }
  // TLM_UPDATED with END_REQ: taken (at `delay`: the next burst waits till
  // then); the response comes on the backward path.
  if (delay != sc_core::SC_ZERO_TIME) {
    m_waiting_end_req = &trans;
    m_responses.notify(trans, phase, delay);
  }
}

void Dma::on_response(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase) {
  if (phase == tlm::END_REQ) {
    if (&trans == m_waiting_end_req) {
      m_waiting_end_req = nullptr;
      m_wakeup.notify(sc_core::SC_ZERO_TIME);
    }
    return;
  }
  finish(trans);  // BEGIN_RESP (or TLM_COMPLETED) now due
}

tlm::tlm_sync_enum Dma::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP) {
    if (delay != sc_core::SC_ZERO_TIME) {
      // Due later: END_REQ then frees the request channel, BEGIN_RESP then
      // completes the burst (a BEGIN_RESP implies END_REQ).
      if (&trans == m_waiting_end_req && phase == tlm::BEGIN_RESP) {
        m_waiting_end_req = nullptr;
        m_wakeup.notify(delay);
      }
      m_responses.notify(trans, phase, delay);
      return phase == tlm::END_REQ ? tlm::TLM_ACCEPTED : tlm::TLM_COMPLETED;
    }
    if (&trans == m_waiting_end_req) {
      m_waiting_end_req = nullptr;
      wake(m_wakeup);
    }
    if (phase == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    finish(trans);
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase on the backward path");
  return tlm::TLM_COMPLETED;
}

std::string Dma::BusError::message() const {
  tlm::tlm_generic_payload p;  // its response string names the status
  p.set_response_status(status);
  if (timeout)
    return fmt::format("{} of {} B at 0x{:x} failed: no response in time", write ? "write" : "read", bytes, addr);
  return fmt::format("{} of {} B at 0x{:x} failed: {}", write ? "write" : "read", bytes, addr, p.get_response_string());
}

void Dma::watchdog() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  m_watchdog_armed = false;
  const sc_core::sc_time never = sc_core::sc_max_time();
  sc_core::sc_time next = never;
  for (auto& slot : m_slots) {
    if (!slot->pending) continue;
    if (slot->deadline <= now)
      time_out(*slot);
    else
      next = std::min(next, slot->deadline);
  }
  if (next != never) {
    m_watchdog_armed = true;
    m_watchdog.notify(next - now);
  }
}

void Dma::burst_failed(Slot& slot, tlm::tlm_response_status status, bool timeout) {
  m_stats.inc(m_bus_errors);
  slot.owner->failed = true;
  if (!m_bus_error)
    m_bus_error = BusError{status, slot.get_address(), slot.get_data_length(), slot.is_write(), timeout};
}

void Dma::time_out(Slot& slot) {
  slot.pending = false;
  slot.timed_out = true;  // still the target's until it answers
  m_stats.inc(m_bus_timeouts);
  burst_failed(slot, tlm::TLM_GENERIC_ERROR_RESPONSE, true);
  complete_burst(std::move(slot.owner), sc_core::sc_time_stamp());
}

void Dma::finish(tlm::tlm_generic_payload& trans) {
  Slot& slot = static_cast<Slot&>(trans);  // every payload we send is a Slot
  slot.pending = false;
  if (slot.timed_out) {  // its transfer gave it up: only the payload comes back
    slot.timed_out = false;
    trans.release();
    give_back(slot);
    return;
  }
  if (trans.is_response_error()) burst_failed(slot, trans.get_response_status(), false);
  trans.release();
  if (slot.to_sram && slot.get_extension<TimingOnly>()) {  // written into the SRAM when its job started
    const sc_core::sc_time tail = slot.owner->sram_tail;
    retire(slot, now() + tail);
    return;
  }
  if (slot.to_sram) {  // the issue thread writes it into the SRAM
    m_to_sram.push_back(&slot);
    wake(m_wakeup);
    return;
  }
  retire(slot, now());
}

void Dma::retire(Slot& slot, const sc_core::sc_time& done) {
  complete_burst(std::move(slot.owner), done);
  give_back(slot);
}

void Dma::give_back(Slot& slot) {
  m_free.push_back(&slot);
  if (m_timer) {
    m_window.insert(sc_core::sc_time_stamp().value());
    --m_socket_slots;
  }
  wake(m_wakeup);
}

void Dma::complete_burst(std::shared_ptr<Transfer::State> state, const sc_core::sc_time& done) {
  state->last = std::max(state->last, done);
  if (--state->left == 0) {
    // The loop stops before any time step that would end a transfer, so
    // that its end, and whatever waits for it, are the kernel's.
    if (running_ahead()) throw std::logic_error(std::string(name()) + ": a transfer ended while running ahead");
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (state->last == now) state->delta_notified = sc_core::sc_delta_count();  // pending till the next delta
    state->finished.notify(state->last - now);
    if (Timeline* t = Timeline::of(*this))
      t->interval(state->write ? "dma write" : "dma read", fmt::format("{} B", state->bytes), state->start,
                  state->last);
  }
}

}  // namespace eva
