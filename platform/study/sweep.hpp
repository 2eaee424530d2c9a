#pragma once
// Parameter sweeps (`eva-sim sweep SWEEP.yaml`): one simulating command run at
// every combination of the listed values, each point in its own eva-sim
// process (a run is a pure function of its config, workload and seed, so the
// points are independent), up to N at a time. Plain C++, no SystemC.
//
// The file (docs/SWEEP.md):
//   command: gemm                     # run, gemm, compare, e2e, vq-gemv or dram-bench
//   options: {arch: eva, m: 1, n: 4096, k: 4096}   # the command's options, fixed
//   set: {systolic.weight_load: overlapped}        # --set overrides, fixed
//   vary:                             # every combination, the first key slowest
//     set: {epilogue.units: [1, 2, 4]}
//     options: {dram: [ideal, lpddr5-6400]}
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace eva {

struct SweepAxis {
  bool is_set = false;  // a --set key (else a command option)
  std::string key;
  std::vector<std::string> values;
};

struct SweepPlan {
  std::string source;  // the file, for messages
  std::string command;
  std::vector<std::pair<std::string, std::string>> options, sets;  // fixed
  std::vector<SweepAxis> axes;
  std::uint64_t points() const;
  // Point i's value on every axis, the last axis fastest.
  std::vector<std::string> values(std::uint64_t i) const;
  // eva-sim's arguments for point i (after the program name), without the
  // outputs the sweep adds.
  std::vector<std::string> arguments(std::uint64_t i) const;
  // "epilogue.units=4 dram=ideal": point i for messages.
  std::string describe(std::uint64_t i) const;
};

// Reads and checks a sweep file; InputError (file:line and what is wrong)
// on anything it cannot run.
SweepPlan load_sweep(const std::string& path);

// One summary row per result of a point's JSON report (a report, or
// {"results": [...]}): the swept values, then the report's scalar keys.
std::vector<nlohmann::ordered_json> sweep_rows(const SweepPlan& plan, std::uint64_t point,
                                               const nlohmann::json& report);
// Rows as CSV: the union of their keys as columns, in order of appearance.
std::string rows_csv(const std::vector<nlohmann::ordered_json>& rows);

struct SweepOptions {
  std::string out = "sweep-out";  // directory, created if missing
  unsigned jobs = 1;
  bool quiet = false;
  std::string program;  // the eva-sim to run for each point
};

// Runs every point (point-NNN.json and point-NNN.txt in the output
// directory), then writes sweep.csv and sweep.json. A point that fails stops
// the sweep (running points finish; no new ones start) and throws InputError
// naming the point and the child's message. Returns the summary rows.
std::vector<nlohmann::ordered_json> run_sweep(const SweepPlan& plan, const SweepOptions& options);

}  // namespace eva
