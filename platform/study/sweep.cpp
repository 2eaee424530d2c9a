#include "study/sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.hpp"
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

struct Reader {
  std::string source;

  std::string at(const YAML::Node& n) const {
    return n.Mark().is_null() ? source : fmt::format("{}:{}", source, n.Mark().line + 1);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& what) const {
    throw InputError(fmt::format("{}: {}", at(n), what));
  }
  std::string key_of(const YAML::Node& k) const {
    if (!k.IsScalar()) fail(k, "expected a name as the key");
    return k.Scalar();
  }
  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar() || n.Scalar().empty()) fail(n, fmt::format("{}: expected a value", key));
    return n.Scalar();
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

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("eva-sim: ", 0) == 0) line = line.substr(9);
  return line.empty() ? "no message" : line;
}

// A running point.
struct Child {
  pid_t pid = 0;
  std::uint64_t point = 0;
};

}  // namespace

std::uint64_t SweepPlan::points() const {
  std::uint64_t n = 1;
  for (const SweepAxis& a : axes) n *= a.values.size();
  return n;
}

std::vector<std::string> SweepPlan::values(std::uint64_t i) const {
  std::vector<std::string> out(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    out[a] = axes[a].values[i % axes[a].values.size()];
    i /= axes[a].values.size();
  }
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

SweepPlan load_sweep(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  std::ostringstream text;
  text << in.rdbuf();
  Reader r{path};
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}: malformed YAML: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) r.fail(root, "expected a mapping with command, options, set and vary");
  SweepPlan plan;
  plan.source = path;
  YAML::Node vary;
  bool has_vary = false;
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
    } else if (key == "vary") {
      vary = kv.second;
      has_vary = true;
    } else {
      r.fail(kv.first, fmt::format("unknown key '{}' (expected command, options, set, vary)", key));
    }
  }
  if (plan.command.empty()) r.fail(root, "command: missing (run, gemm, compare, e2e or dram-bench)");
  if (!has_vary) r.fail(root, "vary: missing (the values to sweep, under vary.set or vary.options)");
  if (!vary.IsMap()) r.fail(vary, "vary: expected a mapping with set and/or options");
  for (const auto& kv : vary) {
    const std::string key = r.key_of(kv.first);
    if (key == "set") {
      r.axes(kv.second, "vary.set", true, plan.axes);
    } else if (key == "options") {
      const std::size_t before = plan.axes.size();
      r.axes(kv.second, "vary.options", false, plan.axes);
      for (std::size_t a = before; a < plan.axes.size(); ++a)
        r.check_option(kv.second, "vary.options", plan.axes[a].key);
    } else {
      r.fail(kv.first, fmt::format("vary: unknown key '{}' (expected set, options)", key));
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
  for (const SweepAxis& a : plan.axes) {
    n *= a.values.size();
    if (n > max_points) r.fail(vary, fmt::format("vary: more than {} points", max_points));
  }
  return plan;
}

std::vector<nlohmann::ordered_json> sweep_rows(const SweepPlan& plan, std::uint64_t point,
                                               const nlohmann::json& report) {
  const std::vector<std::string> v = plan.values(point);
  std::vector<nlohmann::ordered_json> rows;
  const auto row_of = [&](const nlohmann::json& r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    row["point"] = point;
    for (std::size_t a = 0; a < plan.axes.size(); ++a) row[plan.axes[a].key] = typed(v[a]);
    for (const auto& [key, value] : r.items())
      if (value.is_primitive() && !row.contains(key)) row[key] = value;
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

std::vector<nlohmann::ordered_json> run_sweep(const SweepPlan& plan, const SweepOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out(options.out);
  const bool created = fs::create_directory(out, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot create directory: {}", options.out, ec.message()));
  if (!fs::is_directory(out)) throw InputError(fmt::format("--out {}: not a directory", options.out));
  // Points write into a staging directory, moved into place only when every
  // point has succeeded: a failed sweep leaves nothing behind.
  const fs::path stage = out / fmt::format(".sweep-{}", static_cast<long>(::getpid()));
  fs::create_directory(stage, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot write: {}", options.out, ec.message()));
  const auto discard = [&] {
    fs::remove_all(stage, ec);
    if (created) fs::remove(out, ec);
  };
  const std::uint64_t n = plan.points();
  const int width = static_cast<int>(std::max<std::size_t>(3, std::to_string(n - 1).size()));
  const auto name = [&](std::uint64_t i, const char* ext) { return fmt::format("point-{:0{}}.{}", i, width, ext); };
  const auto staged = [&](std::uint64_t i, const char* ext) { return (stage / name(i, ext)).string(); };

  Progress progress("sweep", n, options.quiet);
  std::vector<Child> running;
  std::uint64_t next = 0;
  std::optional<std::uint64_t> failed;  // the first point that failed
  bool internal = false;                // ...with an internal error (or a signal)
  try {
    while (next < n || !running.empty()) {
      while (!failed && next < n && running.size() < std::max(1u, options.jobs)) {
        std::vector<std::string> args = plan.arguments(next);
        args.insert(args.end(), {"--json", staged(next, "json"), "--quiet"});
        args.insert(args.begin(), options.program);
        running.push_back({spawn_process(args, staged(next, "txt"), staged(next, "err")), next});
        ++next;
      }
      if (running.empty()) break;
      const auto [pid, status] = wait_process();
      const auto it =
          std::find_if(running.begin(), running.end(), [pid = pid](const Child& c) { return c.pid == pid; });
      if (it == running.end()) continue;
      const std::uint64_t point = it->point;
      running.erase(it);
      if (status != 0 && (!failed || point < *failed)) {
        failed = point;
        internal = status != 2;
      }
      progress.step();
    }
  } catch (...) {
    for (const Child& c : running) wait_process(c.pid);
    discard();
    throw;
  }
  progress.finish();
  if (failed) {
    const std::string what = fmt::format("{}: point {} ({}): {}", plan.source, *failed, plan.describe(*failed),
                                         first_line(read_text(staged(*failed, "err"))));
    discard();
    if (internal) throw std::runtime_error(what);
    throw InputError(what);
  }

  std::vector<nlohmann::ordered_json> rows;
  nlohmann::ordered_json index = {
      {"sweep", plan.source}, {"command", plan.command}, {"points", nlohmann::ordered_json::array()}};
  for (std::uint64_t i = 0; i < n; ++i) {
    const nlohmann::json report = nlohmann::json::parse(read_text(staged(i, "json")), nullptr, false);
    if (report.is_discarded()) {
      discard();
      throw std::runtime_error(fmt::format("sweep: point {}: its report is not JSON", i));
    }
    const std::vector<nlohmann::ordered_json> point_rows = sweep_rows(plan, i, report);
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    const std::vector<std::string> v = plan.values(i);
    for (std::size_t a = 0; a < plan.axes.size(); ++a) values[plan.axes[a].key] = typed(v[a]);
    index["points"].push_back({{"point", i},
                               {"values", values},
                               {"arguments", plan.arguments(i)},
                               {"json", name(i, "json")},
                               {"rows", point_rows}});
    rows.insert(rows.end(), point_rows.begin(), point_rows.end());
  }
  write_file_atomic((stage / "sweep.csv").string(), rows_csv(rows));
  write_file_atomic((stage / "sweep.json").string(), index.dump(2) + "\n");
  for (const auto& entry : fs::directory_iterator(stage)) {
    if (entry.path().extension() == ".err") continue;  // empty: every point succeeded
    fs::rename(entry.path(), out / entry.path().filename(), ec);
    if (ec) {
      discard();
      throw InputError(
          fmt::format("--out {}: cannot write {}: {}", options.out, entry.path().filename().string(), ec.message()));
    }
  }
  fs::remove_all(stage, ec);
  return rows;
}

}  // namespace eva
