#include "report/plot.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <unistd.h>

#include "common/error.hpp"
#include "config/builtin_files.hpp"
#include "process/process.hpp"
#include "report/report.hpp"

namespace eva {

namespace {

// Temporary files of one plot, removed however it ends.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    std::string templ = (std::filesystem::temp_directory_path() / "eva-sim-plot-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("--plot: cannot create a temporary directory");
    dir = templ;
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string path(const char* name) const { return (dir / name).string(); }
};

}  // namespace

std::string plot_python() {
  const Scratch s;
  // Debian's interpreter first: python3-matplotlib installs for it.
  for (const char* python : {"/usr/bin/python3", "python3"}) {
    try {
      const pid_t pid = spawn_process({python, "-c", "import matplotlib"}, s.path("out"), s.path("err"));
      if (wait_process(pid).second == 0) return python;
    } catch (const std::runtime_error&) {
      // not there: try the next
    }
  }
  throw InputError(
      "--plot: needs Python 3 with matplotlib (Debian package python3-matplotlib; scripts/setup.sh "
      "installs it)");
}

void write_plot(const std::string& python, const std::string& png, const nlohmann::json& report) {
  run_plot_script(python, "plot_compare.py", png, report);
}

nlohmann::json roofline_data(const Report& r, double peak_ops_per_s, double peak_bytes_per_s) {
  nlohmann::json ops = nlohmann::json::array();
  std::uint64_t left_out = 0;
  for (const OpReport& op : r.ops) {
    const double bytes = static_cast<double>(op.dram_bytes_read + op.dram_bytes_written);
    if (op.work_ops <= 0 || bytes <= 0 || op.seconds <= 0) {
      left_out += op.count;
      continue;
    }
    ops.push_back({{"name", op.name},
                   {"kind", op.kind},
                   {"bound_by", op.bound_by},
                   {"count", op.count},
                   {"ops_per_byte", op.work_ops / bytes},
                   {"gops", op.work_ops / op.seconds * 1e-9}});
  }
  return {{"title", fmt::format("{} {} {}: roofline of its operations", r.arch, r.model, r.phase)},
          {"peak_gops", peak_ops_per_s * 1e-9},
          {"peak_gbps", peak_bytes_per_s * 1e-9},
          {"ops", ops},
          {"left_out", left_out}};
}

void run_plot_script(const std::string& python, const std::string& script_name, const std::string& png,
                     const nlohmann::json& data) {
  const Scratch s;
  const auto& files = builtin_files();
  const auto script = files.find("scripts/" + script_name);
  if (script == files.end()) throw std::logic_error(script_name + " is not built in");
  std::ofstream(s.path("plot.py"), std::ios::binary) << script->second;
  std::ofstream(s.path("data.json"), std::ios::binary) << data.dump();
  const std::string drawn = s.path("plot.png");
  const pid_t pid =
      spawn_process({python, s.path("plot.py"), s.path("data.json"), drawn}, s.path("out"), s.path("err"));
  if (wait_process(pid).second != 0) {
    std::ifstream err(s.path("err"));
    std::string line, last;
    while (std::getline(err, line))
      if (!line.empty()) last = line;
    throw std::runtime_error(fmt::format("--plot: the plotting script failed: {}", last));
  }
  std::ifstream in(drawn, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  write_file_atomic(png, bytes.str());
}

}  // namespace eva
