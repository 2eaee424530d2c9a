#pragma once
// The DRAM controller with device timing (`timed` presets): requests are cut
// into bursts, each burst routed by the address mapping to its channel, and
// every channel schedules its bursts with FR-FCFS against the device's bank
// and bus constraints (DramChannel). A transaction is answered when its last
// burst's data has moved. Back-pressure: a request is refused while any of
// its channels' queues is full.
//
// Energy per command follows DRAMPower's simplified equations from the
// preset's currents (device core; no I/O or termination), per rank:
//   ACT+PRE  ((IDD0-IDD3N) tRAS + (IDD0-IDD2N) tRP) VDD
//   RD / WR  (IDD4R/W - IDD3N) tBURST VDD
//   REF      (IDD5 - IDD3N) tRFC VDD (a per-bank REF: that over the banks)
//   background IDD3N VDD for the whole run (active standby: power-down is
//   not modelled, so this is an upper bound)
// all times devices_per_rank.
//
// Channel classes: when the address mapping puts the channel lowest (every
// preset's), a request whose bursts give each of several neighbouring
// channels the same rows and columns leaves them in the same state if they
// were in the same state before. Such channels form a class, simulated once
// by its first channel; a request that treats a class's channels differently
// splits it (each part starts from a copy of the state), and neighbouring
// classes that one request treats alike merge again when both are idle and
// DramChannel::same_future says their states cannot be told apart from then
// on. Each channel keeps its own totals (commands, residency) as a
// difference from its class's first channel. The commands, their times and
// every total are the same as with each channel simulated on its own (a test
// holds the two to it); a decode step's 256-B loads on four channels are
// simulated once instead of four times.
#include <cmath>
#include <cstdint>
#include <vector>

#include <systemc>

#include "dram/address_mapper.hpp"
#include "dram/dram_channel.hpp"
#include "dram/dram_config.hpp"
#include "dram/dram_target.hpp"

namespace eva {

class DramController : public DramTarget, public RunAheadTarget {
 public:
  // `share_channels` false simulates every channel on its own (for tests).
  DramController(const sc_core::sc_module_name& name, const DramConfig& config, bool share_channels = true);

  double peak_bytes_per_second() const override { return m_config.peak_bytes_per_second(); }
  Energy energy_parts(const sc_core::sc_time& elapsed) const override;
  sc_core::sc_time access_latency() const override;
  DramCommandCounts counts() const;
  // Picojoules per command and I/O per burst, and the background power of
  // each state (W, all ranks of one channel), from the preset's currents.
  struct CommandEnergy {
    double act_pre = 0, rd = 0, wr = 0, ref = 0, io_rd = 0, io_wr = 0;
    double active_w = 0, precharged_w = 0, down_active_w = 0, down_precharged_w = 0;
  };
  static CommandEnergy command_energy(const DramConfig& c);
  // The channels' background residency summed, at `elapsed`.
  DramChannel::Residency residency(const sc_core::sc_time& elapsed) const;
  std::uint64_t posted_pending() const override { return m_posted; }
  RunAheadTarget* run_ahead_target() override { return this; }
  // Runs the controller and its only initiator ahead of the kernel
  // (common/run_ahead.hpp): the scheduler (schedule), the responses and the
  // initiator's issue loop, in the kernel's order, as one loop.
  void run_ahead(RunAheadInitiator& initiator) override;
  const RunAheadClock& run_ahead_clock() const override { return m_clock; }
  // The free entries of the queues of that kind, plus one per channel: a
  // channel issues at most one command per step, which frees at most one.
  std::uint64_t takes_per_step(bool write) const override;
  // Time steps run ahead of the kernel so far (not a statistic: the results
  // are the same either way).
  std::uint64_t run_ahead_steps() const { return m_ahead_steps; }
  // Channel classes split and merged so far, and the classes now (not
  // statistics either).
  std::uint64_t class_splits() const { return m_splits; }
  std::uint64_t class_merges() const { return m_merges; }
  std::size_t channel_classes() const { return m_reps.size(); }

 private:
  bool accept(tlm::tlm_generic_payload& trans) override;
  // accept() with channel classes: bursts `first` to `last`.
  bool accept_shared(tlm::tlm_generic_payload& trans, std::uint64_t first, std::uint64_t last, bool write);
  // One burst into channel c's queues, and the channel's next step moved up to it.
  void queue_burst(std::uint32_t c, std::uint32_t tag, bool write, const DramAddress& a, DramChannel::Time now) {
    m_channels[c].enqueue(tag, write, a, now);
    m_next[c] = std::min(m_next[c], m_channels[c].next_hint(now));
  }
  // Takes a tag and its in-flight entry for a request of `bursts` bursts.
  std::uint32_t new_tag(tlm::tlm_generic_payload& trans, std::uint32_t bursts);
  // After a request's bursts are queued: the scheduler's wake-up at tCK
  // `wake`, and a posted write's early answer.
  void accepted(tlm::tlm_generic_payload& trans, std::uint32_t tag, bool write, DramChannel::Time wake);
  // Makes channel `c` the first of a class (its class's part from `c` on
  // gets a copy of the state).
  void split_at(std::uint32_t c);
  // Merges the class that starts at m_class_end[a] into class `a`.
  void merge_next(std::uint32_t a);
  void list_classes();
  // A channel's totals, from its class's first channel and its difference.
  DramChannel::Totals totals_of(std::uint32_t c) const;
  void flush_model_stats(const sc_core::sc_time& now) override;
  void schedule();
  // The last posted write's bursts have drained, their data at `at`.
  void posted_drained_at(const sc_core::sc_time& at);
  // The first tCK boundary at or after `t`, and the same in doubles.
  DramChannel::Time tck_of(const sc_core::sc_time& t) const;
  DramChannel::Time tck_of_seconds(const sc_core::sc_time& t) const;
  DramChannel::Time now_tck() const;
  // Kernel time of tCK `t` (the kernel's resolution is 1 ps).
  // An integral number of kernel units per tCK (every preset's, at the
  // kernel's 1 ps) gives the same value without the rounding.
  sc_core::sc_time at_tck(DramChannel::Time t) const {
    if (m_tck_value > 0 && t >= 0 && t < m_tck_exact_below)
      return sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(t * m_tck_value));
    return sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(
        std::llround(static_cast<double>(t) * m_config.tck_ps * m_ps_to_value)));
  }
  // Notifies m_wake at absolute time `at` unless a notification no later is
  // pending (which the kernel would keep anyway).
  void wake_at(const sc_core::sc_time& at);

  struct InFlight {
    tlm::tlm_generic_payload* trans = nullptr;
    std::uint32_t bursts_left = 0;
    DramChannel::Time last_done = 0;
  };

  const DramConfig m_config;
  const CommandEnergy m_energy;                      // command_energy(m_config), once
  const double m_ps_to_value;                        // kernel time units per picosecond
  std::int64_t m_tck_value = 0;                      // kernel units per tCK when integral, else 0
  DramChannel::Time m_tck_exact_below = 0;           // tCK counts whose product stays exact in a double
  sc_core::sc_time::value_type m_tck_int_below = 0;  // kernel times whose tCK count tck_of takes in integers
  const AddressMapper m_mapper;
  const std::uint64_t m_burst_bytes;
  const int m_burst_shift;  // log2 of m_burst_bytes if a power of two, else -1
  // The burst that byte `addr` falls in (a shift, not a division, when it can be).
  std::uint64_t burst_of(std::uint64_t addr) const {
    return m_burst_shift >= 0 ? addr >> m_burst_shift : addr / m_burst_bytes;
  }
  std::vector<DramChannel> m_channels;    // a class's first channel holds its state; the others' is stale
  std::vector<DramChannel::Time> m_next;  // per channel: when to step it
  std::vector<InFlight> m_in_flight;      // indexed by tag
  std::vector<std::uint32_t> m_free_tags;
  std::vector<std::uint32_t> m_per_channel;                 // scratch: bursts per channel of one request
  std::vector<DramAddress> m_decoded;                       // scratch: its bursts' addresses
  const tlm::tlm_generic_payload* m_decoded_for = nullptr;  // the request m_decoded holds, if refused
  std::uint64_t m_decoded_first = 0;                        // and its first burst
  const bool m_share;                                       // channel classes in use
  unsigned m_channel_bits;                                  // log2 of the channel count (the mapper's)
  std::vector<std::uint32_t> m_rep_of;                      // per channel: its class's first channel
  std::vector<std::uint32_t> m_class_end;                   // per class's first channel: one past its last
  std::vector<std::uint32_t> m_reps;                        // the classes' first channels, in order
  std::vector<DramChannel::Totals> m_offset;                // per channel: its totals minus its class's first channel's
  std::uint64_t m_splits = 0, m_merges = 0;
  sc_core::sc_event m_wake;
  bool m_wake_pending = false;  // m_wake has a notification at m_wake_at
  sc_core::sc_time m_wake_at;
  // The earliest notification since schedule() last ran: exactly when it
  // runs next (m_wake_at may be later); in a run ahead, the loop's.
  bool m_wake_next_pending = false;
  sc_core::sc_time m_wake_next_at;
  std::uint64_t m_posted = 0;      // posted writes answered, bursts still queued
  sc_core::sc_time m_ahead_limit;  // run_ahead: the loop stops before this time
  std::uint64_t m_ahead_steps = 0;
  std::size_t m_stat_act, m_stat_pre, m_stat_rd, m_stat_wr, m_stat_ref, m_stat_busy, m_stat_down, m_stat_exits;
};

}  // namespace eva
