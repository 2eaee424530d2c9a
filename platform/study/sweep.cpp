#include "study/sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.hpp"
#include "config/builtin_files.hpp"
#include "config/input_file.hpp"
#include "config/load_arch.hpp"
#include "process/process.hpp"
#include "report/report.hpp"
#include "study/progress.hpp"

namespace eva {

namespace {

// The commands a sweep can run: those that simulate and write one JSON report.
const std::set<std::string> sweepable = {"run", "gemm", "compare", "e2e", "dram-bench"};
// Options the sweep sets itself, or that write files of their own.
const std::set<std::string> reserved = {"json", "csv", "quiet", "help", "set", "trace", "plot"};
constexpr std::uint64_t max_points = 100000;
const std::string sweep_dir = "platform/configs/sweeps/";

struct Reader {
  std::string source;

  std::string at(const YAML::Node& n) const {
    return n.Mark().is_null() ? source : fmt::format("{}:{}", source, n.Mark().line + 1);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& what) const {
    throw InputError(fmt::format("{}: {}", at(n), what));
  }
  // Names and values reach the sweep's JSON: they must be UTF-8 (the YAML
  // reader can make other bytes of escapes and stray control characters).
  const std::string& text(const YAML::Node& n, const std::string& what) const {
    if (invalid_utf8_at(n.Scalar())) fail(n, fmt::format("{}: not UTF-8 text", what));
    return n.Scalar();
  }
  std::string key_of(const YAML::Node& k) const {
    if (!k.IsScalar()) fail(k, "expected a name as the key");
    return text(k, "a key");
  }
  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar() || n.Scalar().empty()) fail(n, fmt::format("{}: expected a value", key));
    return text(n, key);
  }
  // A mapping of names to single values.
  std::vector<std::pair<std::string, std::string>> values(const YAML::Node& n, const std::string& key) const {
    if (!n.IsMap()) fail(n, fmt::format("{}: expected a mapping of names to values", key));
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& kv : n) {
      const std::string name = key_of(kv.first);
      out.emplace_back(name, scalar(kv.second, key + "." + name));
    }
    return out;
  }
  // A mapping of names to non-empty lists of values.
  void axes(const YAML::Node& n, const std::string& key, bool is_set, std::vector<SweepAxis>& out) const {
    if (!n.IsMap()) fail(n, fmt::format("{}: expected a mapping of names to lists of values", key));
    for (const auto& kv : n) {
      SweepAxis a;
      a.is_set = is_set;
      a.key = key_of(kv.first);
      const std::string where = key + "." + a.key;
      if (!kv.second.IsSequence() || kv.second.size() == 0)
        fail(kv.second, fmt::format("{}: expected a non-empty list of values", where));
      for (const auto& v : kv.second) a.values.push_back(scalar(v, where));
      out.push_back(std::move(a));
    }
  }
  SlurmSettings slurm(const YAML::Node& n) const {
    if (!n.IsMap()) fail(n, "slurm: expected a mapping with partition, time, options, points_per_task, program");
    SlurmSettings out;
    for (const auto& kv : n) {
      const std::string key = key_of(kv.first);
      const std::string where = "slurm." + key;
      if (key == "partition") {
        out.partition = scalar(kv.second, where);
      } else if (key == "time") {
        out.time = scalar(kv.second, where);
      } else if (key == "program") {
        out.program = scalar(kv.second, where);
      } else if (key == "points_per_task") {
        const std::string v = scalar(kv.second, where);
        if (v.find_first_not_of("0123456789") != std::string::npos || v.size() > 6 || std::stoul(v) == 0)
          fail(kv.second, fmt::format("{}: expected an integer >= 1 and <= 999999, got '{}'", where, v));
        out.points_per_task = std::stoul(v);
      } else if (key == "options") {
        if (!kv.second.IsSequence()) fail(kv.second, where + ": expected a list of sbatch options");
        for (const auto& o : kv.second) {
          const std::string v = scalar(o, where);
          if (v.rfind("-", 0) != 0) fail(o, fmt::format("{}: '{}' is not an option (expected --name=value)", where, v));
          out.sbatch_options.push_back(v);
        }
      } else {
        fail(kv.first, fmt::format("slurm: unknown key '{}' (expected partition, time, options, points_per_task, "
                                   "program)",
                                   key));
      }
    }
    return out;
  }
  void check_option(const YAML::Node& at_node, const std::string& key, const std::string& name) const {
    if (name.empty() || name.front() == '-')
      fail(at_node, fmt::format("{}: '{}': write option names without dashes", key, name));
    if (reserved.count(name))
      fail(at_node, fmt::format("{}: '{}' is set by the sweep itself (each point writes point-N.json; use set: for "
                                "--set)",
                                key, name));
  }
};

// A swept value as JSON: a number where it reads as one, else the text.
nlohmann::ordered_json typed(const std::string& v) {
  const auto j = nlohmann::ordered_json::parse(v, nullptr, false);
  return !j.is_discarded() && j.is_number() ? j : nlohmann::ordered_json(v);
}

bool is_switch_value(const std::string& v) { return v == "true" || v == "false"; }

void add_option(std::vector<std::string>& args, const std::string& name, const std::string& value) {
  if (is_switch_value(value)) {  // a switch: present or absent
    if (value == "true") args.push_back("--" + name);
    return;
  }
  args.push_back("--" + name);
  args.push_back(value);
}

}  // namespace

std::uint64_t SweepPlan::points() const {
  std::uint64_t n = 1;
  for (const std::size_t d : dimensions) n *= d;
  return n;
}

std::vector<std::string> SweepPlan::values(std::uint64_t i) const {
  std::vector<std::size_t> at(dimensions.size());
  for (std::size_t d = dimensions.size(); d-- > 0;) {
    at[d] = i % dimensions[d];
    i /= dimensions[d];
  }
  std::vector<std::string> out(axes.size());
  for (std::size_t a = 0; a < axes.size(); ++a) out[a] = axes[a].values[at[axes[a].dimension]];
  return out;
}

std::vector<std::string> SweepPlan::arguments(std::uint64_t i) const {
  const std::vector<std::string> v = values(i);
  std::vector<std::string> args = {command};
  // The sweep runs points side by side: one process each unless told otherwise.
  const bool shares = command == "compare" || command == "e2e";
  const bool jobs_given =
      std::any_of(options.begin(), options.end(), [](const auto& o) { return o.first == "jobs"; }) ||
      std::any_of(axes.begin(), axes.end(), [](const SweepAxis& a) { return !a.is_set && a.key == "jobs"; });
  if (shares && !jobs_given) args.insert(args.end(), {"--jobs", "1"});
  for (const auto& [name, value] : options) add_option(args, name, value);
  for (std::size_t a = 0; a < axes.size(); ++a)
    if (!axes[a].is_set) add_option(args, axes[a].key, v[a]);
  for (const auto& [key, value] : sets) args.insert(args.end(), {"--set", key + "=" + value});
  for (std::size_t a = 0; a < axes.size(); ++a)
    if (axes[a].is_set) args.insert(args.end(), {"--set", axes[a].key + "=" + v[a]});
  return args;
}

std::string SweepPlan::describe(std::uint64_t i) const {
  const std::vector<std::string> v = values(i);
  std::string out;
  for (std::size_t a = 0; a < axes.size(); ++a) out += fmt::format("{}{}={}", a ? " " : "", axes[a].key, v[a]);
  return out;
}

nlohmann::ordered_json SweepPlan::identity() const {
  const auto pairs = [](const std::vector<std::pair<std::string, std::string>>& v) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& [k, x] : v) out.push_back({k, x});
    return out;
  };
  nlohmann::ordered_json axes_json = nlohmann::ordered_json::array();
  for (const SweepAxis& a : axes)
    axes_json.push_back({{"set", a.is_set}, {"key", a.key}, {"values", a.values}, {"dimension", a.dimension}});
  return {{"command", command}, {"options", pairs(options)}, {"set", pairs(sets)}, {"axes", axes_json}};
}

std::vector<std::string> builtin_sweep_names() { return builtin_names(sweep_dir, ".yaml"); }

SweepPlan load_sweep(const std::string& path) {
  std::string text;
  if (std::ifstream(path).good() || std::filesystem::is_directory(path)) {
    text = read_input_file(path);
  } else if (const auto it = builtin_files().find(sweep_dir + path + ".yaml");
             path.find('/') == std::string::npos && it != builtin_files().end()) {
    text = std::string(it->second);
  } else {
    throw InputError(fmt::format("{}: cannot open file (nor is it a built-in sweep: {})", path,
                                 fmt::join(builtin_sweep_names(), ", ")));
  }
  Reader r{path};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}: malformed YAML: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) r.fail(root, "expected a mapping with command, options, set and vary");
  SweepPlan plan;
  plan.source = path;
  YAML::Node vary;
  bool has_vary = false;
  std::optional<std::pair<std::string, YAML::Node>> setting;
  for (const auto& kv : root) {
    const std::string key = r.key_of(kv.first);
    if (key == "command") {
      plan.command = r.scalar(kv.second, key);
      if (!sweepable.count(plan.command))
        r.fail(kv.second,
               fmt::format("command: expected one of run, gemm, compare, e2e, dram-bench, got '{}'", plan.command));
    } else if (key == "options") {
      plan.options = r.values(kv.second, key);
      for (const auto& o : plan.options) r.check_option(kv.second, key, o.first);
    } else if (key == "set") {
      plan.sets = r.values(kv.second, key);
    } else if (key == "setting") {
      // The named setting of every point (paper or realistic), as --setting.
      const std::string name = r.scalar(kv.second, key);
      if (!find_setting(name)) r.fail(kv.second, fmt::format("setting: expected {}, got '{}'", setting_choices, name));
      setting = std::pair{name, kv.second};
    } else if (key == "vary") {
      vary = kv.second;
      has_vary = true;
    } else if (key == "slurm") {
      plan.slurm = r.slurm(kv.second);
    } else {
      r.fail(kv.first, fmt::format("unknown key '{}' (expected command, options, set, setting, vary, slurm)", key));
    }
  }
  if (setting) {
    for (const auto& o : plan.options)
      if (o.first == "setting") r.fail(setting->second, "setting: given twice (here and under options)");
    plan.options.emplace_back("setting", setting->first);
  }
  if (plan.command.empty()) r.fail(root, "command: missing (run, gemm, compare, e2e or dram-bench)");
  if (!has_vary) r.fail(root, "vary: missing (the values to sweep, under vary.set or vary.options)");
  if (!vary.IsMap()) r.fail(vary, "vary: expected a mapping with set and/or options");
  // Each axis is a dimension of its own, except that the axes of one
  // `together` group share one (and so need lists of one length).
  const auto add_axes = [&](const YAML::Node& node, const std::string& where, bool is_set, bool grouped) {
    const std::size_t before = plan.axes.size();
    r.axes(node, where, is_set, plan.axes);
    for (std::size_t a = before; a < plan.axes.size(); ++a) {
      if (!is_set) r.check_option(node, where, plan.axes[a].key);
      if (!grouped) {
        plan.axes[a].dimension = plan.dimensions.size();
        plan.dimensions.push_back(plan.axes[a].values.size());
      } else if (plan.axes[a].values.size() != plan.dimensions.back()) {
        r.fail(node, fmt::format("{}.{}: {} values, but the group's first key has {} (keys that move together "
                                 "need lists of one length)",
                                 where, plan.axes[a].key, plan.axes[a].values.size(), plan.dimensions.back()));
      } else {
        plan.axes[a].dimension = plan.dimensions.size() - 1;
      }
    }
  };
  for (const auto& kv : vary) {
    const std::string key = r.key_of(kv.first);
    if (key == "set" || key == "options") {
      add_axes(kv.second, "vary." + key, key == "set", false);
    } else if (key == "together" || key == "linked") {
      // `together`: a list of groups; `linked`: one group, written as a mapping.
      std::vector<std::pair<YAML::Node, std::string>> groups;
      if (key == "linked") {
        groups.emplace_back(kv.second, "vary.linked");
      } else {
        if (!kv.second.IsSequence() || kv.second.size() == 0)
          r.fail(kv.second, "vary.together: expected a list of groups, each with set and/or options");
        for (std::size_t g = 0; g < kv.second.size(); ++g)
          groups.emplace_back(kv.second[g], fmt::format("vary.together[{}]", g));
      }
      for (const auto& [group, where] : groups) {
        if (!group.IsMap() || group.size() == 0) r.fail(group, where + ": expected a mapping with set and/or options");
        bool first = true;
        for (const auto& part : group) {
          const std::string name = r.key_of(part.first);
          if (name != "set" && name != "options")
            r.fail(part.first, fmt::format("{}: unknown key '{}' (expected set, options)", where, name));
          if (first) {  // the group's dimension, sized by its first key
            if (!part.second.IsMap() || part.second.size() == 0)
              r.fail(part.second, fmt::format("{}.{}: expected a mapping of names to lists of values", where, name));
            const YAML::Node first_list = part.second.begin()->second;
            plan.dimensions.push_back(first_list.IsSequence() ? first_list.size() : 0);
            first = false;
          }
          add_axes(part.second, where + "." + name, name == "set", true);
        }
      }
    } else {
      r.fail(kv.first, fmt::format("vary: unknown key '{}' (expected set, options, together, linked)", key));
    }
  }
  if (plan.axes.empty()) r.fail(vary, "vary: nothing to sweep");
  // A name swept and fixed, or swept twice, would leave a point ambiguous.
  std::set<std::string> fixed_sets, fixed_options, swept;
  for (const auto& s : plan.sets) fixed_sets.insert(s.first);
  for (const auto& o : plan.options) fixed_options.insert(o.first);
  for (const SweepAxis& a : plan.axes) {
    if ((a.is_set ? fixed_sets : fixed_options).count(a.key))
      r.fail(vary, fmt::format("vary: '{}' is also fixed under {}", a.key, a.is_set ? "set" : "options"));
    if (!swept.insert((a.is_set ? "set " : "option ") + a.key).second)
      r.fail(vary, fmt::format("vary: '{}' is swept twice", a.key));
  }
  std::uint64_t n = 1;
  for (const std::size_t d : plan.dimensions) {
    n *= d;
    if (n > max_points) r.fail(vary, fmt::format("vary: more than {} points", max_points));
  }
  return plan;
}

nlohmann::ordered_json sweep_values(const SweepPlan& plan, std::uint64_t point) {
  const std::vector<std::string> v = plan.values(point);
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (std::size_t a = 0; a < plan.axes.size(); ++a) values[plan.axes[a].key] = typed(v[a]);
  return values;
}

namespace {

bool names_arch(const std::string& key) { return key == "arch" || key == "archs"; }

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (const char c : s + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(item);
      item.clear();
    }
  }
  return out;
}

}  // namespace

std::size_t add_baseline_ratios(std::vector<nlohmann::ordered_json>& rows, const SweepPlan& plan,
                                const std::string& baseline) {
  // A row's identity: its swept values but the architecture's.
  const auto identity = [&](const nlohmann::ordered_json& row) {
    nlohmann::ordered_json id = nlohmann::ordered_json::array();
    for (const SweepAxis& a : plan.axes)
      if (a.is_set || !names_arch(a.key)) id.push_back(row.contains(a.key) ? row[a.key] : nlohmann::ordered_json());
    return id.dump();
  };
  std::map<std::string, std::size_t> base;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (rows[r].contains("arch") && rows[r]["arch"] == baseline) base.emplace(identity(rows[r]), r);
  const auto number = [](const nlohmann::ordered_json& row, const char* key) {
    return row.contains(key) && row[key].is_number() ? row[key].get<double>() : 0.0;
  };
  std::size_t found = 0;
  for (nlohmann::ordered_json& row : rows) {
    const auto b = base.find(identity(row));
    if (b == base.end()) continue;
    ++found;
    const nlohmann::ordered_json& ref = rows[b->second];
    const double s = number(row, "seconds"), e = number(row, "energy_j");
    if (s > 0 && number(ref, "seconds") > 0) row["speedup_vs_" + baseline] = number(ref, "seconds") / s;
    if (e > 0 && number(ref, "energy_j") > 0) row["energy_efficiency_vs_" + baseline] = number(ref, "energy_j") / e;
  }
  return found;
}

std::vector<std::string> plan_arch_names(const SweepPlan& plan) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& value) {
    for (const std::string& n : split_commas(value)) names.push_back(n);
  };
  for (const auto& [key, value] : plan.options)
    if (names_arch(key)) add(value);
  for (const SweepAxis& a : plan.axes)
    if (!a.is_set && names_arch(a.key))
      for (const std::string& v : a.values) add(v);
  for (const std::string& n : names)
    if (n.find('/') != std::string::npos || n.find(".yaml") != std::string::npos || n.find(".yml") != std::string::npos)
      return {};
  return names;
}

std::vector<nlohmann::ordered_json> sweep_rows(const SweepPlan& plan, std::uint64_t point,
                                               const nlohmann::json& report) {
  std::vector<nlohmann::ordered_json> rows;
  const nlohmann::ordered_json values = sweep_values(plan, point);
  const auto row_of = [&](const nlohmann::json& r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    row["point"] = point;
    for (const auto& [key, value] : values.items()) row[key] = value;
    // The report's scalars after the swept values; its `arch` (the
    // architecture's name) also replaces a swept `arch` (perhaps a file's path).
    for (const auto& [key, value] : r.items())
      if (value.is_primitive() && (!row.contains(key) || key == "arch")) row[key] = value;
    // Throughput beside latency, for the summary and the Pareto front.
    if (!row.contains("tokens_per_s") && r.contains("tokens") && r["tokens"].is_number() && r.contains("seconds") &&
        r["seconds"].is_number() && r["seconds"].get<double>() > 0)
      row["tokens_per_s"] = r["tokens"].get<double>() / r["seconds"].get<double>();
    rows.push_back(std::move(row));
  };
  if (report.contains("results") && report["results"].is_array()) {
    for (const auto& r : report["results"]) row_of(r);
  } else {
    row_of(report);
  }
  return rows;
}

std::string rows_csv(const std::vector<nlohmann::ordered_json>& rows) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const auto& row : rows)
    for (const auto& item : row.items())
      if (seen.insert(item.key()).second) columns.push_back(item.key());
  const auto cell = [](const nlohmann::ordered_json& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
    if (s.find_first_of(",\"\n") != std::string::npos) {
      std::string quoted = "\"";
      for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      s = quoted + "\"";
    }
    return s;
  };
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + cell(columns[c]);
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      out += (c ? "," : "") + (row.contains(columns[c]) ? cell(row[columns[c]]) : std::string());
    out += "\n";
  }
  return out;
}

}  // namespace eva
