#pragma once
// The report of a run: the contract's keys (BRIEF section 7) plus per-module
// statistics, written as JSON or CSV. Files are written whole or not at all.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eva {

struct OpReport {
  std::string name;
  std::uint64_t m = 0, n = 0, k = 0;
  std::uint64_t count = 1;           // independent GEMMs of this shape (heads, sequences)
  std::uint64_t cycles = 0;          // the op's share of the run, memory included
  std::uint64_t compute_cycles = 0;  // the array's cycles with memory never late
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  double seconds = 0.0;
  double energy_j = 0.0;                             // the platform's energy over the op's time, leakage included
  std::map<std::string, double> energy_breakdown_j;  // the same per module
  double work_ops = 0.0;                             // 2 x multiply-accumulates
  // fc, attention, vector, lm_head or moe_router (empty for a report's phase
  // summaries); and what bounds the op (docs/WORKLOADS.md, "What bounds an
  // operation"): memory, compute, epilogue or bank conflicts.
  std::string kind, bound_by;
};

// What bounds an operation, from its cycles and the busy cycles of the units
// it used: memory when the DRAM at its peak would take at least as long as
// the busiest unit; else bank conflicts when they are more than a quarter of
// that unit's cycles, epilogue when EVA's adder trees are the busiest unit,
// and compute otherwise.
struct OpLoad {
  double memory_cycles = 0;  // bytes moved / the DRAM's peak, in clock cycles
  double array_cycles = 0, epilogue_cycles = 0, lookup_cycles = 0, vector_cycles = 0;
  double conflict_cycles = 0;
};
std::string bound_by(const OpLoad& load);

struct Report {
  std::string arch, model, phase;
  std::uint64_t cycles = 0;
  double seconds = 0.0;
  // Energy of the whole platform (accelerator modules and DRAM), J, and per
  // module; area of the accelerator, mm2, and per module.
  std::optional<double> energy_j;
  std::map<std::string, double> energy_breakdown_j;
  double area_mm2 = 0.0;
  std::map<std::string, double> area_breakdown_mm2;
  // The accelerator's static power (its units' leakage; DRAM excluded), W.
  double static_power_w = 0.0;
  // Useful operations (2 per multiply-accumulate of the FC and attention
  // GEMMs) and the tokens they produced, for the derived efficiency figures.
  double work_ops = 0.0;
  std::uint64_t tokens = 0;
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  double dram_bw_utilization = 0.0;
  std::uint64_t sram_bank_conflict_cycles = 0;
  std::vector<OpReport> ops;
  double sim_wall_s = 0.0;
  nlohmann::json config;  // the settings that shaped the numbers
  nlohmann::json stats;   // module -> statistic -> {value, unit, description}
  // The statistics flat, in the platform's order: (module, statistic) and
  // value; and, for a simulation, each operation's share (what it added), so
  // that a composed report counts every operation as often as it occurs.
  // Carried by report_state, not written (`stats` holds the values).
  std::vector<std::pair<std::string, std::string>> stat_keys;
  std::vector<double> stat_totals;
  std::vector<std::vector<double>> op_stats;
  std::vector<std::uint64_t> op_conflicts;  // each operation's SRAM bank-conflict cycles
  // What in the configuration is wasteful or has no effect (arch_warnings).
  std::vector<std::string> warnings;
  nlohmann::json functional;  // functional runs: the check against the reference
  nlohmann::json extra;       // command-specific figures, merged into the top level
};

// Derived figures: GOPS, GOPS/W, GOPS/mm2, pJ per op, J per token.
struct Efficiency {
  double gops = 0, gops_per_w = 0, gops_per_mm2 = 0, energy_per_op_pj = 0, energy_per_token_j = 0;
};
Efficiency efficiency(const Report& r);

nlohmann::json to_json(const Report& r);
// Per kind of operation (OpReport::kind): ops, seconds, energy, DRAM bytes,
// work, seconds by what bound them, the kind's bound and its share of the
// report's time; and the same as a printed table ("" without kinds).
nlohmann::json breakdown_by_kind(const Report& r);
std::string kind_table(const Report& r);
// Every field of a report, exactly (doubles round-trip), and back: how a
// report crosses from one process to another (Runner::run_all with jobs).
nlohmann::json report_state(const Report& r);
Report report_from_state(const nlohmann::json& j);
// `like` (a simulation's `stats`: units and descriptions) with the values
// `totals` for `keys`.
nlohmann::json stats_with(const nlohmann::json& like, const std::vector<std::pair<std::string, std::string>>& keys,
                          const std::vector<double>& totals);
// One CSV row per report, the scalar keys as columns.
std::string to_csv(const std::vector<Report>& reports);

// Writes `text` to `path` through a temporary file in the same directory and
// a rename, so readers never see half a file. Throws InputError if the path
// cannot be written.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace eva
