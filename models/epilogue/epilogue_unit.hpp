#pragma once
// One EVA epilogue unit: an adder tree of `adder_inputs` inputs with its own
// lookup port into the output-codebook (OC) SRAM (BRIEF section 2).
//
// The EVA control hands the units a chunk of output columns at once (a Job);
// per column the OC rows (sub-vector x input row) are taken `lookups` at a
// time, lookups = units x adder_inputs, and unit u adds rows
// t x lookups + u x adder_inputs + [0, adder_inputs) in cycle t of the column.
// Row r of entry e sits at OC byte address base + 2 (e x banks + r), so each
// unit's lanes fall in its own group of banks and never conflict unless the OC
// has fewer banks than lookups (the SRAM's bank model counts it if so).
//
// Timing mode: the lane-to-bank pattern does not depend on the indices, so
// each cycle slot's lanes (entry 0) are presented once with repeat = columns.
// Functional mode: each column's lanes carry the real indices; the unit reads
// the FP16 entries through its port and sums them per input row.
// A cycle slot takes one cycle, or the bank model's cycles when lanes
// conflict; the unit's time for the chunk is the sum over its slots.
#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "common/clock.hpp"
#include "common/energy.hpp"
#include "common/fp16.hpp"
#include "common/stats.hpp"
#include "common/sync.hpp"
#include "epilogue/epilogue_config.hpp"
#include "sram/lane_access.hpp"

namespace eva {

class EpilogueUnit : public sc_core::sc_module, public PricedUnit {
 public:
  // Lookups into the OC SRAM's lookup_socket.
  tlm_utils::simple_initiator_socket<EpilogueUnit> lookup_socket;

  // One chunk of columns of one pass.
  struct Job {
    std::uint64_t cols = 0;
    std::uint64_t rows = 0;                 // OC rows per column: sub-vectors x input rows
    std::uint64_t m = 1;                    // input rows: row r is sub-vector r / m of input row r % m
    std::uint64_t oc_base = 0;              // byte address of the OC half holding the pass
    std::uint64_t entry0 = 0, entries = 0;  // the entry tile in that half
    // Functional: the index of sub-vector v of column j at indices[j x (rows / m) + v],
    // and this unit's sums of input row mm, column j, added into partial[mm x cols + j].
    const std::uint32_t* indices = nullptr;
    float* partial = nullptr;
  };

  // `index`: this unit's place among `units`; `oc_banks`: the OC SRAM's banks of
  // one FP16 entry each.
  EpilogueUnit(const sc_core::sc_module_name& name, const EpilogueConfig& config, int index, std::uint64_t oc_banks,
               double clock_mhz, const UnitPower& power);
  EpilogueUnit(const EpilogueUnit&) = delete;
  EpilogueUnit& operator=(const EpilogueUnit&) = delete;

  // Starts a job; done() fires when the unit has finished it.
  void start(const Job& job);
  const sc_core::sc_event& done() const { return m_done; }
  bool busy() const { return m_busy; }
  // Cycles the last job took.
  std::uint64_t last_cycles() const { return m_last_cycles; }

  enum Stat { columns, lookups, busy_cycles, conflict_cycles, stat_count };
  double stat(Stat s) const { return m_stats.get(m_stat[s]); }
  const StatGroup& stats() const { return m_stats; }
  const char* energy_group() const override { return "epilogue"; }
  double energy_j(double seconds) const override;
  double area_mm2() const override { return m_power.area_mm2; }

 private:
  void run();
  std::uint64_t timing_job(const Job& j, sc_core::sc_time& delay);
  std::uint64_t functional_job(const Job& j, sc_core::sc_time& delay);

  const EpilogueConfig m_config;
  const std::uint64_t m_index, m_lookups, m_banks;
  const ClockDomain m_clock;
  const UnitPower m_power;
  EventQueue<Job> m_jobs;
  sc_core::sc_event m_done;
  bool m_busy = false;
  std::uint64_t m_last_cycles = 0;
  tlm::tlm_generic_payload m_trans;
  LaneAccess m_access;
  std::vector<half_bits> m_values;
  StatGroup m_stats;
  std::size_t m_stat[stat_count]{};
};

}  // namespace eva
