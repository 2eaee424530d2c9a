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
  std::uint64_t cycles = 0;          // the op's share of the run, memory included
  std::uint64_t compute_cycles = 0;  // the array's cycles with memory never late
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
};

struct Report {
  std::string arch, model, phase;
  std::uint64_t cycles = 0;
  double seconds = 0.0;
  // Whole-accelerator energy; absent until every module of the arch counts its
  // events. The breakdown holds what is modelled so far.
  std::optional<double> energy_j;
  std::map<std::string, double> energy_breakdown_j;
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  double dram_bw_utilization = 0.0;
  std::uint64_t sram_bank_conflict_cycles = 0;
  std::vector<OpReport> ops;
  double sim_wall_s = 0.0;
  nlohmann::json config;      // the settings that shaped the numbers
  nlohmann::json stats;       // module -> statistic -> {value, unit, description}
  nlohmann::json functional;  // functional runs: the check against the reference
};

nlohmann::json to_json(const Report& r);
// One CSV row per report, the scalar keys as columns.
std::string to_csv(const std::vector<Report>& reports);

// Writes `text` to `path` through a temporary file in the same directory and
// a rename, so readers never see half a file. Throws InputError if the path
// cannot be written.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace eva
