#include "dram/dram_controller.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace eva {

DramController::DramController(const sc_core::sc_module_name& name, const DramConfig& config, bool share_channels)
    : DramTarget(name, config.capacity_bytes()),
      m_config(config),
      m_energy(command_energy(config)),
      m_ps_to_value(1e-12 / sc_core::sc_get_time_resolution().to_seconds()),
      m_mapper(config),
      m_burst_bytes(config.burst_bytes()),
      m_burst_shift(m_burst_bytes > 0 && (m_burst_bytes & (m_burst_bytes - 1)) == 0 ? __builtin_ctzll(m_burst_bytes)
                                                                                    : -1),
      m_channels(static_cast<std::size_t>(config.channels), DramChannel(config)),
      m_next(static_cast<std::size_t>(config.channels), DramChannel::never),
      m_per_channel(static_cast<std::size_t>(config.channels)),
      m_share(share_channels && m_mapper.channel_lowest() && config.channels > 1),
      m_channel_bits(m_mapper.channel_bits()),
      m_rep_of(m_channels.size()),
      m_class_end(m_channels.size()),
      m_offset(m_channels.size()) {
  // Every channel starts in the same state: one class, or one class each.
  for (std::uint32_t c = 0; c < m_channels.size(); ++c) {
    m_rep_of[c] = m_share ? 0 : c;
    m_class_end[c] = m_share ? static_cast<std::uint32_t>(m_channels.size()) : c + 1;
  }
  list_classes();
  // Exact both ways when tCK is whole picoseconds and the kernel's unit
  // divides a picosecond: every product below is an integer under 2^53.
  const double per_tck = m_config.tck_ps * m_ps_to_value;
  if (m_config.tck_ps >= 1 && m_config.tck_ps == std::floor(m_config.tck_ps) && m_ps_to_value >= 1 &&
      m_ps_to_value == std::floor(m_ps_to_value) && per_tck < 9.0e15) {
    m_tck_value = static_cast<std::int64_t>(per_tck);
    m_tck_exact_below = static_cast<DramChannel::Time>(9.0e15 / per_tck);  // below 2^53
    // The tCK count of a kernel time, ceil(ps / tCK - 1e-6) in doubles, is
    // the integer ceiling of value / tCK units while the quotient stays
    // below 1e9: a remainder of one unit is at least 1e-5 tCK (tCK at most
    // 1e5 units), far above the 1e-6 and the doubles' relative error
    // (a few 1e-16, times 1e9). Checked here on a sample all the same.
    if (m_tck_value <= 100000) {
      m_tck_int_below = static_cast<sc_core::sc_time::value_type>(m_tck_value) * 1000000000ULL;
      const std::uint64_t u = static_cast<std::uint64_t>(m_tck_value);
      for (const std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, u - 1, u, u + 1, 7 * u, 7 * u + 1,
                                    123456789 * u, 123456789 * u - 1, 999999999 * u - 1, 999999998 * u + 1})
        if (v < m_tck_int_below &&
            tck_of(sc_core::sc_time::from_value(v)) != tck_of_seconds(sc_core::sc_time::from_value(v)))
          m_tck_int_below = 0;
    }
  }
  m_stat_act = m_stats.add("act", "commands", "row activations");
  m_stat_pre = m_stats.add("pre", "commands", "precharges (including auto-precharge)");
  m_stat_rd = m_stats.add("rd", "commands", "read bursts");
  m_stat_wr = m_stats.add("wr", "commands", "write bursts");
  m_stat_ref = m_stats.add("ref", "commands", "all-bank refreshes");
  m_stat_busy = m_stats.add("data_bus_busy_ns", "ns", "time the data buses carried data, summed over channels");
  m_stat_down = m_stats.add("power_down_ns", "ns", "time the channels spent powered down, summed");
  m_stat_exits = m_stats.add("power_down_exits", "exits", "power-down exits, summed over channels");
  SC_HAS_PROCESS(DramController);
  SC_METHOD(schedule);
  sensitive << m_wake;
  dont_initialize();
}

DramChannel::Time DramController::tck_of(const sc_core::sc_time& t) const {
  const sc_core::sc_time::value_type v = t.value();
  if (v < m_tck_int_below)  // the same in integers (see the constructor)
    return static_cast<DramChannel::Time>(v / m_tck_value + (v % m_tck_value != 0 ? 1 : 0));
  return tck_of_seconds(t);
}

DramChannel::Time DramController::tck_of_seconds(const sc_core::sc_time& t) const {
  const double ps = t.to_seconds() * 1e12;
  return static_cast<DramChannel::Time>(std::ceil(ps / m_config.tck_ps - 1e-6));
}

DramChannel::Time DramController::now_tck() const { return tck_of(current_time()); }

bool DramController::accept(tlm::tlm_generic_payload& trans) {
  const std::uint64_t first = burst_of(trans.get_address());
  const std::uint64_t last = burst_of(trans.get_address() + trans.get_data_length() - 1);
  const bool write = trans.is_write();
  // With classes, a request goes by them, unless it is one burst for a
  // channel in a class of its own (nothing to split, nothing to merge).
  if (m_share) {
    const auto c = static_cast<std::uint32_t>(first & (m_channels.size() - 1));
    if (first != last || m_rep_of[c] != c || m_class_end[c] != c + 1) return accept_shared(trans, first, last, write);
  }
  // All of a request's bursts must fit; one larger than a whole queue is taken
  // when that queue is empty, so that no request size can hang the controller.
  DramAddress one;
  const DramAddress* bursts = &one;
  std::size_t count = 1;
  if (first == last) {  // one burst: one channel to look at
    m_mapper.decode(first * m_burst_bytes, one);
    const DramChannel& ch = m_channels[one.channel];
    if (ch.room(write) == 0 && ch.queued() > 0) return false;
  } else {
    // A request refused for lack of room comes back unchanged: its bursts
    // are decoded once.
    if (m_decoded_for != &trans || m_decoded_first != first || m_decoded.size() != last - first + 1) {
      std::fill(m_per_channel.begin(), m_per_channel.end(), 0);
      m_decoded.clear();
      for (std::uint64_t b = first; b <= last; ++b) {
        m_mapper.decode(b * m_burst_bytes, m_decoded.emplace_back());
        ++m_per_channel[m_decoded.back().channel];
      }
      m_decoded_for = &trans;
      m_decoded_first = first;
    }
    for (std::size_t c = 0; c < m_channels.size(); ++c)
      if (m_per_channel[c] > m_channels[c].room(write) && m_channels[c].queued() > 0) return false;
    m_decoded_for = nullptr;  // taken: the next request is decoded afresh
    bursts = m_decoded.data();
    count = m_decoded.size();
  }
  const std::uint32_t tag = new_tag(trans, static_cast<std::uint32_t>(last - first + 1));
  const DramChannel::Time now = now_tck();
  DramChannel::Time wake = DramChannel::never;
  for (std::size_t i = 0; i < count; ++i) {
    const DramAddress& a = bursts[i];
    queue_burst(a.channel, tag, write, a, now);
    wake = std::min(wake, m_next[a.channel]);
  }
  accepted(trans, tag, write, wake);
  return true;
}

bool DramController::accept_shared(tlm::tlm_generic_payload& trans, std::uint64_t first, std::uint64_t last,
                                   bool write) {
  const std::uint64_t n = m_channels.size();  // a power of two
  const std::uint64_t q = first >> m_channel_bits, q_last = last >> m_channel_bits;
  const auto r = static_cast<std::uint32_t>(first & (n - 1)), r_last = static_cast<std::uint32_t>(last & (n - 1));
  // Channel c gets bursts k n + c, k from q (q + 1 below r) to q_last
  // (q_last - 1 above r_last): the same rows and columns in each of at most
  // three runs of channels, which start at 0, r and r_last + 1.
  const auto bursts_of = [&](std::uint32_t c) { return q_last - q + 1 - (c < r ? 1 : 0) - (c > r_last ? 1 : 0); };
  if (r != 0 && m_rep_of[r] != r) split_at(r);
  if (r_last + 1 < n && m_rep_of[r_last + 1] != r_last + 1) split_at(r_last + 1);
  // All of a request's bursts must fit, as in accept.
  for (const std::uint32_t c : m_reps) {
    const DramChannel& ch = m_channels[c];
    if (bursts_of(c) > ch.room(write) && ch.queued() > 0) return false;
  }
  const DramChannel::Time now = now_tck();
  // Neighbouring classes in one run merge if both are idle and their
  // states cannot be told apart; waking them now is what their first
  // burst below would do.
  for (std::size_t i = 0; i + 1 < m_reps.size();) {
    const std::uint32_t a = m_reps[i], b = m_reps[i + 1];
    DramChannel &ch_a = m_channels[a], &ch_b = m_channels[b];
    if (b != r && b != r_last + 1 && bursts_of(a) > 0 && ch_a.queued() == 0 && ch_b.queued() == 0) {
      ch_a.wake(now);
      ch_b.wake(now);
      if (ch_a.same_future(ch_b, now)) {
        merge_next(a);
        continue;  // and perhaps with the class after
      }
    }
    ++i;
  }
  const std::uint32_t tag = new_tag(trans, static_cast<std::uint32_t>(last - first + 1));
  DramChannel::Time wake = DramChannel::never;
  DramAddress a;
  for (const std::uint32_t c : m_reps) {
    const std::uint64_t count = bursts_of(c);
    std::uint64_t burst = ((q + (c < r ? 1 : 0)) << m_channel_bits) + c;
    for (std::uint64_t i = 0; i < count; ++i, burst += n) {
      m_mapper.decode(burst * m_burst_bytes, a);
      queue_burst(c, tag, write, a, now);
    }
    wake = std::min(wake, m_next[c]);
  }
  accepted(trans, tag, write, wake);
  return true;
}

std::uint32_t DramController::new_tag(tlm::tlm_generic_payload& trans, std::uint32_t bursts) {
  std::uint32_t tag;
  if (m_free_tags.empty()) {
    tag = static_cast<std::uint32_t>(m_in_flight.size());
    m_in_flight.emplace_back();
  } else {
    tag = m_free_tags.back();
    m_free_tags.pop_back();
  }
  m_in_flight[tag] = InFlight{&trans, bursts, 0};
  return tag;
}

void DramController::accepted(tlm::tlm_generic_payload& trans, std::uint32_t tag, bool write, DramChannel::Time wake) {
  // An earlier notification replaces a later one; a later one is dropped.
  wake_at(at_tck(wake));
  if (write && m_config.posted_writes) {  // answered now; its bursts drain later
    complete(trans, current_time());
    m_in_flight[tag].trans = nullptr;
    ++m_posted;
  }
}

void DramController::split_at(std::uint32_t c) {
  const std::uint32_t a = m_rep_of[c], end = m_class_end[a];
  m_channels[c] = m_channels[a];  // the state the class shares, with c's own totals
  DramChannel::Totals t = m_channels[a].totals();
  t += m_offset[c];
  m_channels[c].set_totals(t);
  const DramChannel::Totals moved = m_offset[c];
  for (std::uint32_t m = c; m < end; ++m) {
    m_rep_of[m] = c;
    m_offset[m] -= moved;
  }
  m_class_end[c] = end;
  m_class_end[a] = c;
  m_next[c] = m_next[a];
  ++m_splits;
  list_classes();
}

void DramController::merge_next(std::uint32_t a) {
  const std::uint32_t b = m_class_end[a], end = m_class_end[b];
  DramChannel::Totals d = m_channels[b].totals();
  d -= m_channels[a].totals();
  for (std::uint32_t m = b; m < end; ++m) {
    m_rep_of[m] = a;
    m_offset[m] += d;
  }
  m_class_end[a] = end;
  ++m_merges;
  list_classes();
}

void DramController::list_classes() {
  m_reps.clear();
  for (std::uint32_t c = 0; c < m_channels.size(); c = m_class_end[c]) m_reps.push_back(c);
}

DramChannel::Totals DramController::totals_of(std::uint32_t c) const {
  DramChannel::Totals t = m_channels[m_rep_of[c]].totals();
  t += m_offset[c];
  return t;
}

void DramController::wake_at(const sc_core::sc_time& at) {
  if (!m_wake_next_pending || at < m_wake_next_at) {  // the kernel keeps the earlier of two
    m_wake_next_pending = true;
    m_wake_next_at = at;
  }
  if (m_clock.active) return;  // the run-ahead loop's notification
  // Only a notification still in the future is surely pending (one due now
  // may have fired already); notifying again is always allowed.
  if (m_wake_pending && m_wake_at <= at && m_wake_at > sc_core::sc_time_stamp()) return;
  m_wake_pending = true;
  m_wake_at = at;
  m_wake.notify(at - sc_core::sc_time_stamp());
}

std::uint64_t DramController::takes_per_step(bool write) const {
  std::uint64_t n = m_channels.size();
  for (std::size_t c = 0; c < m_channels.size(); ++c) n += m_channels[m_rep_of[c]].room(write);
  return n;
}

void DramController::run_ahead(RunAheadInitiator& initiator) {
  // Posted writes are answered as they are taken, inside a time step, and
  // that answer may end a transfer: the loop stops before any time step in
  // which a write's last request could be taken.
  const auto write_could_end = [&] { return m_config.posted_writes && initiator.write_could_end(); };
  if (!run_ahead_allowed(initiator) || write_could_end()) return;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  // A posted write taken just now is answered in this time step's next delta.
  sc_core::sc_time due_at;
  if (due_pending(due_at) && due_at <= start && due_ends_transfer(start, initiator)) return;
  // The scheduler's and the responses' notifications become the loop's.
  m_wake.cancel();
  m_wake_pending = false;
  withdraw_due(due_at);
  // The earliest time at which another process has something to do.
  const sc_core::sc_time ahead = sc_core::sc_time_to_pending_activity();
  if (ahead != sc_core::SC_ZERO_TIME) {
    m_ahead_limit = start + ahead;
    const sc_core::sc_time& limit = m_ahead_limit;
    m_clock.now = start;
    m_clock.active = true;
    for (;;) {
      // One delta: the methods notified for it (the scheduler, the
      // responses), then the issue loop if it was woken in the delta before.
      const bool respond = due_pending(due_at);
      const bool run_schedule = m_wake_next_pending && m_wake_next_at <= m_clock.now;
      const bool run_responses = respond && due_at <= m_clock.now;
      const bool run_issue = initiator.take_wakeup();
      if (!run_schedule && !run_responses && !run_issue) {
        // The next time step: the earliest notification, unless another
        // process acts by then or its responses end a transfer.
        if (!m_wake_next_pending && !respond) break;
        const sc_core::sc_time next = !respond               ? m_wake_next_at
                                      : !m_wake_next_pending ? due_at
                                                             : std::min(m_wake_next_at, due_at);
        if (next >= limit) break;
        if (respond && due_at == next && due_ends_transfer(next, initiator)) break;
        if (write_could_end()) break;
        m_clock.now = next;
        ++m_ahead_steps;
        continue;
      }
      if (run_schedule) schedule();
      if (run_responses) respond_due();
      if (run_issue) initiator.issue_ready();
    }
    m_clock.active = false;
  }
  // Given back to the kernel, as the socket path would have left them.
  if (m_wake_next_pending) {
    m_wake_pending = true;
    m_wake_at = m_wake_next_at;
    m_wake.notify(m_wake_at - start);
  }
  restore_due();
}

void DramController::schedule() {
  m_wake_pending = false;  // the notification has fired
  m_wake_next_pending = false;
  const DramChannel::Time now = now_tck();
  DramChannel::Time next = DramChannel::never;
  bool freed = false;
  for (const std::uint32_t c : m_reps) {
    if (m_next[c] <= now) {
      const DramChannel::StepResult r = m_channels[c].step(now);
      m_next[c] = r.next;
      if (r.completed) {
        freed = true;
        InFlight& f = m_in_flight[r.completed->tag];
        f.last_done = std::max(f.last_done, r.completed->done);
        f.bursts_left -= m_class_end[c] - c;  // the same burst in every channel of the class
        if (f.bursts_left == 0) {
          if (f.trans) {
            complete(*f.trans, at_tck(f.last_done));
          } else if (--m_posted == 0) {  // posted, answered already
            posted_drained_at(std::max(at_tck(f.last_done), current_time()));
          }
          f.trans = nullptr;
          m_free_tags.push_back(static_cast<std::uint32_t>(r.completed->tag));
        }
      }
    }
    next = std::min(next, m_next[c]);
  }
  if (next != DramChannel::never) wake_at(at_tck(next));
  if (freed) retry_held();
}

void DramController::posted_drained_at(const sc_core::sc_time& at) {
  m_posted_drained.notify(at - sc_core::sc_time_stamp());
  // Whoever waits for the drain acts at `at`: the run-ahead loop stops
  // before it. (A burst's data ends after its command, so `at` is later than
  // the loop's time step.)
  if (m_clock.active) {
    if (at <= m_clock.now)
      throw std::logic_error(std::string(name()) + ": posted writes drained within a time step run ahead");
    m_ahead_limit = std::min(m_ahead_limit, at);
  }
}

DramCommandCounts DramController::counts() const {
  DramCommandCounts sum;
  for (std::uint32_t c = 0; c < m_channels.size(); ++c) sum += totals_of(c).counts;
  return sum;
}

DramChannel::Residency DramController::residency(const sc_core::sc_time& elapsed) const {
  const DramChannel::Time end = tck_of(elapsed);
  DramChannel::Residency sum;
  for (std::uint32_t c = 0; c < m_channels.size(); ++c) {
    sum += m_channels[m_rep_of[c]].residency(end);  // the class's open idle stretch, if any
    sum += m_offset[c].residency;
  }
  return sum;
}

void DramController::flush_model_stats(const sc_core::sc_time& now) {
  const DramCommandCounts c = counts();
  m_stats.set(m_stat_act, static_cast<double>(c.act));
  m_stats.set(m_stat_pre, static_cast<double>(c.pre));
  m_stats.set(m_stat_rd, static_cast<double>(c.rd));
  m_stats.set(m_stat_wr, static_cast<double>(c.wr));
  m_stats.set(m_stat_ref, static_cast<double>(c.ref));
  double busy = 0;
  for (std::uint32_t c = 0; c < m_channels.size(); ++c)
    busy += static_cast<double>(totals_of(c).data_busy) * m_config.tck_ps * 1e-3;
  m_stats.set(m_stat_busy, busy);
  const DramChannel::Residency r = residency(now);
  m_stats.set(m_stat_down, static_cast<double>(r.down_active + r.down_precharged) * m_config.tck_ps * 1e-3);
  m_stats.set(m_stat_exits, static_cast<double>(r.exits));
}

DramController::CommandEnergy DramController::command_energy(const DramConfig& c) {
  const DramPower& p = c.power;
  const DramTimings& t = c.timing;
  const double ns = c.tck_ps * 1e-3;  // mA x ns x V = pJ
  const double scale = p.vdd * p.devices_per_rank;
  CommandEnergy e;
  e.act_pre = ((p.idd0 - p.idd3n) * t.tRAS + (p.idd0 - p.idd2n) * t.tRP) * ns * scale;
  e.rd = (p.idd4r - p.idd3n) * t.tBURST * ns * scale;
  e.wr = (p.idd4w - p.idd3n) * t.tBURST * ns * scale;
  e.ref = (p.idd5 - p.idd3n) * t.tRFC * ns * scale;
  // A per-bank refresh refreshes one bank's share of what an all-bank one does.
  if (c.refresh == RefreshMode::per_bank) e.ref /= c.bank_groups * c.banks_per_group;
  const double bits = static_cast<double>(c.burst_bytes()) * 8.0;
  e.io_rd = p.io_read_pj_per_bit * bits;
  e.io_wr = p.io_write_pj_per_bit * bits;
  const double w = 1e-3 * scale * c.ranks;  // mA -> W for one channel's ranks
  e.active_w = p.idd3n * w;
  e.precharged_w = p.idd2n * w;
  e.down_active_w = p.idd3p * w;
  e.down_precharged_w = p.idd2p * w;
  return e;
}

DramTarget::Energy DramController::energy_parts(const sc_core::sc_time& elapsed) const {
  const CommandEnergy& e = m_energy;
  const DramCommandCounts c = counts();
  Energy out;
  out.core_j = (static_cast<double>(c.act) * e.act_pre + static_cast<double>(c.rd) * e.rd +
                static_cast<double>(c.wr) * e.wr + static_cast<double>(c.ref) * e.ref) *
               1e-12;
  out.io_j = (static_cast<double>(c.rd) * e.io_rd + static_cast<double>(c.wr) * e.io_wr) * 1e-12;
  // Busy time is active standby; idle and powered-down time by its state.
  const DramChannel::Residency r = residency(elapsed);
  const double tck_s = m_config.tck_ps * 1e-12;
  const double busy_s = std::max(
      0.0, elapsed.to_seconds() * static_cast<double>(m_channels.size()) - static_cast<double>(r.idle()) * tck_s);
  out.background_j = busy_s * e.active_w + static_cast<double>(r.idle_active) * tck_s * e.active_w +
                     static_cast<double>(r.idle_precharged) * tck_s * e.precharged_w +
                     static_cast<double>(r.down_active) * tck_s * e.down_active_w +
                     static_cast<double>(r.down_precharged) * tck_s * e.down_precharged_w;
  return out;
}

sc_core::sc_time DramController::access_latency() const { return at_tck(m_config.timing.tCL + m_config.timing.tBURST); }

}  // namespace eva
