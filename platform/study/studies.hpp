#pragma once
// Whole-model studies built on the Runner: one model on several
// architectures (run, compare), and end to end over a request trace (e2e).
// Each function elaborates once, so it is called at most once per process.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/load_arch.hpp"
#include "dataset.hpp"
#include "model_config.hpp"
#include "report/report.hpp"
#include "workload.hpp"

namespace eva {

struct StudyOptions {
  bool direct = false;  // simulate every operation instead of composing signatures
  bool quiet = true;    // no progress bar
  unsigned jobs = 1;    // processes that share the platforms (Runner::run_all)
  // End to end: decode steps are simulated at KV lengths on a grid of this
  // step (and at 1) and interpolated linearly between grid points (exact on
  // them). A decode step's cost is affine in its KV length but for the edge
  // tiles of attention, so the interpolation error is a fraction of one tile.
  // 1: every KV length simulated.
  std::uint64_t kv_grid = 32;
  // run_model: write a timeline of the run here (trace-event JSON). The run
  // is then simulated directly, so that the timeline is the pass's own.
  std::optional<std::string> trace;
  // run_model with a trace: only the decoder layers first..last (inclusive)
  // run, and the report covers them alone (model-level operations such as
  // the LM head are left out).
  std::optional<std::pair<int, int>> trace_layers;
};

class Runner;

// The two steps of an end-to-end study, for callers that run several studies
// in one elaboration: plan (queue the workloads), then, after the runner ran,
// compose the reports.
struct E2ePlan {
  ModelConfig model;
  std::vector<Request> requests;
  std::uint64_t kv_grid = 1;
  std::map<std::uint64_t, std::size_t> prefill, decode;  // length -> workload handle
};
E2ePlan plan_e2e(Runner& runner, const ModelConfig& model, const std::vector<Request>& requests, std::uint64_t kv_grid);
std::vector<Report> finish_e2e(const Runner& runner, const E2ePlan& plan);

// One forward pass (prefill or decode) of `model` on each architecture.
std::vector<Report> run_model(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                              const WorkloadRequest& request, const StudyOptions& options);

// End to end: per request, the prefill of its prompt and one decode step per
// output token, each against the KV cache grown so far. Each report carries
// `requests`, `mean_latency_s`, `tokens_per_s`, `energy_per_token_j`,
// `prefill_s` and `decode_s`.
std::vector<Report> run_e2e(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                            const std::vector<Request>& requests, const StudyOptions& options);

// Every operation of every prefill and decode step of the trace, in order.
Workload e2e_workload(const ModelConfig& model, const std::vector<Request>& requests);

// The same trace simulated step by step in one direct run (every operation of
// every prefill and decode step in order): the reference the composition of
// run_e2e is checked against. Slow; for small cases.
std::vector<Report> run_e2e_direct(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                                   const std::vector<Request>& requests);

// Adds ratios against the named baselines that are among the reports
// (speedup = their seconds / ours; energy efficiency = their energy / ours).
void add_ratios(std::vector<Report>& reports, const std::vector<std::string>& baselines);

// A fixed-width table of the reports, one row per architecture.
std::string comparison_table(const std::vector<Report>& reports, const std::vector<std::string>& baselines);

}  // namespace eva
