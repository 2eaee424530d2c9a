#include "dram/dram_channel.hpp"

#include <algorithm>

namespace eva {

namespace {
bool is_column(DramCommand c) { return c == DramCommand::rd || c == DramCommand::wr; }
}  // namespace

DramChannel::DramChannel(const DramConfig& config, bool use_cache)
    : m_use_cache(use_cache),
      m_config(config),
      m_t(config.timing),
      m_ranks(static_cast<std::uint32_t>(config.ranks)),
      m_bank_groups(static_cast<std::uint32_t>(config.bank_groups)),
      m_banks_per_group(static_cast<std::uint32_t>(config.banks_per_group)),
      m_read_cap(static_cast<std::size_t>(config.read_queue)),
      m_write_cap(static_cast<std::size_t>(config.write_queue)),
      m_write_high(static_cast<std::size_t>(config.write_high)),
      m_write_low(static_cast<std::size_t>(config.write_low)),
      m_closed_page(config.page_policy == PagePolicy::closed),
      m_per_bank_refresh(config.refresh == RefreshMode::per_bank),
      m_refi(m_per_bank_refresh ? config.timing.tREFIpb : config.timing.tREFI),
      m_rfc(m_per_bank_refresh ? config.timing.tRFCpb : config.timing.tRFC),
      m_banks(static_cast<std::size_t>(m_ranks) * m_bank_groups * m_banks_per_group),
      m_rank(m_ranks),
      m_reads(m_banks.size()),
      m_writes(m_banks.size()),
      m_rank_due(m_ranks, 0),
      m_hit{std::vector<Hit>(m_banks.size()), std::vector<Hit>(m_banks.size())},
      m_own{std::vector<Own>(m_banks.size()), std::vector<Own>(m_banks.size())},
      m_groups(m_ranks * m_bank_groups),
      m_floor(2 * static_cast<std::size_t>(m_groups) + 1),
      m_rank_act_floor(m_groups) {
  for (auto& r : m_rank) {
    r.last_act_bg.assign(m_bank_groups, -(1 << 30));
    r.refresh_due = m_refi;
  }
  for (std::uint32_t r = 0; r < m_ranks; ++r) rank_acted(r);
}

const DramChannel::Request& DramChannel::BankQueues::push(std::uint32_t tag, bool write, const DramAddress& a,
                                                          std::uint32_t bank, std::uint64_t seq) {
  std::vector<Request>& q = m_per_bank[bank];
  if (q.empty()) {
    m_where[bank] = m_active.size();
    m_active.push_back(bank);
  }
  ++m_size;
  // Field by field into its place: a request built elsewhere and copied
  // whole would be read back in wider pieces than it was stored in, which
  // the processor cannot forward from its store buffer.
  Request& r = q.emplace_back();
  r.tag = tag;
  r.row = a.row;
  r.bank = bank;
  r.seq = seq;
  r.rank = static_cast<std::uint16_t>(a.rank);
  r.bank_group = static_cast<std::uint16_t>(a.bank_group);
  r.bank_in_group = static_cast<std::uint16_t>(a.bank);
  r.write = write;
  return r;
}

const DramChannel::Request& DramChannel::BankQueues::find(std::uint32_t b, std::uint64_t seq) const {
  const std::vector<Request>& q = m_per_bank[b];
  return *std::find_if(q.begin(), q.end(), [seq](const Request& r) { return r.seq == seq; });
}

DramChannel::Request DramChannel::BankQueues::take(std::uint32_t b, std::uint64_t seq) {
  std::vector<Request>& q = m_per_bank[b];
  const auto it = std::find_if(q.begin(), q.end(), [seq](const Request& r) { return r.seq == seq; });
  const Request r = *it;
  q.erase(it);
  --m_size;
  if (q.empty()) {  // the bank leaves the active list (swap with the last)
    const std::size_t at = m_where[b];
    m_active[at] = m_active.back();
    m_where[m_active[at]] = at;
    m_active.pop_back();
    m_where[b] = none;
  }
  return r;
}

void DramChannel::wake(Time now) {
  if (queued() != 0) return;
  const IdleStretch idle = idle_stretch(now, catch_up_refresh(now));
  add(m_residency, idle);
  if (idle.powered_down) m_next_cmd = std::max(m_next_cmd, idle.wake);
  m_idle_since = now;  // no longer idle: residency() counts nothing more
}

void DramChannel::enqueue(std::uint32_t tag, bool write, const DramAddress& a, Time now) {
  wake(now);
  const auto bank = static_cast<std::uint32_t>(bank_index(a.rank, a.bank_group, a.bank));
  BankQueues& queue = write ? m_writes : m_reads;
  const Request& r = queue.push(tag, write, a, bank, m_seq++);
  Hit& h = m_hit[write][bank];
  if (h.valid && !h.found && m_banks[bank].open_row == static_cast<std::int64_t>(r.row)) {
    h.found = true;
    h.seq = r.seq;
    // The bank's own term was a PRE for want of a hit, if it was known. The
    // newcomer changes nothing else: it is the youngest, and a bank whose
    // queue was empty has no own term kept (the last take dropped it).
    m_own[write][bank].valid = false;
  }
  // The cached choice stays right unless the newcomer beats it, or it hits
  // the row the cached PRE would close; the newcomer is the youngest, so it
  // wins only by being sooner, or a row hit against a row command.
  if (!m_use_cache || !m_cache) {
    m_cache.reset();
    return;
  }
  if (write != m_write_mode) {
    // The choice looks at the active queue only: it stands unless the
    // newcomer makes the next step change the mode.
    const bool flips = m_write_mode ? m_writes.empty() || (m_writes.size() <= m_write_low && !m_reads.empty())
                                    : m_writes.size() >= m_write_high || (m_reads.empty() && !m_writes.empty());
    if (flips) m_cache.reset();
    return;
  }
  const Bank& b = m_banks[bank];
  const bool hit = b.open_row == static_cast<std::int64_t>(r.row);
  if (hit && m_cache->cmd == DramCommand::pre && m_cache->rank == r.rank && m_cache->bg == r.bank_group &&
      m_cache->bank == r.bank_in_group) {
    m_cache.reset();
    return;
  }
  if (blocked_by_refresh(r, now)) return;
  DramCommand cmd;
  Time t;
  if (hit) {
    cmd = write ? DramCommand::wr : DramCommand::rd;
    t = col_ready(write, r.rank, r.bank_group, b);
  } else if (b.open_row >= 0) {
    // A miss on an open row. A bank's candidate is its oldest hit, or else a
    // PRE for its oldest request: with older requests of this kind at the
    // bank (the newcomer is queued already) neither changes, and without,
    // the newcomer's PRE is the bank's candidate. The choice stays exact,
    // but the channel is stepped at this arrival, as it was when this case
    // dropped the kept choice (a step's command may issue at the command
    // bus's next slot, ahead of later arrivals).
    m_step_at_arrival = true;
    if (queue.bank(bank).size() > 1) return;
    cmd = DramCommand::pre;
    t = std::max(b.next_pre, m_next_cmd);
  } else {
    cmd = DramCommand::act;
    t = act_ready(r.rank, r.bank_group, b);
  }
  t = std::max(t, m_cache_at);
  // A refresh keeps its ties (see choose()).
  const bool wins_tie = !m_cache->refresh && is_column(cmd) && !is_column(m_cache->cmd);
  if (t < m_cache->time || (t == m_cache->time && wins_tie)) {
    m_cache->set(t, cmd, r.seq, false, r.rank, r.bank_group, r.bank_in_group, bank);
  }
}

bool DramChannel::same_future(const DramChannel& o, Time now) const {
  // Idle, with nothing kept from a choice, and woken by the same arrival.
  if (queued() != 0 || o.queued() != 0 || m_cache || o.m_cache || m_step_at_arrival || o.m_step_at_arrival ||
      m_idle_since != now || o.m_idle_since != now)
    return false;
  // A bound enters the model only as `bound + reach` (reach at most the
  // largest timing added to it), in a maximum with a time at or after the
  // current step's: two that are equal, or both at or before `now - reach`,
  // are the same from now on. Refresh is the exception: its PRE and REF
  // times are the banks' next ACT and PRE and the rank's REF, each in a
  // maximum with the command bus's next slot only, and they are compared
  // with each other when there are several banks (all-bank refresh) or
  // ranks to choose among. There two bounds are the same if each is at or
  // before its channel's next slot (then every such time is that slot, in
  // each channel), or if they are equal and after both slots; the slots
  // themselves are the same as other bounds are.
  const auto same = [now](Time a, Time b, Time reach) { return a == b || (a + reach <= now && b + reach <= now); };
  const bool raw = !m_per_bank_refresh || m_ranks > 1;
  const auto same_refresh = [&](Time a, Time b) {
    if (!raw) return same(a, b, 0);
    const bool a_slot = a <= m_next_cmd, b_slot = b <= o.m_next_cmd;
    return (a_slot && b_slot) || (a == b && !a_slot && !b_slot);
  };
  const Time ccd = std::max(m_t.tCCD_L, m_t.tCCD_S), wtr = std::max(m_t.tWTR_L, m_t.tWTR_S);
  const Time turnaround = std::max<Time>(0, m_t.tCL + m_t.tBURST + 2 - m_t.tCWL);
  if (!same(m_next_cmd, o.m_next_cmd, 0) || !same(m_bus_free, o.m_bus_free, 0) ||
      !same(m_last_read, o.m_last_read, turnaround) || !same(m_last_col, o.m_last_col, ccd) ||
      !same(m_last_write_end, o.m_last_write_end, wtr))
    return false;
  // The last column command's and last write's groups matter while their times do.
  if (m_last_col + ccd > now && (m_last_col_rank != o.m_last_col_rank || m_last_col_bg != o.m_last_col_bg))
    return false;
  if (m_last_write_end + wtr > now &&
      (m_last_write_rank != o.m_last_write_rank || m_last_write_bg != o.m_last_write_bg))
    return false;
  if (m_open_banks != o.m_open_banks) return false;
  for (std::size_t i = 0; i < m_banks.size(); ++i) {
    const Bank &a = m_banks[i], &b = o.m_banks[i];
    if (a.open_row != b.open_row || !same_refresh(a.next_act, b.next_act) || !same_refresh(a.next_pre, b.next_pre) ||
        !same(a.next_col, b.next_col, 0) || !same(a.act_time, b.act_time, m_t.tRAS))
      return false;
    // Nothing is kept for an empty queue; but if something were, it would
    // have to be the same.
    for (int w = 0; w < 2; ++w)
      if (m_own[w][i].valid || o.m_own[w][i].valid || m_hit[w][i].valid || o.m_hit[w][i].valid) return false;
  }
  for (std::uint32_t r = 0; r < m_ranks; ++r) {
    const Rank &a = m_rank[r], &b = o.m_rank[r];
    if (a.refresh_due != b.refresh_due || a.ref_bank != b.ref_bank || !same_refresh(a.busy_until, b.busy_until) ||
        !same(a.last_act, b.last_act, m_t.tRRD_S))
      return false;
    for (std::uint32_t g = 0; g < m_bank_groups; ++g)
      if (!same(a.last_act_bg[g], b.last_act_bg[g], m_t.tRRD_L)) return false;
    // The four-activation window: the last ACTs from the oldest, an ACT
    // never made counting as one too old to matter.
    const auto nth_oldest = [](const Rank& k, int i) {
      const int missing = 4 - k.faw_count;
      return i < missing ? std::numeric_limits<Time>::min() / 2 : k.faw[static_cast<std::size_t>((k.faw_next + i) % 4)];
    };
    for (int i = 0; i < 4; ++i)
      if (!same(nth_oldest(a, i), nth_oldest(b, i), m_t.tFAW)) return false;
  }
  return true;
}

DramChannel::Time DramChannel::refreshes_by(const Rank& rank, Time now) const {
  if (rank.refresh_due + m_rfc > now) return 0;
  return (now - m_rfc - rank.refresh_due) / m_refi + 1;
}

DramChannel::Time DramChannel::catch_up_refresh(Time now) {
  // While idle every refresh could run on time: count those that would have
  // finished by `now`; one still running or due is left to the scheduler.
  const std::uint32_t banks = m_bank_groups * m_banks_per_group;
  Time all = 0;
  for (auto& rank : m_rank) {
    const Time n = refreshes_by(rank, now);
    if (n == 0) continue;
    rank.refresh_due += n * m_refi;
    m_counts.ref += static_cast<std::uint64_t>(n);
    rank.ref_bank = static_cast<std::uint32_t>((rank.ref_bank + static_cast<std::uint64_t>(n)) % banks);
    all += n;
  }
  return all;
}

DramChannel::IdleStretch DramChannel::idle_stretch(Time end, Time refreshes) const {
  IdleStretch s;
  if (end <= m_idle_since) return s;
  const Time gap = end - m_idle_since, after = m_config.power_down_idle_tck;
  if (!m_config.power_down || gap <= after) {
    s.standby = gap;
    return s;
  }
  s.powered_down = true;
  const Time enter = m_idle_since + after;
  s.wake = std::max(end, enter + m_t.tCKE) + m_t.tXP;
  // Each refresh meanwhile wakes the ranks for its exit and its tRFC. A
  // controller refreshes a powered-down rank all banks at once, so per-bank
  // refreshes count as their all-bank equivalent (one per bank in the rank).
  const Time banks = m_per_bank_refresh ? static_cast<Time>(m_bank_groups) * m_banks_per_group : 1;
  const Time awake = std::min(end - enter, refreshes * (m_t.tRFC + m_t.tXP) / banks);
  s.standby = after + awake;
  s.down = end - enter - awake;
  return s;
}

void DramChannel::add(Residency& r, const IdleStretch& s) const {
  (m_idle_open ? r.idle_active : r.idle_precharged) += s.standby;
  (m_idle_open ? r.down_active : r.down_precharged) += s.down;
  if (s.powered_down) ++r.exits;
}

DramChannel::Residency DramChannel::residency(Time end) const {
  Residency r = m_residency;
  if (queued() > 0) return r;
  Time refreshes = 0;
  for (const Rank& rank : m_rank) refreshes += refreshes_by(rank, end);
  IdleStretch s = idle_stretch(end, refreshes);
  s.powered_down = false;  // not yet woken: no exit to count
  add(r, s);
  return r;
}

bool DramChannel::blocked_by_refresh(const Request& r, Time now) const {
  const Rank& rank = m_rank[r.rank];
  if (rank.refresh_due > now) return false;
  if (!m_per_bank_refresh) return true;
  return static_cast<std::uint32_t>(r.bank_group) * m_banks_per_group + r.bank_in_group == rank.ref_bank;
}

DramChannel::Time DramChannel::rank_act_floor(std::uint32_t rank, std::uint32_t bg) const {
  const Rank& r = m_rank[rank];
  Time t = std::max({r.last_act + m_t.tRRD_S, r.last_act_bg[bg] + m_t.tRRD_L, r.busy_until});
  if (r.faw_count == 4) t = std::max(t, r.faw[static_cast<std::size_t>(r.faw_next)] + m_t.tFAW);
  return t;
}

void DramChannel::rank_acted(std::uint32_t rank) {
  for (std::uint32_t bg = 0; bg < m_bank_groups; ++bg) m_rank_act_floor[group_of(rank, bg)] = rank_act_floor(rank, bg);
}

void DramChannel::update_mode() {
  if (m_write_mode) {
    if (m_writes.empty() || (m_writes.size() <= m_write_low && !m_reads.empty())) m_write_mode = false;
  } else if (m_writes.size() >= m_write_high || (m_reads.empty() && !m_writes.empty())) {
    m_write_mode = true;
  }
}

bool DramChannel::refresh_candidate(Time now, std::optional<Candidate>& into) {
  bool found = false;
  for (std::uint32_t r = 0; r < m_ranks; ++r) {
    if (m_rank[r].refresh_due > now) continue;
    // Precharge the bank(s) to refresh (hits or not), then refresh.
    Time time = never;
    DramCommand cmd = DramCommand::pre;
    std::uint32_t bg = 0, bank_in_group = 0, flat = 0;
    bool all_closed = true;
    Time ref_at = std::max(m_rank[r].busy_until, m_next_cmd);
    // All-bank: every bank of the rank; per bank: the one whose turn it is.
    const std::uint32_t g_first = m_per_bank_refresh ? m_rank[r].ref_bank / m_banks_per_group : 0;
    const std::uint32_t g_end = m_per_bank_refresh ? g_first + 1 : m_bank_groups;
    const std::uint32_t b_first = m_per_bank_refresh ? m_rank[r].ref_bank % m_banks_per_group : 0;
    const std::uint32_t b_end = m_per_bank_refresh ? b_first + 1 : m_banks_per_group;
    for (std::uint32_t g = g_first; g < g_end; ++g)
      for (std::uint32_t b = b_first; b < b_end; ++b) {
        const Bank& bank = m_banks[bank_index(r, g, b)];
        if (bank.open_row >= 0) {
          const Time t = std::max(bank.next_pre, m_next_cmd);
          if (all_closed || t < time) {
            time = t;
            bg = g;
            bank_in_group = b;
            flat = static_cast<std::uint32_t>(bank_index(r, g, b));
          }
          all_closed = false;
        }
        ref_at = std::max(ref_at, bank.next_act);
      }
    if (all_closed) {
      time = ref_at;
      cmd = DramCommand::ref;
    }
    if (found && time >= into->time) continue;
    into = Candidate{};
    into->set(time, cmd, 0, true, r, bg, bank_in_group, flat);
    found = true;
  }
  return found;
}

const DramChannel::Own& DramChannel::find_own(bool write, std::uint32_t bi) {
  Own& o = m_own[write][bi];
  // Per bank only the oldest hit, or else the oldest request, can win: a
  // younger one of the same kind needs the same command at the same time.
  const Bank& b = m_banks[bi];
  const std::uint32_t group = bi / m_banks_per_group;
  const std::uint64_t front = (write ? m_writes : m_reads).bank(bi).front().seq;
  if (b.open_row < 0) {  // closed: the oldest request activates its row
    o = Own{b.next_act, Own::row_command | front, floor_act * m_groups + group, DramCommand::act, true};
  } else if (const Hit& hit = oldest_hit(write, bi); hit.found) {
    o = Own{b.next_col, hit.seq, floor_col * m_groups + group, write ? DramCommand::wr : DramCommand::rd, true};
  } else {  // no request hits the open row (one that does keeps it open)
    o = Own{b.next_pre, Own::row_command | front, floor_pre * m_groups, DramCommand::pre, true};
  }
  return o;
}

void DramChannel::choose(Time now, std::optional<Candidate>& into) {
  const BankQueues& q = m_write_mode ? m_writes : m_reads;
  // What a due refresh keeps away: whole ranks (all-bank) or one bank each.
  bool any_due = false;
  for (std::uint32_t r = 0; r < m_ranks; ++r) {
    m_rank_due[r] = m_rank[r].refresh_due <= now;
    any_due = any_due || m_rank_due[r];
  }
  // The rank and channel terms of the banks' ready times, per kind and group,
  // with `now` folded in (a column command's: see col_floors()).
  const bool write = m_write_mode;
  const std::uint32_t col_group = group_of(m_last_col_rank, m_last_col_bg);
  const std::uint32_t write_group = group_of(m_last_write_rank, m_last_write_bg);
  const ColFloors col = col_floors(write);
  const Time col_common = std::max(col.common, now), col_in_group = std::max(col.in_col_group, now),
             col_in_write_group = std::max(col.in_write_group, now);
  const Time base = std::max(m_next_cmd, now);  // in every floor: the command bus's next slot, and `now`
  for (std::uint32_t g = 0; g < m_groups; ++g) {
    m_floor[floor_act * m_groups + g] = std::max(m_rank_act_floor[g], base);
    m_floor[floor_col * m_groups + g] = col_common;
  }
  m_floor[floor_col * m_groups + write_group] = col_in_write_group;
  m_floor[floor_col * m_groups + col_group] = col_in_group;
  m_floor[floor_pre * m_groups] = base;
  // The best request: soonest first; at equal times a row hit (column
  // command) first; then the oldest. Written without branches on the
  // banks' values: which bank wins is not predictable.
  constexpr std::uint32_t no_bank = std::numeric_limits<std::uint32_t>::max();
  // Each bank's (time, key) as one unsigned 128-bit number in the same order
  // (the time's sign bit flipped): one compare and two conditional moves per
  // bank, where a compiler makes the pair's three comparisons branches.
  using Order = unsigned __int128;
  constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
  const auto ordered = [](Time t, std::uint64_t key) {
    return (static_cast<Order>(static_cast<std::uint64_t>(t) ^ sign_bit) << 64) | key;
  };
  std::uint32_t best = no_bank;
  Order best_order = ~Order{0};
  const std::uint32_t banks_per_rank = m_bank_groups * m_banks_per_group;
  for (const std::uint32_t bi : q.active()) {
    if (any_due) {
      const std::uint32_t rank = bi / banks_per_rank;
      if (m_rank_due[rank] && (!m_per_bank_refresh || bi % banks_per_rank == m_rank[rank].ref_bank)) continue;
    }
    const Own& o = own(write, bi);
    const Order order = ordered(std::max(o.time, m_floor[o.floor]), o.key);
    const bool better = order < best_order;  // (every bank's is below the start's: the first wins)
    best = better ? bi : best;
    best_order = better ? order : best_order;
  }
  const Time best_time = static_cast<Time>(static_cast<std::uint64_t>(best_order >> 64) ^ sign_bit);
  const bool have = best != no_bank;
  // A due refresh goes first unless a request can issue sooner.
  if (any_due) {
    if (refresh_candidate(now, into) && (!have || into->time <= best_time)) return;
  }
  if (!have) {
    into.reset();
    return;
  }
  const Request& first = q.bank(best).front();
  const Own& o = m_own[write][best];
  into = Candidate{};
  into->set(best_time, o.cmd, o.key & ~Own::row_command, false, first.rank, first.bank_group, first.bank_in_group,
            best);
}

const DramChannel::Hit& DramChannel::oldest_hit(bool write, std::uint32_t bank) {
  Hit& h = m_hit[write][bank];
  if (h.valid) return h;
  const std::vector<Request>& requests = (write ? m_writes : m_reads).bank(bank);
  const std::int64_t row = m_banks[bank].open_row;
  const auto it = std::find_if(requests.begin(), requests.end(),
                               [row](const Request& r) { return row == static_cast<std::int64_t>(r.row); });
  h.valid = true;
  h.found = it != requests.end();
  h.seq = h.found ? it->seq : 0;
  return h;
}

DramChannel::StepResult DramChannel::step(Time now) {
  StepResult out;
  m_step_at_arrival = false;
  if (queued() == 0) return out;  // idle: refresh is caught up on the next arrival
  now = std::max(now, m_next_cmd);
  const bool was_write_mode = m_write_mode;
  update_mode();
  // The cached choice holds while nothing changed: same mode, not stepped
  // past it, and no refresh fell due since it was made. The choice is made
  // into m_cache and used there, never copied: it was just stored field by
  // field, and a copy would read it back wider.
  if (m_cache && (m_write_mode != was_write_mode || now > m_cache->time || m_refresh_due_min <= now)) m_cache.reset();
  if (!m_cache) choose(now, m_cache);
  if (!m_cache) return out;
  if (m_cache->time > now) {
    // A refresh falling due before then changes the choice: look again then.
    out.next = std::min(m_cache->time, refresh_due_after(now));
    remember(now);
    return out;
  }
  issue(*m_cache, now, out);
  m_cache.reset();
  // Say exactly when the next command can go, so the caller sleeps till then.
  if (queued()) {
    update_mode();
    choose(m_next_cmd, m_cache);
    out.next = std::min(m_cache ? m_cache->time : never, refresh_due_after(m_next_cmd));
    remember(m_next_cmd);
  }
  return out;
}

DramChannel::Time DramChannel::refresh_due_after(Time at) const {
  Time due = never;
  for (const Rank& r : m_rank)
    if (r.refresh_due > at) due = std::min(due, r.refresh_due);
  return due;
}

void DramChannel::remember(Time at) {
  if (!m_use_cache) {
    m_cache.reset();
    return;
  }
  m_cache_at = at;
  // A refresh already due was part of the choice; one falling due later
  // invalidates it.
  m_refresh_due_min = refresh_due_after(at);
}

void DramChannel::issue(const Candidate& c, Time t, StepResult& out) {
  out.issued = c.cmd;
  out.issued_at = t;
  m_next_cmd = t + 1;
  Rank& rank = m_rank[c.rank];
  if (c.cmd == DramCommand::ref) {
    ++m_counts.ref;
    rank.refresh_due += m_refi;
    if (m_per_bank_refresh) {
      const std::size_t flat = bank_index(c.rank, rank.ref_bank / m_banks_per_group, rank.ref_bank % m_banks_per_group);
      touch(static_cast<std::uint32_t>(flat));
      Bank& bank = m_banks[flat];
      bank.next_act = std::max(bank.next_act, t + m_rfc);
      rank.ref_bank = (rank.ref_bank + 1) % (m_bank_groups * m_banks_per_group);
      return;
    }
    rank.busy_until = t + m_rfc;
    rank_acted(c.rank);
    for (std::uint32_t g = 0; g < m_bank_groups; ++g)
      for (std::uint32_t b = 0; b < m_banks_per_group; ++b) {
        const std::size_t flat = bank_index(c.rank, g, b);
        touch(static_cast<std::uint32_t>(flat));
        Bank& bank = m_banks[flat];
        bank.next_act = std::max(bank.next_act, rank.busy_until);
      }
    return;
  }
  touch(c.flat);
  Bank& bank = m_banks[c.flat];
  if (c.cmd == DramCommand::pre) {
    ++m_counts.pre;
    bank.open_row = -1;
    --m_open_banks;
    row_changed(c.flat);
    bank.next_act = std::max(bank.next_act, t + m_t.tRP);
    return;
  }
  BankQueues& q = m_write_mode ? m_writes : m_reads;
  if (c.cmd == DramCommand::act) {
    ++m_counts.act;
    ++m_open_banks;
    bank.open_row = q.find(c.flat, c.seq).row;
    row_changed(c.flat);
    bank.act_time = t;
    bank.next_col = t + m_t.tRCD;
    bank.next_pre = std::max(bank.next_pre, t + m_t.tRAS);
    bank.next_act = std::max(bank.next_act, t + m_t.tRC);
    rank.last_act = t;
    rank.last_act_bg[c.bg] = t;
    rank.faw[static_cast<std::size_t>(rank.faw_next)] = t;
    rank.faw_next = (rank.faw_next + 1) % 4;
    rank.faw_count = std::min(rank.faw_count + 1, 4);
    rank_acted(c.rank);
    return;
  }
  // A column command: the request's data moves and it leaves the queue.
  const bool write = c.cmd == DramCommand::wr;
  const Time data_start = t + (write ? m_t.tCWL : m_t.tCL);
  const Time data_end = data_start + m_t.tBURST;
  m_bus_free = data_end;
  m_data_busy += m_t.tBURST;
  m_last_col = t;
  m_last_col_rank = c.rank;
  m_last_col_bg = c.bg;
  Time pre_at;
  if (write) {
    ++m_counts.wr;
    m_last_write_end = data_end;
    m_last_write_rank = c.rank;
    m_last_write_bg = c.bg;
    pre_at = data_end + m_t.tWR;
  } else {
    ++m_counts.rd;
    m_last_read = t;
    pre_at = t + m_t.tRTP;
  }
  bank.next_pre = std::max(bank.next_pre, pre_at);
  if (m_closed_page) {
    // Auto-precharge: the bank closes as soon as tRAS and tRTP/tWR allow.
    ++m_counts.pre;
    const Time closes = std::max(bank.next_pre, bank.act_time + m_t.tRAS);
    bank.open_row = -1;
    --m_open_banks;
    row_changed(c.flat);
    bank.next_act = std::max(bank.next_act, closes + m_t.tRP);
  }
  Hit& h = m_hit[write][c.flat];
  if (h.valid && h.found && h.seq == c.seq) h.valid = false;  // the next hit, if any, is further back
  out.completed = Completion{q.take(c.flat, c.seq).tag, data_end};
  if (queued() == 0) {  // idle once the data has moved (and a REF is done)
    m_idle_since = std::max(data_end, m_next_cmd);
    for (const Rank& r : m_rank) m_idle_since = std::max(m_idle_since, r.busy_until);
    m_idle_open = m_open_banks > 0;
  }
}

}  // namespace eva
