#pragma once
// Parameter sweeps (`eva-sim sweep SWEEP.yaml`): one simulating command run at
// every combination of the listed values, each point in its own eva-sim
// process (a run is a pure function of its config, workload and seed, so the
// points are independent), on this machine (`local`, N at a time) or as one
// Slurm job array (`slurm`). Resumable: a re-run into the same directory runs
// only the points without a complete report. Plain C++, no SystemC.
//
// The file (docs/SWEEP.md):
//   command: gemm                     # run, gemm, compare, e2e or dram-bench
//   options: {arch: eva, m: 1, n: 4096, k: 4096}   # the command's options, fixed
//   set: {systolic.weight_load: overlapped}        # --set overrides, fixed
//   vary:                             # every combination, the first key slowest
//     set: {epilogue.units: [1, 2, 4]}
//     options: {dram: [ideal, lpddr5-6400]}
//     together:                       # keys that move together, as one dimension
//       - set: {systolic.rows: [16, 32], systolic.cols: [16, 32]}
//   slurm: {partition: batch, time: "00:30:00", options: [--qos=short], points_per_task: 4}
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
  std::size_t dimension = 0;  // axes of one `together` group share a dimension
};

// The slurm executor's settings, from the file's `slurm:` or the command line.
struct SlurmSettings {
  std::string partition;                    // sbatch --partition (empty: the cluster's default)
  std::string time;                         // sbatch --time, per task (empty: the partition's limit)
  std::vector<std::string> sbatch_options;  // passed to sbatch as they are, e.g. --qos=short
  std::uint64_t points_per_task = 0;        // points run one after another by one task (0: not given, 1)
  std::string program;                      // eva-sim's path on the nodes (empty: this executable)
};

struct SweepPlan {
  std::string source;  // the file, for messages
  std::string command;
  std::vector<std::pair<std::string, std::string>> options, sets;  // fixed
  std::vector<SweepAxis> axes;
  std::vector<std::size_t> dimensions;  // the number of values along each dimension
  SlurmSettings slurm;
  std::uint64_t points() const;
  // Point i's value on every axis, the last axis fastest.
  std::vector<std::string> values(std::uint64_t i) const;
  // eva-sim's arguments for point i (after the program name), without the
  // outputs the sweep adds.
  std::vector<std::string> arguments(std::uint64_t i) const;
  // "epilogue.units=4 dram=ideal": point i for messages.
  std::string describe(std::uint64_t i) const;
  // What the points run (command, options, sets, swept values), without how
  // or where: a directory's points belong to the plan with this identity.
  nlohmann::ordered_json identity() const;
};

// Reads and checks a sweep file, or a built-in sweep by name (`eva-sim list
// sweeps`); InputError (file:line and what is wrong) on anything it cannot run.
SweepPlan load_sweep(const std::string& path);
std::vector<std::string> builtin_sweep_names();

// Point i's swept values, as JSON (numbers where they read as numbers).
nlohmann::ordered_json sweep_values(const SweepPlan& plan, std::uint64_t point);
// One summary row per result of a point's JSON report (a report, or
// {"results": [...]}): the swept values, then the report's scalar keys, and
// tokens_per_s where the report has tokens and seconds.
std::vector<nlohmann::ordered_json> sweep_rows(const SweepPlan& plan, std::uint64_t point,
                                               const nlohmann::json& report);
// Rows as CSV: the union of their keys as columns, in order of appearance.
std::string rows_csv(const std::vector<nlohmann::ordered_json>& rows);
// Ratios against a baseline architecture: each row gets speedup_vs_B (B's
// seconds over its own) and energy_efficiency_vs_B (B's energy_j over its
// own) from the row of architecture B with the same swept values, the swept
// architecture (`arch`, `archs`) aside; rows without such a row get none.
// Returns how many rows found their baseline.
std::size_t add_baseline_ratios(std::vector<nlohmann::ordered_json>& rows, const SweepPlan& plan,
                                const std::string& baseline);
// The architecture names a plan's points can have, when each is given by
// name (empty when one is a file, whose name only its report says).
std::vector<std::string> plan_arch_names(const SweepPlan& plan);

enum class Executor { local, slurm };

struct SweepOptions {
  std::string out = "sweep-out";  // directory, created if missing
  unsigned jobs = 1;              // local: points at once; slurm: tasks at once (0: no limit)
  bool quiet = false;
  std::string program;  // the eva-sim to run for each point
  Executor executor = Executor::local;
  bool retry_failed = false;           // rerun the points that failed before (missing ones always run)
  bool keep_going = false;             // local: start new points after one has failed (slurm always runs them all)
  bool force = false;                  // take over a directory written by a different sweep
  SlurmSettings slurm;                 // the file's settings, with the command line's over them
  double poll_seconds = 0.5;           // slurm: how often squeue is asked
  std::vector<std::string> baselines;  // ratio columns against these architectures (add_baseline_ratios)
};

struct FailedPoint {
  std::uint64_t point = 0;
  int status = 1;       // the exit status (2: bad input), or 1 when the task died
  std::string message;  // the first line of its stderr, or what Slurm says of the task
};

struct SweepResult {
  std::vector<nlohmann::ordered_json> rows;  // of the points that succeeded, in point order
  std::uint64_t ran = 0, kept = 0;           // points run now; complete points kept from before
  std::uint64_t not_run = 0;                 // not started: the sweep stopped at a failure (no --keep-going)
  std::vector<FailedPoint> failed;           // in point order
  nlohmann::ordered_json index;              // sweep.json as written
};

// Runs every point that has no complete report in the output directory
// (point-NNN.json, .txt, .err and .exit), then writes sweep.csv and
// sweep.json over all the complete ones; failed points are listed, not fatal.
// InputError when the directory belongs to another sweep (unless force) or is
// in use.
SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& options);

// The slurm executor's batch script: array task t runs points[t * per_task ...]
// one after another, each as `program arguments --json OUT/point-NNN.json
// --quiet`, its exit status written last to point-NNN.exit. Every value is
// single-quoted: nothing in a sweep file reaches the shell as code.
std::string slurm_batch_script(const SweepPlan& plan, const std::vector<std::uint64_t>& points, std::uint64_t per_task,
                               const std::string& program, const std::string& out_dir);
// `text` as one single-quoted shell word.
std::string shell_quote(const std::string& text);

}  // namespace eva
