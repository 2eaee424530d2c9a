// The commands over whole models: run, compare, e2e and validate.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "report/plot.hpp"
#include "study/studies.hpp"
#include "study/validate.hpp"

namespace eva {

namespace {

// The architectures compare and e2e run when --archs is absent: every
// built-in kind once.
const char* const default_archs = "sa,ant,figna,figlut,vq-conflict,eva";
// The baselines ratios are reported against (BRIEF section 4: the paper's).
const std::vector<std::string> ratio_baselines = {"sa", "figlut"};

// --baseline a,b: the architectures ratios are taken against (default: the
// paper's, sa and figlut, where they are compared); each must be compared.
std::vector<std::string> baselines_from(const po::variables_map& vm, const std::vector<ArchConfig>& archs) {
  if (!vm.count("baseline")) return ratio_baselines;
  std::vector<std::string> out;
  for (const std::string& name : comma_items(vm["baseline"].as<std::string>())) {
    if (std::none_of(archs.begin(), archs.end(), [&](const ArchConfig& a) { return a.name == name; }))
      throw InputError(fmt::format("--baseline: '{}' is not among the compared architectures", name));
    out.push_back(name);
  }
  if (out.empty()) throw InputError("--baseline: expected a comma-separated list of architectures");
  return out;
}

std::vector<ArchConfig> archs_from(const std::string& list, const SimOptions& s) {
  std::vector<ArchConfig> out;
  for (const std::string& name : comma_items(list)) {
    if (name.empty()) throw InputError(fmt::format("--archs: empty name in '{}'", list));
    out.push_back(arch_named(name, s));
  }
  if (out.empty()) throw InputError("--archs: expected a comma-separated list of architectures");
  return out;
}

// End-to-end runs: the trace and how its decode steps are composed.
void add_e2e_options(po::options_description& d) {
  d.add_options()("dataset", po::value<std::string>()->default_value("dolly"),
                  "request trace (built-in name or JSON file)")("requests", po::value<std::string>(),
                                                                "the first N requests only")(
      "kv-grid", po::value<std::string>()->default_value("32"),
      "simulate decode steps at KV lengths on this grid, interpolate between (1: every length)");
}

std::vector<Request> e2e_requests(const po::variables_map& vm, StudyOptions& options) {
  std::vector<Request> requests = load_dataset(vm["dataset"].as<std::string>());
  if (vm.count("requests")) requests.resize(positive("--requests", vm["requests"].as<std::string>(), requests.size()));
  options.kv_grid = positive("--kv-grid", vm["kv-grid"].as<std::string>(), 1 << 20);
  return requests;
}

// --kv-cache: the format's formats.* keys (FormatConfig, models/common/accel_config.hpp).
std::vector<std::string> kv_cache_sets(const std::string& format) {
  if (format == "fp16") return {"formats.kv_bits=16", "formats.kv_group=0"};
  if (format == "int8") return {"formats.kv_bits=8", "formats.kv_group=32", "formats.kv_group_bytes=4"};
  if (format == "int4") return {"formats.kv_bits=4", "formats.kv_group=32", "formats.kv_group_bytes=4"};
  throw InputError(fmt::format("--kv-cache: expected fp16, int8 or int4, got '{}'", format));
}

void add_kv_cache_option(po::options_description& d) {
  d.add_options()("kv-cache", po::value<std::string>(),
                  "fp16|int8|int4: the KV cache's format on every architecture (int: groups of 32 with an FP16 "
                  "scale and zero point; sets formats.kv_bits, kv_group, kv_group_bytes, which --set overrides)");
}

// The --kv-cache keys go after the setting's and before --set's.
void apply_kv_cache(const po::variables_map& vm, SimOptions& s) {
  if (!vm.count("kv-cache")) return;
  const std::vector<std::string> kv = kv_cache_sets(vm["kv-cache"].as<std::string>());
  s.setting_sets.insert(s.setting_sets.end(), kv.begin(), kv.end());
}

void add_workload_options(po::options_description& d) {
  d.add_options()("phase", po::value<std::string>()->default_value("decode"), "decode|prefill|e2e")(
      "batch", po::value<std::string>()->default_value("1"), "sequences per step")(
      "seq-len", po::value<std::string>()->default_value("128"), "prefill: prompt tokens; decode: KV-cache positions")(
      "seed", po::value<std::string>()->default_value("1"), "MoE routing seed")(
      "routing-skew", po::value<double>()->default_value(0.0), "MoE routing skew (0: uniform)")(
      "direct", po::bool_switch(), "simulate every operation (no composition of signatures)")(
      "csv", po::value<std::string>(), "write the reports as CSV");
  add_kv_cache_option(d);
  po::options_description e2e("--phase e2e");
  add_e2e_options(e2e);
  d.add(e2e);
}

struct WorkloadArgs {
  std::string phase;
  WorkloadRequest request;
  std::vector<Request> requests;
  StudyOptions options;
};

WorkloadArgs workload_args(const po::variables_map& vm, const SimOptions& s) {
  WorkloadArgs w;
  w.phase = vm["phase"].as<std::string>();
  if (w.phase != "decode" && w.phase != "prefill" && w.phase != "e2e")
    throw InputError(fmt::format("--phase: expected decode, prefill or e2e, got '{}'", w.phase));
  w.request.phase = w.phase == "prefill" ? Phase::prefill : Phase::decode;
  w.request.batch = positive("--batch", vm["batch"].as<std::string>(), 1 << 16);
  w.request.seq_len = positive("--seq-len", vm["seq-len"].as<std::string>(), 1 << 24);
  w.request.seed = positive("--seed", vm["seed"].as<std::string>(), ~0ull);
  w.request.routing_skew = vm["routing-skew"].as<double>();
  if (!(w.request.routing_skew >= 0.0 && w.request.routing_skew <= 100.0))
    throw InputError("--routing-skew: expected a number from 0 to 100");
  if (w.phase == "e2e") w.requests = e2e_requests(vm, w.options);
  w.options.direct = vm["direct"].as<bool>();
  w.options.quiet = s.quiet;
  if (w.options.direct && w.phase == "e2e")
    throw InputError("--direct: end-to-end runs compose their steps (use --phase decode or prefill)");
  return w;
}

// Parses a whole-model command's options (its own in `d` already) and checks
// its outputs and inputs before anything runs.
struct Parsed {
  po::variables_map vm;
  SimOptions s;
  WorkloadArgs w;
};
Parsed parse_workload_command(const std::string& command, const std::vector<std::string>& args,
                              po::options_description& d) {
  add_workload_options(d);
  add_sim_options(d);
  Parsed p;
  p.vm = parse(command, args, d);
  p.s = sim_options(p.vm);
  apply_kv_cache(p.vm, p.s);
  check_outputs(p.s);
  p.w = workload_args(p.vm, p.s);
  if (p.vm.count("trace")) {
    p.w.options.trace = p.vm["trace"].as<std::string>();
    check_output(p.w.options.trace, "--trace");
    if (p.w.phase == "e2e") throw InputError("--trace: a timeline is of one forward pass (--phase decode or prefill)");
  }
  if (p.vm.count("trace-layers")) {
    if (!p.vm.count("trace")) throw InputError("--trace-layers: chooses the layers of a --trace; give --trace FILE");
    const std::string v = p.vm["trace-layers"].as<std::string>();
    const std::size_t dash = v.find('-');
    const std::string a = v.substr(0, dash), b = dash == std::string::npos ? a : v.substr(dash + 1);
    const auto layer = [&v](const std::string& s) {
      if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(fmt::format("--trace-layers {}: expected a layer or a range of layers, as 3 or 0-1", v));
      return std::stoi(s);
    };
    const int first = layer(a), last = layer(b);
    if (first > last) throw InputError(fmt::format("--trace-layers {}: the first layer comes after the last", v));
    p.w.options.trace_layers = std::pair{first, last};
  }
  return p;
}

std::vector<Report> run_workload(const std::vector<ArchConfig>& archs, const ModelConfig& model,
                                 const WorkloadArgs& w) {
  if (w.phase == "e2e") return run_e2e(archs, model, w.requests, w.options);
  return run_model(archs, model, w.request, w.options);
}

}  // namespace

int cmd_run(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("run options");
  d.add_options()("arch", po::value<std::string>(), "architecture")("model", po::value<std::string>(), "model")(
      "trace", po::value<std::string>(),
      "write a timeline of the pass (trace-event JSON for ui.perfetto.dev); simulates every operation")(
      "trace-layers", po::value<std::string>(),
      "with --trace: run and trace only these decoder layers, as 0-1 or 3 (the report covers them alone)")(
      "plot", po::value<std::string>(), "draw a roofline of the operations as a PNG (matplotlib)");
  const auto [vm, s, w] = parse_workload_command(command, args, d);
  const ArchConfig arch = arch_from(vm, command, s);
  const ModelConfig model = load_model(required(vm, command, "model"));
  if (w.options.trace_layers && w.options.trace_layers->second >= model.layers)
    throw InputError(fmt::format("--trace-layers: {} has layers 0 to {}", model.name, model.layers - 1));
  const std::vector<Report> reports = run_workload({arch}, model, w);
  write_outputs(s, reports, false);
  const Report& r = reports.front();
  // The roofs: the DRAM's peak, and the array's dense peak (rows x cols MACs a cycle).
  if (s.plot)
    run_plot_script(s.plot_python, "plot_roofline.py", *s.plot,
                    roofline_data(r, 2.0 * arch.systolic.rows * arch.systolic.cols * arch.clock_mhz * 1e6,
                                  arch.dram.peak_bytes_per_second()));
  const Efficiency e = efficiency(r);
  std::cout << fmt::format(
      "{} {} {} (batch {}, {}; setting {}): {} cycles, {:.4f} ms, {:.4f} mJ ({:.4f} mJ/token); DRAM {} B read, {} B "
      "written, "
      "bandwidth utilisation {:.1f}%; {:.1f} GOPS, {:.1f} GOPS/W\n",
      r.arch, model.name, w.phase, w.request.batch,
      w.phase == "e2e" ? fmt::format("{} requests", w.requests.size()) : fmt::format("seq-len {}", w.request.seq_len),
      setting_name(arch), r.cycles, r.seconds * 1e3, r.energy_j.value_or(0.0) * 1e3, e.energy_per_token_j * 1e3,
      r.dram_bytes_read, r.dram_bytes_written, 100.0 * r.dram_bw_utilization, e.gops, e.gops_per_w);
  if (w.options.trace_layers)
    std::cout << fmt::format("(layers {} to {} only: --trace-layers)\n", w.options.trace_layers->first,
                             w.options.trace_layers->second);
  std::cout << kind_table(r);
  return 0;
}

int cmd_compare(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("compare options");
  d.add_options()("model", po::value<std::string>(), "model")(
      "archs", po::value<std::string>()->default_value(default_archs), "a,b,...")(
      "plot", po::value<std::string>(), "draw latency, energy per token and ratios as a PNG (matplotlib)")(
      "plot-log", po::bool_switch(), "--plot: the latency axis logarithmic (default: linear from zero)")(
      "baseline", po::value<std::string>(), "ratios against these architectures (default: sa,figlut)");
  add_jobs_option(d);
  auto [vm, s, w] = parse_workload_command(command, args, d);
  w.options.jobs = jobs_from(vm);
  const std::vector<ArchConfig> archs = archs_from(vm["archs"].as<std::string>(), s);
  const std::vector<std::string> baselines = baselines_from(vm, archs);
  const ModelConfig model = load_model(required(vm, command, "model"));
  std::vector<Report> reports = run_workload(archs, model, w);
  add_ratios(reports, baselines);
  write_outputs(s, reports, true);
  std::cout << fmt::format("{} {} on {} DRAM ({}; setting {}):\n", model.name, w.phase, archs.front().dram.preset,
                           enum_name(archs.front().systolic.weight_load), setting_name(archs.front()))
            << comparison_table(reports, baselines);
  // Where each architecture's time goes, by kind of operation, and what bounds it.
  std::cout << "time by kind of operation, ms (share; bound by):\n";
  std::size_t width = 14;
  for (const Report& r : reports) width = std::max(width, r.arch.size());
  for (const Report& r : reports) {
    std::string line = fmt::format("{:<{}}", r.arch, width);
    const nlohmann::json kinds = breakdown_by_kind(r);
    for (const auto& [kind, k] : kinds.items())
      line += fmt::format("  {} {:.3f} ({:.0f}%; {})", kind, k["seconds"].get<double>() * 1e3,
                          100.0 * k["share_of_seconds"].get<double>(), k["bound_by"].get<std::string>());
    std::cout << line << "\n";
  }
  return 0;
}

int cmd_e2e(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("e2e options");
  d.add_options()("model", po::value<std::string>(), "model")(
      "archs", po::value<std::string>()->default_value(default_archs), "a,b,...")("csv", po::value<std::string>(),
                                                                                  "write the reports as CSV")(
      "plot", po::value<std::string>(), "draw latency, energy per token and ratios as a PNG (matplotlib)")(
      "plot-log", po::bool_switch(), "--plot: the latency axis logarithmic (default: linear from zero)")(
      "baseline", po::value<std::string>(), "ratios against these architectures (default: sa,figlut)");
  add_e2e_options(d);
  add_kv_cache_option(d);
  add_sim_options(d);
  add_jobs_option(d);
  const auto vm = parse(command, args, d);
  SimOptions s = sim_options(vm);
  apply_kv_cache(vm, s);
  check_outputs(s);
  StudyOptions options;
  options.quiet = s.quiet;
  options.jobs = jobs_from(vm);
  const std::vector<Request> requests = e2e_requests(vm, options);
  const std::vector<ArchConfig> archs = archs_from(vm["archs"].as<std::string>(), s);
  const std::vector<std::string> baselines = baselines_from(vm, archs);
  const ModelConfig model = load_model(required(vm, command, "model"));
  std::vector<Report> reports = run_e2e(archs, model, requests, options);
  add_ratios(reports, baselines);
  write_outputs(s, reports, true);
  std::cout << fmt::format("{} end to end over {} requests ({} DRAM, {}; setting {}):\n", model.name, requests.size(),
                           archs.front().dram.preset, enum_name(archs.front().systolic.weight_load),
                           setting_name(archs.front()));
  std::size_t width = 14;
  for (const Report& r : reports) width = std::max(width, r.arch.size());
  std::cout << fmt::format("{:<{}} {:>16} {:>12} {:>16}\n", "arch", width, "mean_latency_s", "tokens/s", "mJ/token");
  for (const Report& r : reports)
    std::cout << fmt::format("{:<{}} {:>16.4f} {:>12.2f} {:>16.4f}\n", r.arch, width,
                             r.extra["mean_latency_s"].get<double>(), r.extra["tokens_per_s"].get<double>(),
                             efficiency(r).energy_per_token_j * 1e3);
  std::cout << comparison_table(reports, baselines);
  return 0;
}

int cmd_validate(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("validate options");
  d.add_options()("json", po::value<std::string>(), "write the checks as JSON")(
      "realistic-dram", po::value<std::string>()->default_value("lpddr5-6400"), "DRAM preset of the realistic setting")(
      "quiet", po::bool_switch(), "no progress on stderr");
  add_jobs_option(d);
  const auto vm = parse(command, args, d);
  std::optional<std::string> json;
  if (vm.count("json")) json = vm["json"].as<std::string>();
  check_output(json, "--json");
  ValidateOptions o;
  o.quiet = vm["quiet"].as<bool>();
  o.realistic_dram = vm["realistic-dram"].as<std::string>();
  o.jobs = jobs_from(vm);
  std::string table;
  const nlohmann::json checks = validate(o, table);
  if (json) write_file_atomic(*json, checks.dump(2) + "\n");
  std::cout << table;
  return 0;
}

}  // namespace eva
