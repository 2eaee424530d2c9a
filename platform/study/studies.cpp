#include "study/studies.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "study/runner.hpp"

namespace eva {

std::vector<Report> run_model(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                              const WorkloadRequest& request, const StudyOptions& options) {
  Workload w = compile_workload(model, request);
  if (options.trace_layers) {
    const auto [first, last] = *options.trace_layers;
    w.ops.erase(std::remove_if(
                    w.ops.begin(), w.ops.end(),
                    [first = first, last = last](const WorkloadOp& op) { return op.layer < first || op.layer > last; }),
                w.ops.end());
  }
  Runner runner(archs, options.direct || options.trace);
  const std::size_t id = runner.add(w);
  if (options.trace) runner.enable_timelines();
  runner.run(options.quiet, options.jobs);
  if (options.trace) write_file_atomic(*options.trace, runner.trace_json());
  std::vector<Report> out;
  for (std::size_t a = 0; a < archs.size(); ++a) {
    Report r = runner.report(a, id);
    r.model = model.name;
    r.phase = std::string(enum_name(request.phase));
    r.extra["batch"] = request.batch;
    r.extra["seq_len"] = request.seq_len;
    r.extra["experts_touched"] = w.experts_touched;
    r.extra["simulated_operations"] = runner.simulated_ops();
    if (options.trace_layers)
      r.extra["trace_layers"] = fmt::format("{}-{}", options.trace_layers->first, options.trace_layers->second);
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

// Sums a composed workload report into an accumulating one, `times` times.
void accumulate(Report& total, const Report& part, double times) {
  total.cycles += static_cast<std::uint64_t>(static_cast<double>(part.cycles) * times);
  total.seconds += part.seconds * times;
  total.energy_j = total.energy_j.value_or(0.0) + part.energy_j.value_or(0.0) * times;
  for (const auto& [module, j] : part.energy_breakdown_j) total.energy_breakdown_j[module] += j * times;
  total.dram_bytes_read += static_cast<std::uint64_t>(static_cast<double>(part.dram_bytes_read) * times);
  total.dram_bytes_written += static_cast<std::uint64_t>(static_cast<double>(part.dram_bytes_written) * times);
  total.work_ops += part.work_ops * times;
  total.sram_bank_conflict_cycles +=
      static_cast<std::uint64_t>(std::llround(static_cast<double>(part.sram_bank_conflict_cycles) * times));
  if (total.stat_totals.empty()) {
    total.stat_keys = part.stat_keys;
    total.stat_totals.assign(part.stat_totals.size(), 0.0);
  }
  for (std::size_t s = 0; s < part.stat_totals.size() && s < total.stat_totals.size(); ++s)
    total.stat_totals[s] += part.stat_totals[s] * times;
}

// One step of a request: the prefill of its prompt, or a decode step at KV
// length `seq_len`; the routing seed is the length, so that equal steps of
// different requests are the same workload.
WorkloadRequest step(Phase phase, std::uint64_t seq_len) {
  WorkloadRequest q;
  q.phase = phase;
  q.seq_len = seq_len;
  q.seed = seq_len;
  return q;
}

// The grid points whose costs give a KV length's by interpolation.
std::pair<std::uint64_t, std::uint64_t> grid_points(std::uint64_t l, std::uint64_t grid) {
  if (grid <= 1 || l % grid == 0) return {l, l};
  const std::uint64_t lo = std::max<std::uint64_t>(1, l / grid * grid);
  return {lo, (l / grid + 1) * grid};
}

}  // namespace

E2ePlan plan_e2e(Runner& runner, const ModelConfig& model, const std::vector<Request>& requests,
                 std::uint64_t kv_grid) {
  // Every distinct prompt length, and every KV grid point the trace needs, once.
  std::set<std::uint64_t> prompts, contexts;
  for (const Request& r : requests) {
    prompts.insert(r.input);
    for (std::uint64_t t = 1; t <= r.output; ++t) {
      const auto [lo, hi] = grid_points(r.input + t, kv_grid);
      contexts.insert(lo);
      contexts.insert(hi);
    }
  }
  E2ePlan plan{model, requests, kv_grid, {}, {}};
  for (std::uint64_t l : prompts) plan.prefill[l] = runner.add(compile_workload(model, step(Phase::prefill, l)));
  for (std::uint64_t l : contexts) plan.decode[l] = runner.add(compile_workload(model, step(Phase::decode, l)));
  return plan;
}

std::vector<Report> finish_e2e(const Runner& runner, const E2ePlan& plan) {
  const std::vector<ArchConfig>& archs = runner.archs();
  std::vector<Report> out;
  for (std::size_t a = 0; a < archs.size(); ++a) {
    std::map<std::uint64_t, Report> prefill, decode;
    for (const auto& [l, id] : plan.prefill) prefill[l] = runner.report(a, id, false);
    for (const auto& [l, id] : plan.decode) decode[l] = runner.report(a, id, false);
    Report total, pre, dec;
    std::uint64_t out_tokens = 0;
    for (const Request& r : plan.requests) {
      accumulate(pre, prefill.at(r.input), 1.0);
      for (std::uint64_t t = 1; t <= r.output; ++t) {
        const std::uint64_t l = r.input + t;
        const auto [lo, hi] = grid_points(l, plan.kv_grid);
        if (lo == hi) {
          accumulate(dec, decode.at(l), 1.0);
          continue;
        }
        const double w = static_cast<double>(l - lo) / static_cast<double>(hi - lo);
        accumulate(dec, decode.at(lo), 1.0 - w);
        accumulate(dec, decode.at(hi), w);
      }
      out_tokens += r.output;
    }
    accumulate(total, pre, 1.0);
    accumulate(total, dec, 1.0);
    total.arch = archs[a].name;
    total.model = plan.model.name;
    total.phase = "e2e";
    total.tokens = out_tokens;
    const Report& sim = runner.simulation(a);
    total.area_mm2 = sim.area_mm2;
    total.area_breakdown_mm2 = sim.area_breakdown_mm2;
    total.static_power_w = sim.static_power_w;
    total.warnings = sim.warnings;
    total.config = sim.config;
    total.sim_wall_s = prefill.begin()->second.sim_wall_s;
    total.stats = stats_with(sim.stats, total.stat_keys, total.stat_totals);
    const double bytes = static_cast<double>(total.dram_bytes_read + total.dram_bytes_written);
    total.dram_bw_utilization =
        total.seconds > 0 ? bytes / (archs[a].dram.peak_bytes_per_second() * total.seconds) : 0.0;
    // Per phase, as operations: the prefills and the decode steps.
    for (const auto& [name, part] : {std::pair{"prefill", &pre}, std::pair{"decode", &dec}}) {
      OpReport o;
      o.name = name;
      o.cycles = part->cycles;
      o.seconds = part->seconds;
      o.energy_j = part->energy_j.value_or(0.0);
      o.energy_breakdown_j = part->energy_breakdown_j;
      o.dram_bytes_read = part->dram_bytes_read;
      o.dram_bytes_written = part->dram_bytes_written;
      o.work_ops = part->work_ops;
      total.ops.push_back(o);
    }
    total.extra["requests"] = plan.requests.size();
    total.extra["output_tokens"] = out_tokens;
    total.extra["mean_latency_s"] = total.seconds / static_cast<double>(plan.requests.size());
    total.extra["tokens_per_s"] = static_cast<double>(out_tokens) / total.seconds;
    total.extra["prefill_s"] = pre.seconds;
    total.extra["decode_s"] = dec.seconds;
    total.extra["simulated_operations"] = runner.simulated_ops();
    out.push_back(std::move(total));
  }
  return out;
}

std::vector<Report> run_e2e(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                            const std::vector<Request>& requests, const StudyOptions& options) {
  Runner runner(archs, false);
  const E2ePlan plan = plan_e2e(runner, model, requests, options.kv_grid);
  runner.run(options.quiet, options.jobs);
  std::vector<Report> out = finish_e2e(runner, plan);
  for (Report& r : out) r.extra["kv_grid"] = options.kv_grid;
  return out;
}

Workload e2e_workload(const ModelConfig& model, const std::vector<Request>& requests) {
  Workload all;
  const auto append = [&all](const Workload& w) { all.ops.insert(all.ops.end(), w.ops.begin(), w.ops.end()); };
  for (const Request& r : requests) {
    append(compile_workload(model, step(Phase::prefill, r.input)));
    for (std::uint64_t t = 1; t <= r.output; ++t) append(compile_workload(model, step(Phase::decode, r.input + t)));
    all.tokens += r.output;
  }
  return all;
}

std::vector<Report> run_e2e_direct(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                                   const std::vector<Request>& requests) {
  const Workload all = e2e_workload(model, requests);
  Runner runner(archs, true);
  const std::size_t id = runner.add(all);
  runner.run(true);
  std::vector<Report> out;
  for (std::size_t a = 0; a < archs.size(); ++a) {
    Report r = runner.report(a, id);
    r.model = model.name;
    r.phase = "e2e";
    out.push_back(std::move(r));
  }
  return out;
}

void add_ratios(std::vector<Report>& reports, const std::vector<std::string>& baselines) {
  for (const std::string& b : baselines) {
    const Report* base = nullptr;
    for (const Report& r : reports)
      if (r.arch == b) base = &r;
    if (!base) continue;
    for (Report& r : reports) {
      r.extra["speedup_vs_" + b] = r.seconds > 0 ? base->seconds / r.seconds : 0.0;
      const double e = r.energy_j.value_or(0.0);
      r.extra["energy_efficiency_vs_" + b] = e > 0 ? base->energy_j.value_or(0.0) / e : 0.0;
    }
  }
}

std::string comparison_table(const std::vector<Report>& reports, const std::vector<std::string>& baselines) {
  std::size_t width = 14;  // the arch column fits the longest name
  for (const Report& r : reports) width = std::max(width, r.arch.size());
  // total_ms and energy_mJ: everything the report covers (one pass, or every
  // request of an e2e run), not a latency per request.
  std::string head = fmt::format("{:<{}} {:>14} {:>12} {:>12} {:>12} {:>10} {:>9} {:>10}", "arch", width, "total_ms",
                                 "tokens/s", "energy_mJ", "mJ/token", "GOPS", "GOPS/W", "GOPS/mm2");
  for (const std::string& b : baselines) head += fmt::format(" {:>12} {:>12}", "speedup/" + b, "eff/" + b);
  std::string out = head + "\n";
  for (const Report& r : reports) {
    const Efficiency e = efficiency(r);
    std::string row =
        fmt::format("{:<{}} {:>14.4f} {:>12.2f} {:>12.4f} {:>12.4f} {:>10.2f} {:>9.2f} {:>10.2f}", r.arch, width,
                    r.seconds * 1e3, r.seconds > 0 ? static_cast<double>(r.tokens) / r.seconds : 0.0,
                    r.energy_j.value_or(0.0) * 1e3, e.energy_per_token_j * 1e3, e.gops, e.gops_per_w, e.gops_per_mm2);
    for (const std::string& b : baselines) {
      const std::string s = "speedup_vs_" + b, f = "energy_efficiency_vs_" + b;
      if (r.extra.contains(s))
        row += fmt::format(" {:>12.2f} {:>12.2f}", r.extra[s].get<double>(), r.extra[f].get<double>());
      else
        row += fmt::format(" {:>12} {:>12}", "-", "-");
    }
    out += row + "\n";
  }
  return out;
}

}  // namespace eva
