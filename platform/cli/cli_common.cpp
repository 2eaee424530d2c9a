#include "cli/cli_common.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>

#include "arch/arch_warnings.hpp"
#include "common/error.hpp"
#include "report/plot.hpp"

namespace eva {

void add_sim_options(po::options_description& d) {
  d.add_options()("setting", po::value<std::string>(),
                  "paper (ideal DRAM at 64 GB/s, weight_load=paper, eva.mode_policy=thresholds, "
                  "lookup.model=artifact) or realistic (lpddr5-6400, weight_load=overlapped, "
                  "eva.mode_policy=estimate, lookup.model=lanes, an FP16 LM head and FP16 modes, descriptors "
                  "overlapped, posted writes); --dram and --set override its parts")("dram", po::value<std::string>(),
                                                                                     "DRAM preset name or YAML file")(
      "set", po::value<std::vector<std::string>>()->composing(), "override a config key: dotted.key=value")(
      "json", po::value<std::string>(), "write the report as JSON")("quiet", po::bool_switch(),
                                                                    "no progress on stderr");
}

SimOptions sim_options(const po::variables_map& vm) {
  SimOptions s;
  if (vm.count("setting")) {
    NamedSetting setting = setting_named(vm["setting"].as<std::string>());
    s.dram = setting.dram;
    s.setting_sets = std::move(setting.sets);
  }
  if (vm.count("dram")) s.dram = vm["dram"].as<std::string>();
  if (vm.count("set")) s.sets = vm["set"].as<std::vector<std::string>>();
  if (vm.count("json")) s.json = vm["json"].as<std::string>();
  if (vm.count("csv")) s.csv = vm["csv"].as<std::string>();
  if (vm.count("plot")) s.plot = vm["plot"].as<std::string>();
  s.plot_log = vm.count("plot-log") && vm["plot-log"].as<bool>();
  if (s.plot_log && !s.plot) throw InputError("--plot-log: sets the axis of a --plot; give --plot FILE.png");
  s.quiet = vm.count("quiet") && vm["quiet"].as<bool>();
  return s;
}

po::variables_map parse(const std::string& command, const std::vector<std::string>& args,
                        const po::options_description& desc, const po::positional_options_description& pos) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      // Positional arguments by their place in the usage line, not as options.
      std::set<std::string> positional;
      std::string usage = "usage: eva-sim " + command;
      for (unsigned i = 0; i < std::min(pos.max_total_count(), 8u); ++i) {
        const std::string& name = pos.name_for_position(i);
        if (!positional.insert(name).second) continue;
        std::string upper = name;
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        usage += " " + upper;
      }
      po::options_description shown(command + " options");
      for (const auto& o : desc.options())
        if (!positional.count(o->long_name())) shown.add(o);
      std::cout << usage << " [options]\n\n" << shown;
      throw HelpShown{};
    }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(fmt::format("{}: {}", command, e.what()));
  }
  return vm;
}

std::vector<std::string> comma_items(const std::string& value) {
  std::vector<std::string> out;
  std::stringstream in(value);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

std::string required(const po::variables_map& vm, const std::string& command, const char* name) {
  if (!vm.count(name)) throw InputError(fmt::format("{}: --{} is required", command, name));
  return vm[name].as<std::string>();
}

std::uint64_t positive(const std::string& option, const std::string& text, std::uint64_t max) {
  const auto fail = [&] {
    return InputError(fmt::format("{}: expected an integer from 1 to {}, got '{}'", option, max, text));
  };
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) throw fail();
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v == 0 || v > max) throw fail();
  return v;
}

// Refuses an output path whose directory cannot be written, before any
// simulation runs.
void check_output(const std::optional<std::string>& path, const char* option) {
  if (!path) return;
  if (path->empty()) throw InputError(fmt::format("{}: expected a file name", option));
  const auto slash = path->rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path->substr(0, slash));
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(fmt::format("{} {}: directory '{}' does not exist or is not writable", option, *path, dir));
}

void add_jobs_option(po::options_description& d) {
  d.add_options()("jobs,j", po::value<std::string>(),
                  "architectures simulated at once, each in its own process (default: the cores)");
}

unsigned jobs_from(const po::variables_map& vm) {
  if (vm.count("jobs")) return static_cast<unsigned>(positive("--jobs", vm["jobs"].as<std::string>(), 1024));
  return std::max(1u, std::thread::hardware_concurrency());
}

void check_outputs(SimOptions& s) {
  check_output(s.json, "--json");
  check_output(s.csv, "--csv");
  check_output(s.plot, "--plot");
  if (s.plot) s.plot_python = plot_python();
}

void write_outputs(const SimOptions& s, const std::vector<Report>& reports, bool results_wrapper) {
  nlohmann::json j;
  if (results_wrapper) {
    j["results"] = nlohmann::json::array();
    for (const auto& r : reports) j["results"].push_back(to_json(r));
  } else {
    j = to_json(reports.front());
  }
  if (s.json) write_file_atomic(*s.json, j.dump(2) + "\n");
  if (s.csv) write_file_atomic(*s.csv, to_csv(reports));
  if (s.plot && results_wrapper) {
    nlohmann::json data = j;
    data["plot"] = {{"latency_axis", s.plot_log ? "log" : "linear"}};
    write_plot(s.plot_python, *s.plot, data);
  }
}

ArchConfig loaded_arch(const ArchRequest& req) {
  ArchConfig c = load_arch(req);
  for (const std::string& w : arch_warnings(c)) std::cerr << fmt::format("eva-sim: warning: {}: {}\n", c.name, w);
  return c;
}

ArchConfig arch_from(const po::variables_map& vm, const std::string& command, const SimOptions& s) {
  ArchRequest req;
  req.arch = required(vm, command, "arch");
  req.dram = s.dram;
  req.sets = s.arch_sets();
  return loaded_arch(req);
}

ArchConfig arch_named(const std::string& arch, const SimOptions& s) {
  ArchRequest req;
  req.arch = arch;
  req.dram = s.dram;
  req.sets = s.arch_sets();
  return loaded_arch(req);
}

}  // namespace eva
