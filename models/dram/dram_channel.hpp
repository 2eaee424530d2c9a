#pragma once
// One DRAM channel: bank state machines, timing constraints and an FR-FCFS
// scheduler over a read queue and a write queue. Plain C++ in units of the
// command clock (tCK); the SystemC controller calls step() when something can
// happen, so time advances from command to command, never cycle by cycle.
//
// Scheduling (per step, at time `now`): among the requests of the active
// queue, each needs one next command (RD/WR on a row hit, else PRE, else ACT)
// that is legal from some earliest time; the command issued is the one legal
// soonest, a column command (row hit) before a row command at the same time,
// the oldest request first (first-ready, first-come first-served). A bank with
// a queued hit on its open row is not precharged for another request. Writes
// are drained in bursts between watermarks. Refresh is all-bank, per rank,
// every tREFI: the rank's banks are precharged, REF blocks it for tRFC; or
// per bank, every tREFIpb the next bank in turn is precharged and blocked for
// tRFCpb while the others keep working (LPDDR4/5, HBM2). While a channel is
// idle, refreshes are accounted without simulating them. Power-down: once
// the channel has been idle power_down_idle_tck, its ranks power down
// (active power-down if a row is open, else precharge power-down) and the
// next arrival waits for the exit (tCKE at least in power-down, then tXP);
// each refresh meanwhile wakes them for tXP + tRFC (all-bank: per-bank ones
// count as their all-bank equivalent). The channel accounts the
// time in each background state for the energy (residency()).
// Not modelled: rank-to-rank switching, self-refresh, ranks powering down
// one by one (a channel's ranks share one state).
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "dram/address_mapper.hpp"
#include "dram/dram_config.hpp"

namespace eva {

enum class DramCommand { act, pre, rd, wr, ref };

struct DramCommandCounts {
  std::uint64_t act = 0, pre = 0, rd = 0, wr = 0, ref = 0;
  DramCommandCounts& operator+=(const DramCommandCounts& o) {
    act += o.act;
    pre += o.pre;
    rd += o.rd;
    wr += o.wr;
    ref += o.ref;
    return *this;
  }
  // Differences wrap like the unsigned counts they are; added back, they
  // give the count again.
  DramCommandCounts& operator-=(const DramCommandCounts& o) {
    act -= o.act;
    pre -= o.pre;
    rd -= o.rd;
    wr -= o.wr;
    ref -= o.ref;
    return *this;
  }
};

class DramChannel {
 public:
  using Time = std::int64_t;  // tCK
  static constexpr Time never = std::numeric_limits<Time>::max();

  // A queued burst, kept small: the scheduler scans these.
  struct Request {
    std::uint32_t tag = 0;  // the caller's handle
    std::uint32_t row = 0;
    std::uint32_t bank = 0;  // flat bank index in the channel (set on enqueue)
    std::uint64_t seq = 0;   // arrival order (set on enqueue)
    std::uint16_t rank = 0, bank_group = 0, bank_in_group = 0;
    bool write = false;
  };
  struct Completion {
    std::uint64_t tag = 0;
    Time done = 0;  // last data beat transferred
  };
  struct StepResult {
    std::optional<DramCommand> issued;  // the command issued, if any
    Time issued_at = 0;                 // when (now, or the command bus's next slot)
    std::optional<Completion> completed;
    Time next = never;  // when to step again (never: idle)
  };

  // `use_cache` keeps each choice for the next step and updates it as requests
  // arrive, instead of rescanning the queue: the same commands, faster (a test
  // holds the two to the same sequence).
  explicit DramChannel(const DramConfig& config, bool use_cache = true);

  // Free entries in the queue a request of this kind goes to.
  std::size_t room(bool write) const {
    const std::size_t used = write ? m_writes.size() : m_reads.size(), cap = write ? m_write_cap : m_read_cap;
    return used < cap ? cap - used : 0;
  }
  std::size_t queued() const { return m_reads.size() + m_writes.size(); }

  // Requests of one kind, kept per bank in arrival order, with the list of
  // banks that have any: the scheduler looks at banks, not at every request.
  class BankQueues {
   public:
    explicit BankQueues(std::size_t banks) : m_per_bank(banks), m_where(banks, none) {}
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const std::vector<std::uint32_t>& active() const { return m_active; }
    const std::vector<Request>& bank(std::uint32_t b) const { return m_per_bank[b]; }
    // Queues a burst to `a` at flat bank `bank` as arrival `seq`; returns
    // the queued entry.
    const Request& push(std::uint32_t tag, bool write, const DramAddress& a, std::uint32_t bank, std::uint64_t seq);
    // Removes request `seq` of bank `b` and returns it.
    Request take(std::uint32_t b, std::uint64_t seq);
    const Request& find(std::uint32_t b, std::uint64_t seq) const;

   private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::vector<Request>> m_per_bank;
    std::vector<std::uint32_t> m_active;
    std::vector<std::size_t> m_where;  // position in m_active, or none
    std::size_t m_size = 0;
  };
  // Queues a burst to `a` arriving at `now`, with the caller's handle `tag`
  // (the caller checks room()).
  void enqueue(std::uint32_t tag, bool write, const DramAddress& a, Time now);
  // When step() next has something to do, as far as is known without a full
  // choice: the kept choice's time, else `now`.
  Time next_hint(Time now) const {
    return m_cache && !m_step_at_arrival ? std::max(std::min(m_cache->time, m_refresh_due_min), now) : now;
  }
  // Issues at most one command at `now` and says when to come back.
  StepResult step(Time now);

  const DramCommandCounts& counts() const { return m_counts; }
  // Time in each background state, tCK: idle in standby with a row open or
  // all banks closed, and powered down likewise; the rest of a run is busy
  // (active standby). Counts an idle stretch still open at `end`.
  struct Residency {
    Time idle_active = 0, idle_precharged = 0, down_active = 0, down_precharged = 0;
    std::uint64_t exits = 0;  // power-down exits
    Time idle() const { return idle_active + idle_precharged + down_active + down_precharged; }
    Residency& operator+=(const Residency& o) {
      idle_active += o.idle_active;
      idle_precharged += o.idle_precharged;
      down_active += o.down_active;
      down_precharged += o.down_precharged;
      exits += o.exits;
      return *this;
    }
    Residency& operator-=(const Residency& o) {
      idle_active -= o.idle_active;
      idle_precharged -= o.idle_precharged;
      down_active -= o.down_active;
      down_precharged -= o.down_precharged;
      exits -= o.exits;
      return *this;
    }
  };
  Residency residency(Time end) const;
  Time data_busy() const { return m_data_busy; }  // cycles the data bus carried data

  // What the channel has counted so far: its commands, data-bus cycles and
  // the background residency of its closed idle stretches (residency() adds
  // an open one). The controller's channel classes keep one channel's state
  // for several and the others' totals as differences from it.
  struct Totals {
    DramCommandCounts counts;
    Time data_busy = 0;
    Residency residency;
    Totals& operator+=(const Totals& o) {
      counts += o.counts;
      data_busy += o.data_busy;
      residency += o.residency;
      return *this;
    }
    Totals& operator-=(const Totals& o) {
      counts -= o.counts;
      data_busy -= o.data_busy;
      residency -= o.residency;
      return *this;
    }
  };
  Totals totals() const { return Totals{m_counts, m_data_busy, m_residency}; }
  void set_totals(const Totals& t) {
    m_counts = t.counts;
    m_data_busy = t.data_busy;
    m_residency = t.residency;
  }
  // What an arrival at `now` does first to an idle channel (nothing to one
  // with requests queued): it counts the idle stretch to `now` and the
  // refreshes run meanwhile, and waits for a power-down exit. Calling it
  // again at the same `now` changes nothing; enqueue() calls it.
  void wake(Time now);
  // True if this channel and `other`, both idle and woken at `now`, issue the
  // same commands at the same times for any arrivals from `now` on, as far
  // as their state shows: the same rows open, the same refresh schedule, and
  // every timing bound either equal or too old to matter at `now`. Their
  // totals may differ. False when in doubt.
  bool same_future(const DramChannel& other, Time now) const;

 private:
  struct Bank {
    std::int64_t open_row = -1;
    Time next_act = 0, next_pre = 0, next_col = 0, act_time = 0;
  };
  struct Rank {
    Time last_act = -(1 << 30);
    std::vector<Time> last_act_bg;
    std::array<Time, 4> faw{};  // the last four ACTs, a ring
    int faw_next = 0, faw_count = 0;
    Time refresh_due = 0;
    Time busy_until = 0;         // all-bank REF in progress
    std::uint32_t ref_bank = 0;  // per-bank refresh: the bank whose turn it is
  };
  struct Candidate {
    Time time = never;
    DramCommand cmd = DramCommand::act;
    std::uint64_t seq = 0;  // the request's arrival order (unused for refresh)
    bool refresh = false;
    std::uint32_t rank = 0, bg = 0, bank = 0;  // bank within its group
    std::uint32_t flat = 0;                    // flat bank index
    // Every field, one by one: a candidate built elsewhere and copied whole
    // would be read back in wider pieces than it was stored in (see step()).
    void set(Time t, DramCommand c, std::uint64_t s, bool is_refresh, std::uint32_t in_rank, std::uint32_t in_bg,
             std::uint32_t in_bank, std::uint32_t in_flat) {
      time = t;
      cmd = c;
      seq = s;
      refresh = is_refresh;
      rank = in_rank;
      bg = in_bg;
      bank = in_bank;
      flat = in_flat;
    }
  };
  // What a due refresh keeps requests away from.
  bool blocked_by_refresh(const Request& r, Time now) const;
  // Per queue (read, write) and bank: the oldest request that hits the open
  // row, kept between choices while the bank's queue and row allow (a
  // newcomer is the youngest, so it can only be the first hit).
  struct Hit {
    bool valid = false, found = false;
    std::uint64_t seq = 0;
  };
  const Hit& oldest_hit(bool write, std::uint32_t bank);
  void row_changed(std::uint32_t bank) { m_hit[0][bank].valid = m_hit[1][bank].valid = false; }

  std::size_t bank_index(std::uint32_t rank, std::uint32_t bg, std::uint32_t bank) const {
    return (static_cast<std::size_t>(rank) * m_bank_groups + bg) * m_banks_per_group + bank;
  }
  Time act_ready(std::uint32_t rank, std::uint32_t bg, const Bank& b) const {
    return std::max(b.next_act, act_floor(rank, bg));
  }
  std::uint32_t group_of(std::uint32_t rank, std::uint32_t bg) const { return rank * m_bank_groups + bg; }
  Time col_ready(bool write, std::uint32_t rank, std::uint32_t bg, const Bank& b) const {
    return std::max(b.next_col, col_floor(write, group_of(rank, bg)));
  }
  // What holds every bank of a rank's bank group back from an ACT, or from a
  // column command of a kind: the rank's and the channel's state.
  Time act_floor(std::uint32_t rank, std::uint32_t bg) const {
    return std::max(m_rank_act_floor[group_of(rank, bg)], m_next_cmd);
  }
  // The rank's part of act_floor(), which only an ACT or a REF changes: kept
  // per group (m_rank_act_floor) and recomputed then.
  Time rank_act_floor(std::uint32_t rank, std::uint32_t bg) const;
  void rank_acted(std::uint32_t rank);
  // A column command's floor, of a kind, has only two group terms: the last
  // column command's group (tCCD_L against tCCD_S) and, for a read, the last
  // write's (tWTR_L against tWTR_S). So it takes three values: in the last
  // column command's group, in the last write's (if another), and in every
  // other group.
  struct ColFloors {
    Time in_col_group, in_write_group, common;
  };
  ColFloors col_floors(bool write) const {
    const Time rest = col_rest(write);
    const bool same = m_last_col_rank == m_last_write_rank && m_last_col_bg == m_last_write_bg;
    return {std::max(rest, col_group_terms(write, true, same)), std::max(rest, col_group_terms(write, same, true)),
            std::max(rest, col_group_terms(write, false, false))};
  }
  // `group` is group_of(rank, bank group).
  Time col_floor(bool write, std::uint32_t group) const {
    return std::max(col_rest(write), col_group_terms(write, group == group_of(m_last_col_rank, m_last_col_bg),
                                                     group == group_of(m_last_write_rank, m_last_write_bg)));
  }
  // The group-independent terms of a column command's floor.
  Time col_rest(bool write) const {
    if (write)  // read-to-write turnaround: the write's data follows the read's,
                // with two cycles of bus turnaround (JEDEC tRTW = CL + BURST + 2 - CWL)
      return std::max({m_next_cmd, m_last_read + m_t.tCL + m_t.tBURST + 2 - m_t.tCWL, m_bus_free - m_t.tCWL});
    return std::max(m_next_cmd, m_bus_free - m_t.tCL);
  }
  // Its group terms, for a bank in the last column command's group or not,
  // and in the last write's group or not.
  Time col_group_terms(bool write, bool in_col_group, bool in_write_group) const {
    const Time ccd = m_last_col + (in_col_group ? m_t.tCCD_L : m_t.tCCD_S);
    if (write) return ccd;
    return std::max(ccd, m_last_write_end + (in_write_group ? m_t.tWTR_L : m_t.tWTR_S));
  }
  // Counts the refreshes an idle channel would have run by `now`; returns how many.
  Time catch_up_refresh(Time now);
  // The refreshes rank `r` would have finished by `now` while idle.
  Time refreshes_by(const Rank& r, Time now) const;
  // The background states of the idle stretch from m_idle_since to `end`,
  // with `refreshes` run meanwhile; wake: when the first command may go.
  struct IdleStretch {
    Time standby = 0, down = 0, wake = 0;
    bool powered_down = false;
  };
  IdleStretch idle_stretch(Time end, Time refreshes) const;
  void add(Residency& r, const IdleStretch& s) const;
  void update_mode();
  // The first due refresh's next command (a PRE or the REF) into `into`;
  // false, leaving `into` as it was, if no refresh is due.
  bool refresh_candidate(Time now, std::optional<Candidate>& into);
  // The FR-FCFS choice among the active queue and any due refresh, into `into`
  // (empty if nothing is queued that may go).
  void choose(Time now, std::optional<Candidate>& into);
  // The earliest refresh that falls due after `at` (never if none).
  Time refresh_due_after(Time at) const;
  // Keeps the choice in m_cache, made at `at`, for the next step (see
  // enqueue and step); drops it without the cache.
  void remember(Time at);
  void issue(const Candidate& c, Time t, StepResult& out);

  // The configuration (not const, so that a channel can be assigned
  // another's state: the controller's channel classes).
  bool m_use_cache;
  DramConfig m_config;
  DramTimings m_t;
  std::uint32_t m_ranks, m_bank_groups, m_banks_per_group;
  std::size_t m_read_cap, m_write_cap, m_write_high, m_write_low;
  bool m_closed_page, m_per_bank_refresh;
  Time m_refi, m_rfc;  // of the refresh mode in use
  std::vector<Bank> m_banks;
  std::vector<Rank> m_rank;
  BankQueues m_reads, m_writes;
  std::uint64_t m_seq = 0;
  bool m_write_mode = false;
  // Channel-wide state: command bus, data bus, column-to-column spacing.
  Time m_next_cmd = 0, m_bus_free = 0;
  Time m_last_col = -(1 << 30);
  std::uint32_t m_last_col_rank = 0, m_last_col_bg = 0;
  Time m_last_read = -(1 << 30), m_last_write_end = -(1 << 30);
  std::uint32_t m_last_write_rank = 0, m_last_write_bg = 0;
  std::vector<char> m_rank_due;      // per rank: a refresh is due (choose())
  std::optional<Candidate> m_cache;  // the choice for the next step, if still valid
  bool m_step_at_arrival = false;    // the next step is due at the last arrival (next_hint)
  std::vector<Hit> m_hit[2];
  // Per queue (read, write) and bank: the bank's own part of its candidate,
  // kept until the bank or its queue changes (touch()). Its ready time is
  // the later of `time` and the floor m_floor[floor] of the command's kind
  // and, for an ACT or a column command, the bank's group (rank and bank
  // group); `key` orders the candidates at equal times: a column command
  // first (row_command clear), then the oldest (the request's number).
  struct Own {
    static constexpr std::uint64_t row_command = std::uint64_t{1} << 63;
    Time time = 0;
    std::uint64_t key = 0;
    std::uint32_t floor = 0;
    DramCommand cmd = DramCommand::act;
    bool valid = false;
  };
  std::vector<Own> m_own[2];
  void touch(std::uint32_t bank) { m_own[0][bank].valid = m_own[1][bank].valid = false; }
  const Own& own(bool write, std::uint32_t bank) {
    const Own& o = m_own[write][bank];
    return o.valid ? o : find_own(write, bank);
  }
  const Own& find_own(bool write, std::uint32_t bank);
  // choose(): per kind (ACT, column) and group, the floor of a choice; a
  // PRE's, the same for every group, is last.
  enum FloorKind : std::uint32_t { floor_act = 0, floor_col = 1, floor_pre = 2 };
  std::uint32_t m_groups;  // groups of banks: ranks times bank groups
  std::vector<Time> m_floor;
  std::vector<Time> m_rank_act_floor;
  Time m_cache_at = 0, m_refresh_due_min = never;
  DramCommandCounts m_counts;
  Time m_data_busy = 0;
  // Background state: open banks, and since when the channel has been idle
  // (nothing queued, the last command's data moved) with a row open or not.
  std::uint32_t m_open_banks = 0;
  Time m_idle_since = 0;
  bool m_idle_open = false;
  Residency m_residency;
};

}  // namespace eva
