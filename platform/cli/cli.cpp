#include "cli/cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <boost/program_options.hpp>

#include "cli/cli_common.hpp"
#include "common/describe.hpp"
#include "common/error.hpp"
#include "common/report_handler.hpp"
#include "common/vq_math.hpp"
#include "config/input_file.hpp"
#include "config/load_arch.hpp"
#include "config/npy.hpp"
#include "model_config.hpp"
#include "report/plot.hpp"
#include "report/report.hpp"
#include "study/pareto.hpp"
#include "study/sweep.hpp"
#include "vp/platform.hpp"
#include "vp/simulate.hpp"

namespace eva {

namespace {

const char* const usage = R"(eva-sim: a SystemC/TLM-2.0 virtual platform of the EVA accelerator and its baselines

usage: eva-sim <command> [options]

commands:
  list {archs|models|dram|datasets|sweeps}  built-in names
  config   --arch A                   print the effective architecture configuration
  describe --arch A                   the platform's module tree and socket bindings
  gemm     --arch A --m M --n N --k K one FC layer: M x K activations times K x N weights
  run      --arch A --model M         a whole model: --phase decode|prefill|e2e [--plot ROOFLINE.png]
  vq-gemv  --x X.npy --codebooks CB.npy --indices IDX.npy --out Y.npy
  pack     SPEC.yaml -o IMAGE [--manifest M.json]  .npy operands -> a memory image (--example DIR)
  compare  --model M [--archs a,b]    every architecture side by side
  e2e      --model M [--dataset dolly] end to end over a request trace
  sweep    SWEEP.yaml [--executor local|slurm] [-j N] [--out DIR] [--plot FILE.png]
  pareto   SWEEP.json [--objectives K:max,K:min] [--plot FILE.png]  a sweep's Pareto front
  validate                            the paper's headline figures, reproduced
  dram-bench --dram P --pattern seq|random|strided|mix

Every simulating command takes --dram PRESET and any number of --set key=value.
'eva-sim <command> --help' lists a command's options.
)";

bool wants_help(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

using Command = std::function<int(const std::string&, const std::vector<std::string>&)>;

int cmd_list(const std::string& command, const std::vector<std::string>& args) {
  if (args.size() != 1) throw InputError("list: expected one of archs, models, dram, datasets, sweeps");
  const std::string& what = args[0];
  if (what == "archs") {
    for (const auto& name : builtin_arch_names()) {
      ArchRequest req;
      req.arch = name;
      const ArchConfig c = load_arch(req);
      std::cout << fmt::format("{:<12} {}\n", name, c.description);
    }
  } else if (what == "models") {
    for (const auto& name : builtin_model_names()) {
      const ModelConfig m = load_model(name);
      std::cout << fmt::format("{:<14} {}\n", name, m.description);
    }
  } else if (what == "dram") {
    for (const auto& name : builtin_dram_names()) std::cout << name << "\n";
  } else if (what == "datasets") {
    for (const auto& name : builtin_dataset_names()) std::cout << name << "\n";
  } else if (what == "sweeps") {
    for (const auto& name : builtin_sweep_names()) {
      const SweepPlan plan = load_sweep(name);
      std::cout << fmt::format("{:<14} {} points of '{}'\n", name, plan.points(), plan.command);
    }
  } else {
    throw InputError(
        fmt::format("{}: unknown list '{}' (expected archs, models, dram, datasets or sweeps)", command, what));
  }
  return 0;
}

int cmd_config(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("config options");
  d.add_options()("arch", po::value<std::string>(), "architecture name or YAML file");
  add_sim_options(d);
  const auto vm = parse(command, args, d);
  const SimOptions s = sim_options(vm);
  std::cout << to_yaml(arch_from(vm, command, s)) << "\n";
  return 0;
}

int cmd_describe(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("describe options");
  d.add_options()("arch", po::value<std::string>(), "architecture name or YAML file");
  add_sim_options(d);
  const auto vm = parse(command, args, d);
  const SimOptions s = sim_options(vm);
  const ArchConfig arch = arch_from(vm, command, s);
  // Elaborated, never simulated: the tree and bindings as the kernel holds them.
  Platform platform("platform", arch);
  std::cout << fmt::format("{} on {}: modules, and every TLM socket with what it is bound to\n", arch.name,
                           arch.dram.preset)
            << describe_tree({&platform});
  return 0;
}

int cmd_gemm(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("gemm options");
  d.add_options()("arch", po::value<std::string>(), "architecture name or YAML file")(
      "m", po::value<std::string>(), "activation rows (batch)")("n", po::value<std::string>(), "output features")(
      "k", po::value<std::string>(), "input features")("csv", po::value<std::string>(), "write the report as CSV")(
      "functional", po::bool_switch(),
      "carry data: seeded random operands in the arch's formats, checked against a float64 reference")(
      "seed", po::value<std::string>()->default_value("1"), "seed of the random weights (--functional)");
  add_sim_options(d);
  const auto vm = parse(command, args, d);
  const SimOptions s = sim_options(vm);
  check_output(s.json, "--json");
  check_output(s.csv, "--csv");
  constexpr std::uint64_t max_dim = 1ull << 24;
  GemmShape shape;
  shape.m = positive("--m", required(vm, command, "m"), max_dim);
  shape.n = positive("--n", required(vm, command, "n"), max_dim);
  shape.k = positive("--k", required(vm, command, "k"), max_dim);
  const ArchConfig arch = arch_from(vm, command, s);
  Report r;
  if (vm["functional"].as<bool>()) {
    const std::uint64_t seed = positive("--seed", vm["seed"].as<std::string>(), ~0ull);
    if (shape.m * shape.k > (1ull << 28) || shape.k * shape.n > (1ull << 30))
      throw InputError("--functional: the shape is too large to hold in host memory (at most 2^30 weights)");
    if (arch.kind != ArchKind::eva && arch.kind != ArchKind::vq_conflict) {
      r = simulate_dense_functional(arch, shape, seed);
    } else {
      const VqFormat& f = arch.vq;
      if (shape.k % static_cast<std::uint64_t>(f.vector_dim))
        throw InputError(fmt::format("--k: {} is not a multiple of vq.vector_dim ({})", shape.k, f.vector_dim));
      const VqProblem p =
          random_vq_problem(shape.m, shape.k, shape.n, f.codebooks, f.index_bits, f.vector_dim,
                            static_cast<std::uint64_t>(f.group_k), static_cast<std::uint64_t>(f.group_n), 0.0, seed);
      const VqGemvResult v = simulate_vq_gemv(arch, p.w, p.x, p.m);
      r = v.report;
      r.phase = "gemm";
      r.functional = {{"seed", seed},
                      {"reference", "float64: weights dequantised from the codebooks, then x W"},
                      {"relative_l2_error", relative_l2_error(v.y, vq_reference(p.w, p.x, p.m))}};
    }
  } else {
    r = simulate_gemm(arch, shape);
  }
  write_outputs(s, {r}, false);
  std::cout << fmt::format(
      "{} gemm M={} N={} K={} ({}, {} DRAM, {:.1f} GB/s peak; setting {}): {} cycles, {:.3f} us; DRAM {} B read, "
      "{} B written, bandwidth utilisation {:.1f}%\n",
      r.arch, shape.m, shape.n, shape.k, enum_name(arch.systolic.weight_load), arch.dram.preset,
      arch.dram.peak_bytes_per_second() * 1e-9, setting_name(arch), r.cycles, r.seconds * 1e6, r.dram_bytes_read,
      r.dram_bytes_written, 100.0 * r.dram_bw_utilization);
  return 0;
}

int cmd_vq_gemv(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("vq-gemv options");
  d.add_options()("x", po::value<std::string>(), "activations: (M, K) or (K,) float16")(
      "codebooks", po::value<std::string>(), "codebooks: (C, 2^n, d) float16, or (G, C, 2^n, d) for grouped")(
      "indices", po::value<std::string>(), "indices: (C, K/d, N) integer")("out", po::value<std::string>(),
                                                                           "y: (M, N) or (N,) float32")(
      "arch", po::value<std::string>()->default_value("eva"), "eva|vq-conflict (or a YAML file)");
  add_sim_options(d);
  const auto vm = parse(command, args, d);
  const SimOptions s = sim_options(vm);
  const std::string out = required(vm, command, "out");
  check_output(std::optional<std::string>(out), "--out");
  check_output(s.json, "--json");
  const std::string xp = required(vm, command, "x"), cp = required(vm, command, "codebooks"),
                    ip = required(vm, command, "indices");
  const NpyArray x = read_npy(xp), cb = read_npy(cp), idx = read_npy(ip);
  if (!x.is_float16()) throw InputError(fmt::format("{}: dtype '{}': expected float16 ('<f2')", xp, x.dtype));
  if (!cb.is_float16()) throw InputError(fmt::format("{}: dtype '{}': expected float16 ('<f2')", cp, cb.dtype));
  if (!idx.is_integer()) throw InputError(fmt::format("{}: dtype '{}': expected an integer type", ip, idx.dtype));
  if (x.shape.empty() || x.shape.size() > 2)
    throw InputError(fmt::format("{}: shape of rank {}: expected (M, K) or (K,)", xp, x.shape.size()));
  const std::uint64_t m = x.shape.size() == 2 ? x.shape[0] : 1, k = x.shape.back();
  if (cb.shape.size() != 3 && cb.shape.size() != 4)
    throw InputError(fmt::format("{}: shape of rank {}: expected (C, 2^n, d) or (G, C, 2^n, d)", cp, cb.shape.size()));
  const bool grouped = cb.shape.size() == 4;
  const std::uint64_t groups = grouped ? cb.shape[0] : 1;
  const std::uint64_t c = cb.shape[cb.shape.size() - 3], e = cb.shape[cb.shape.size() - 2], dv = cb.shape.back();
  if (c == 0 || e < 2 || (e & (e - 1)) || e > 65536 || dv == 0 || dv > 64)
    throw InputError(
        fmt::format("{}: shape ({}): expected C >= 1 codebooks of 2^n (2 to 65536) entries of d (1 to 64) "
                    "elements",
                    cp, fmt::join(cb.shape, ", ")));
  if (m == 0 || k == 0 || k % dv)
    throw InputError(fmt::format("{}: K = {} is not a positive multiple of the codebooks' d = {} ({})", xp, k, dv, cp));
  if (idx.shape.size() != 3 || idx.shape[0] != c || idx.shape[1] != k / dv || idx.shape[2] == 0)
    throw InputError(fmt::format("{}: shape ({}): expected ({}, {}, N) for C = {} codebooks and K / d = {}", ip,
                                 fmt::join(idx.shape, ", "), c, k / dv, c, k / dv));
  ArchRequest req;
  req.arch = vm["arch"].as<std::string>();
  req.dram = s.dram;
  req.sets = s.arch_sets();
  ArchConfig arch = loaded_arch(req);
  VqMatrix w;
  w.k = k;
  w.n = idx.shape[2];
  w.codebooks = static_cast<int>(c);
  w.d = static_cast<int>(dv);
  int bits = 0;
  while ((1ull << bits) < e) ++bits;
  w.index_bits = bits;
  if (grouped) {
    if (!arch.vq.group_k || !arch.vq.group_n)
      throw InputError(
          fmt::format("{}: grouped codebooks need an architecture with vq.group_k and vq.group_n (eva-gptvq)", cp));
    w.group_k = static_cast<std::uint64_t>(arch.vq.group_k);
    w.group_n = static_cast<std::uint64_t>(arch.vq.group_n);
    if (groups != w.groups_k() * w.groups_n())
      throw InputError(fmt::format("{}: {} codebook groups: expected {} x {} for K = {}, N = {} in {} x {} groups", cp,
                                   groups, w.groups_k(), w.groups_n(), k, w.n, w.group_k, w.group_n));
    if (w.group_k % dv) throw InputError(fmt::format("vq.group_k = {} is not a multiple of d = {}", w.group_k, dv));
  }
  // The files define the format; the architecture supplies the hardware.
  arch.vq.codebooks = w.codebooks;
  arch.vq.index_bits = w.index_bits;
  arch.vq.vector_dim = w.d;
  arch.vq.group_k = static_cast<int>(w.group_k);
  arch.vq.group_n = static_cast<int>(w.group_n);
  w.centroids.resize(cb.count());
  for (std::uint64_t i = 0; i < cb.count(); ++i) w.centroids[i] = cb.half(i);
  w.index.resize(idx.count());
  for (std::uint64_t i = 0; i < idx.count(); ++i) {
    const std::int64_t v = idx.integer(i);
    if (v < 0 || static_cast<std::uint64_t>(v) >= e) {
      const std::uint64_t per_c = idx.shape[1] * idx.shape[2];
      throw InputError(fmt::format("{}: index {} at ({}, {}, {}) is out of range [0, {})", ip, v, i / per_c,
                                   (i % per_c) / idx.shape[2], i % idx.shape[2], e));
    }
    w.index[i] = static_cast<std::uint32_t>(v);
  }
  std::vector<half_bits> xs(x.count());
  for (std::uint64_t i = 0; i < x.count(); ++i) xs[i] = x.half(i);
  const VqGemvResult r = simulate_vq_gemv(arch, w, xs, m);
  std::vector<std::uint64_t> shape =
      x.shape.size() == 2 ? std::vector<std::uint64_t>{m, w.n} : std::vector<std::uint64_t>{w.n};
  write_file_atomic(out, npy_float32(shape, r.y));
  if (s.json) write_file_atomic(*s.json, to_json(r.report).dump(2) + "\n");
  std::cout << fmt::format("{} vq-gemv M={} K={} N={} ({}x{}, d={}{}): {} cycles, {:.3f} us; wrote {}\n", r.report.arch,
                           m, k, w.n, c, bits, dv, grouped ? ", grouped" : "", r.report.cycles, r.report.seconds * 1e6,
                           out);
  return 0;
}

// The summary table of a sweep's rows: the swept values and headline figures.
std::string sweep_table(const SweepPlan& plan, const std::vector<nlohmann::ordered_json>& rows) {
  std::vector<std::string> columns = {"point"};
  for (const SweepAxis& a : plan.axes) columns.push_back(a.key);
  for (const char* key : {"arch", "seconds", "tokens_per_s", "energy_per_token_j", "energy_j", "area_mm2",
                          "bandwidth_gbps", "latency_ns_mean"})
    if (!rows.empty() && rows.front().contains(key) && std::find(columns.begin(), columns.end(), key) == columns.end())
      columns.push_back(key);
  // Ratio columns (--baseline), wherever a row has them.
  for (const nlohmann::ordered_json& row : rows)
    for (const auto& [key, value] : row.items())
      if ((key.rfind("speedup_vs_", 0) == 0 || key.rfind("energy_efficiency_vs_", 0) == 0) &&
          std::find(columns.begin(), columns.end(), key) == columns.end())
        columns.push_back(key);
  if (!rows.empty() && rows.front().contains("pareto")) columns.push_back("pareto");
  std::string out;
  for (const std::string& c : columns) out += fmt::format("{:>16} ", c);
  out += "\n";
  for (const nlohmann::ordered_json& row : rows) {
    for (const std::string& c : columns) {
      const auto v = row.find(c);
      out += v == row.end()         ? fmt::format("{:>16} ", "")
             : v->is_number_float() ? fmt::format("{:>16.6g} ", v->get<double>())
             : v->is_boolean()      ? fmt::format("{:>16} ", v->get<bool>() ? "*" : "")
                                    : fmt::format("{:>16} ", v->is_string() ? v->get<std::string>() : v->dump());
    }
    out += "\n";
  }
  return out;
}

// A row's label on a plot: the values of its point that tell it apart (the
// first key of each dimension, without its dotted prefix) and its
// architecture when the rows have several.
std::string row_label(const std::vector<std::string>& keys, const nlohmann::ordered_json& values,
                      const nlohmann::ordered_json& row, bool with_arch) {
  std::string label;
  for (const std::string& key : keys) {
    if (!values.contains(key)) continue;
    const auto& v = values[key];
    label += fmt::format("{}{}={}", label.empty() ? "" : " ", key.substr(key.rfind('.') + 1),
                         v.is_string() ? v.get<std::string>() : v.dump());
  }
  if (with_arch && row.contains("arch") && row["arch"].is_string())
    label += (label.empty() ? "" : " ") + row["arch"].get<std::string>();
  return label;
}

// The front of a sweep.json's rows over `objectives`: prints it, and draws
// it into `plot` when given.
void pareto_of(const nlohmann::ordered_json& index, const std::vector<Objective>& objectives,
               const std::optional<std::string>& python, const std::string& plot, const std::string& where) {
  std::vector<nlohmann::ordered_json> rows;
  std::vector<std::string> labels;
  std::vector<std::string> keys;  // one per dimension, or every swept key
  std::set<std::uint64_t> dimensions;
  if (index.contains("axes") && index["axes"].is_array()) {
    for (const auto& a : index["axes"])
      if (a.contains("key") && a["key"].is_string() && a.contains("dimension") && a["dimension"].is_number_unsigned() &&
          dimensions.insert(a["dimension"].get<std::uint64_t>()).second)
        keys.push_back(a["key"].get<std::string>());
  } else if (!index["points"].empty()) {
    for (const auto& [key, value] : index["points"][0]["values"].items()) keys.push_back(key);
  }
  std::set<std::string> archs;
  for (const auto& point : index["points"])
    for (const auto& row : point["rows"])
      if (row.contains("arch")) archs.insert(row["arch"].dump());
  for (const auto& point : index["points"]) {
    for (const auto& row : point["rows"]) {
      rows.push_back(row);
      labels.push_back(row_label(keys, point["values"], row, archs.size() > 1));
    }
  }
  const std::optional<std::vector<bool>> front = pareto_front(rows, objectives);
  if (!front)
    throw InputError(fmt::format("{}: no row has every objective ({})", where, objectives_json(objectives).dump()));
  std::string table = fmt::format("Pareto front over {} ({} of {} rows):\n", objectives_json(objectives).dump(),
                                  std::count(front->begin(), front->end(), true), rows.size());
  table += fmt::format("{:>8} ", "point");
  for (const Objective& o : objectives) table += fmt::format("{:>20} ", o.key);
  table += " values\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!(*front)[r]) continue;
    table += fmt::format("{:>8} ", rows[r]["point"].dump());
    for (const Objective& o : objectives) table += fmt::format("{:>20.6g} ", rows[r][o.key].get<double>());
    table += " " + labels[r] + "\n";
  }
  std::cout << table;
  if (python) {
    write_pareto_plot(*python, plot, rows, *front, labels, objectives,
                      fmt::format("{}: Pareto front", index.value("sweep", std::string("sweep"))));
    std::cout << fmt::format("wrote {}\n", plot);
  }
}

int cmd_sweep(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("sweep options");
  d.add_options()("file", po::value<std::string>(), "SWEEP.yaml, or a built-in sweep (eva-sim list sweeps)")(
      "executor", po::value<std::string>()->default_value("local"), "local|slurm")(
      "jobs,j", po::value<std::string>(), "local: points run at once (default: the cores); slurm: tasks at once")(
      "out", po::value<std::string>()->default_value("sweep-out"), "output directory (created if missing)")(
      "retry-failed", po::bool_switch(), "rerun the points that failed before (missing points always run)")(
      "keep-going", po::bool_switch(), "local: keep starting points after one fails (slurm runs them all)")(
      "baseline", po::value<std::string>(),
      "ratio columns (speedup_vs_B, energy_efficiency_vs_B) against these architectures, a,b,...")(
      "force", po::bool_switch(), "take over an output directory written by a different sweep")(
      "plot", po::value<std::string>(), "draw the Pareto front into FILE.png")(
      "objectives", po::value<std::string>(),
      "Pareto objectives (default tokens_per_s:max,energy_per_token_j:min,"
      "area_mm2:min)")("partition", po::value<std::string>(), "slurm: sbatch --partition")(
      "time", po::value<std::string>(), "slurm: sbatch --time, per task")(
      "sbatch-option", po::value<std::vector<std::string>>(), "slurm: an option passed to sbatch as it is (repeat)")(
      "points-per-task", po::value<std::string>(), "slurm: points one array task runs (default 1)")(
      "program", po::value<std::string>(), "slurm: eva-sim's path on the nodes (default: this executable)")(
      "quiet", po::bool_switch(), "no progress on stderr");
  po::positional_options_description pos;
  pos.add("file", 1);
  const auto vm = parse(command, args, d, pos);
  const SweepPlan plan = load_sweep(required(vm, command, "file"));
  SweepOptions o;
  o.out = vm["out"].as<std::string>();
  if (o.out.empty()) throw InputError("--out: expected a directory name");
  const std::string executor = vm["executor"].as<std::string>();
  if (executor == "slurm")
    o.executor = Executor::slurm;
  else if (executor != "local")
    throw InputError(fmt::format("--executor: expected local or slurm, got '{}'", executor));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (vm.count("jobs"))
    o.jobs = static_cast<unsigned>(positive("--jobs", vm["jobs"].as<std::string>(), 100000));
  else
    o.jobs = o.executor == Executor::local ? cores : 0;  // slurm: as many as the cluster gives
  o.quiet = vm["quiet"].as<bool>();
  o.retry_failed = vm["retry-failed"].as<bool>();
  o.keep_going = vm["keep-going"].as<bool>();
  o.force = vm["force"].as<bool>();
  if (vm.count("baseline")) {
    // Each must be an architecture of the plan when the plan names them all.
    const std::vector<std::string> names = plan_arch_names(plan);
    for (const std::string& b : comma_items(vm["baseline"].as<std::string>())) {
      if (b.empty()) throw InputError("--baseline: expected architecture names, a,b,...");
      if (!names.empty() && std::find(names.begin(), names.end(), b) == names.end())
        throw InputError(fmt::format("--baseline {}: not an architecture of this sweep (its points run {})", b,
                                     fmt::join(names, ", ")));
      o.baselines.push_back(b);
    }
    if (o.baselines.empty()) throw InputError("--baseline: expected architecture names, a,b,...");
  }
  o.slurm = plan.slurm;
  if (vm.count("partition")) o.slurm.partition = vm["partition"].as<std::string>();
  if (vm.count("time")) o.slurm.time = vm["time"].as<std::string>();
  if (vm.count("sbatch-option")) {
    for (const std::string& opt : vm["sbatch-option"].as<std::vector<std::string>>()) {
      if (opt.rfind("-", 0) != 0)
        throw InputError(fmt::format("--sbatch-option: '{}' is not an option (expected --name=value)", opt));
      o.slurm.sbatch_options.push_back(opt);
    }
  }
  if (vm.count("points-per-task"))
    o.slurm.points_per_task = positive("--points-per-task", vm["points-per-task"].as<std::string>(), 999999);
  if (vm.count("program")) o.slurm.program = vm["program"].as<std::string>();
  if (o.executor == Executor::local) {
    for (const char* slurm_only : {"partition", "time", "sbatch-option", "points-per-task", "program"})
      if (vm.count(slurm_only)) throw InputError(fmt::format("--{}: only for --executor slurm", slurm_only));
  }
  const std::vector<Objective> objectives =
      vm.count("objectives") ? parse_objectives(vm["objectives"].as<std::string>()) : default_objectives();
  std::optional<std::string> python;
  if (vm.count("plot")) {  // before the sweep: a missing package or directory costs no run
    check_output(vm["plot"].as<std::string>(), "--plot");
    python = plot_python();
  }
  std::error_code ec;
  o.program = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw std::runtime_error("sweep: cannot find the eva-sim executable (/proc/self/exe)");
  const SweepResult result = run_sweep(plan, o);
  std::cout << fmt::format(
                   "sweep {}: {} points of '{}' ({}: {} run now, {} kept from before, {} failed{}), {} rows; wrote "
                   "{}/sweep.csv and {}/sweep.json\n",
                   plan.source, plan.points(), plan.command, executor, result.ran - result.not_run, result.kept,
                   result.failed.size(),
                   result.not_run
                       ? fmt::format(", {} not run (stopped at the failure; --keep-going runs them)", result.not_run)
                       : "",
                   result.rows.size(), o.out, o.out)
            << sweep_table(plan, result.rows);
  for (const FailedPoint& f : result.failed)
    std::cout << fmt::format("failed: point {} ({}): {}\n", f.point, plan.describe(f.point), f.message);
  if (python && !result.rows.empty()) {
    pareto_of(result.index, objectives, python, vm["plot"].as<std::string>(), o.out + "/sweep.json");
  }
  if (!result.failed.empty()) {
    const FailedPoint& f = result.failed.front();
    const bool all_input =
        std::all_of(result.failed.begin(), result.failed.end(), [](const FailedPoint& p) { return p.status == 2; });
    std::string what = fmt::format("{}: point {} ({}): {}", plan.source, f.point, plan.describe(f.point), f.message);
    if (result.failed.size() > 1)
      what += fmt::format(" (and {} more failed points, listed in {}/sweep.json)", result.failed.size() - 1, o.out);
    if (all_input) throw InputError(what);
    throw std::runtime_error(what);
  }
  return 0;
}

int cmd_pareto(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("pareto options");
  d.add_options()("file", po::value<std::string>(), "a sweep's sweep.json")(
      "objectives", po::value<std::string>(),
      "KEY:max|min,... (default tokens_per_s:max,energy_per_token_j:min,"
      "area_mm2:min)")("plot", po::value<std::string>(), "draw the front into FILE.png");
  po::positional_options_description pos;
  pos.add("file", 1);
  const auto vm = parse(command, args, d, pos);
  const std::string file = required(vm, command, "file");
  const std::vector<Objective> objectives =
      vm.count("objectives") ? parse_objectives(vm["objectives"].as<std::string>()) : default_objectives();
  std::optional<std::string> python;
  if (vm.count("plot")) {
    check_output(vm["plot"].as<std::string>(), "--plot");
    python = plot_python();
  }
  const auto index = nlohmann::ordered_json::parse(read_input_file(file), nullptr, false);
  if (index.is_discarded() || !index.is_object() || !index.contains("points") || !index["points"].is_array())
    throw InputError(fmt::format("{}: not a sweep.json (expected an object with a list of points)", file));
  for (const auto& point : index["points"])
    if (!point.is_object() || !point.contains("rows") || !point["rows"].is_array() || !point.contains("values") ||
        !point["values"].is_object())
      throw InputError(fmt::format("{}: a point without values and rows", file));
  pareto_of(index, objectives, python, python ? vm["plot"].as<std::string>() : "", file);
  return 0;
}

int cmd_dram_bench(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("dram-bench options");
  d.add_options()("pattern", po::value<std::string>(), "seq|random|strided|mix")(
      "bytes", po::value<std::string>()->default_value("8388608"), "bytes to move")(
      "request-bytes", po::value<std::string>()->default_value("64"), "bytes per request")(
      "outstanding", po::value<std::string>()->default_value("128"), "requests in flight")(
      "stride", po::value<std::string>()->default_value("4096"), "strided: bytes between requests")(
      "span", po::value<std::string>()->default_value("1073741824"), "random/strided/mix: address range, bytes")(
      "seed", po::value<std::string>()->default_value("1"), "random: seed");
  add_sim_options(d);
  const auto vm = parse(command, args, d);
  const SimOptions s = sim_options(vm);
  check_output(s.json, "--json");
  TrafficConfig t;
  const std::string pattern = required(vm, command, "pattern");
  static const std::map<std::string, TrafficPattern> patterns = {{"seq", TrafficPattern::seq},
                                                                 {"random", TrafficPattern::random},
                                                                 {"strided", TrafficPattern::strided},
                                                                 {"mix", TrafficPattern::mix}};
  const auto p = patterns.find(pattern);
  if (p == patterns.end())
    throw InputError(fmt::format("--pattern: expected seq, random, strided or mix, got '{}'", pattern));
  t.pattern = p->second;
  t.request_bytes = positive("--request-bytes", vm["request-bytes"].as<std::string>(), 1 << 20);
  t.bytes = positive("--bytes", vm["bytes"].as<std::string>(), 1ull << 40);
  if (t.bytes < t.request_bytes) throw InputError("--bytes: expected at least --request-bytes");
  t.outstanding = positive("--outstanding", vm["outstanding"].as<std::string>(), 1 << 16);
  t.stride = positive("--stride", vm["stride"].as<std::string>(), 1ull << 40);
  t.span = positive("--span", vm["span"].as<std::string>(), 1ull << 50);
  if (t.span < 2 * t.request_bytes) throw InputError("--span: expected at least two requests' worth of bytes");
  t.seed = positive("--seed", vm["seed"].as<std::string>(), ~0ull);
  SimConfig sim;
  const DramConfig dram = load_dram(s.dram, s.sets, sim);
  const nlohmann::json r = simulate_dram_bench(dram, t, sim);
  if (s.json) write_file_atomic(*s.json, r.dump(2) + "\n");
  std::cout << fmt::format(
      "{} {}: {:.2f} GB/s of {:.2f} peak ({:.1f}%), latency mean {:.1f} ns, p99 {:.1f} ns; {} requests, {:.2f} M "
      "transactions per wall-clock second\n",
      r["dram"].get<std::string>(), pattern, r["bandwidth_gbps"].get<double>(), r["peak_gbps"].get<double>(),
      100.0 * r["efficiency"].get<double>(), r["latency_ns_mean"].get<double>(), r["latency_ns_p99"].get<double>(),
      r["requests"].get<std::uint64_t>(), r["transactions_per_wall_s"].get<double>() * 1e-6);
  return 0;
}

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table = {
      {"list", cmd_list},    {"config", cmd_config},   {"describe", cmd_describe}, {"gemm", cmd_gemm},
      {"run", cmd_run},      {"compare", cmd_compare}, {"e2e", cmd_e2e},           {"vq-gemv", cmd_vq_gemv},
      {"pack", cmd_pack},    {"sweep", cmd_sweep},     {"validate", cmd_validate}, {"dram-bench", cmd_dram_bench},
      {"pareto", cmd_pareto}};
  return table;
}

}  // namespace

int cli_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) throw InputError("missing command (see eva-sim --help)");
    const std::string command = args.front();
    args.erase(args.begin());
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << usage;
      return 0;
    }
    if (command == "--version") {
      std::cout << "eva-sim " << EVA_VERSION << "\n";
      return 0;
    }
    const auto it = commands().find(command);
    if (it == commands().end()) throw InputError(fmt::format("unknown command '{}' (see eva-sim --help)", command));
    if (command == "list" && wants_help(args)) {
      std::cout << "usage: eva-sim list {archs|models|dram|datasets|sweeps}\n";
      return 0;
    }
    SystemcReports::install();
    return it->second(command, args);
  } catch (const HelpShown&) {
    return 0;
  } catch (const InputError& e) {
    std::cerr << "eva-sim: " << e.what() << "\n";
    return 2;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "eva-sim: internal error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "eva-sim: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace eva
