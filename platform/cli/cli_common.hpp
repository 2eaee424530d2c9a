#pragma once
// What every eva-sim command shares: option parsing that turns every
// program_options error into an InputError, the options of simulating
// commands, output checks and writers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "config/load_arch.hpp"
#include "report/report.hpp"

namespace eva {

namespace po = boost::program_options;

// Options every simulating command takes.
struct SimOptions {
  std::optional<std::string> dram;
  std::vector<std::string> sets;
  std::vector<std::string> setting_sets;  // --setting's, before --set's
  // What an architecture is loaded with: the setting's values, then --set's.
  std::vector<std::string> arch_sets() const {
    std::vector<std::string> all = setting_sets;
    all.insert(all.end(), sets.begin(), sets.end());
    return all;
  }
  std::optional<std::string> json, csv;
  std::optional<std::string> plot;  // compare and e2e
  bool plot_log = false;            // --plot-log: its latency axis logarithmic
  std::string plot_python;          // found by check_outputs when --plot is given
  bool quiet = false;
};

void add_sim_options(po::options_description& d);
SimOptions sim_options(const po::variables_map& vm);
// Thrown by parse() once it has printed a command's options for --help.
struct HelpShown {};

// Parses a command's arguments; InputError on anything program_options
// rejects. With --help or -h among them, prints the command's options to
// stdout and throws HelpShown instead.
po::variables_map parse(const std::string& command, const std::vector<std::string>& args,
                        const po::options_description& desc, const po::positional_options_description& pos = {});
std::string required(const po::variables_map& vm, const std::string& command, const char* name);
// The items of a comma-separated option value, in order (empty items kept).
std::vector<std::string> comma_items(const std::string& value);
std::uint64_t positive(const std::string& option, const std::string& text, std::uint64_t max);
// Refuses an output path whose directory cannot be written, before any
// simulation runs.
void check_output(const std::optional<std::string>& path, const char* option);
// -j/--jobs: processes a multi-architecture run may use (default: the cores).
void add_jobs_option(po::options_description& d);
unsigned jobs_from(const po::variables_map& vm);
// Checks --json, --csv and --plot before anything runs (and finds the Python
// that draws the plot).
void check_outputs(SimOptions& s);
// --json (one report, or {"results": [...]}), --csv and, with the results
// wrapper, --plot; each written whole.
void write_outputs(const SimOptions& s, const std::vector<Report>& reports, bool results_wrapper);
// --arch with --dram and --set applied.
// load_arch, with each of the architecture's warnings (arch_warnings) as one
// line on stderr.
ArchConfig loaded_arch(const ArchRequest& req);
ArchConfig arch_from(const po::variables_map& vm, const std::string& command, const SimOptions& s);
// An architecture by name or file, with the command's --dram and --set.
ArchConfig arch_named(const std::string& arch, const SimOptions& s);

// The commands over whole models (cli_workloads.cpp).
int cmd_run(const std::string& command, const std::vector<std::string>& args);
int cmd_compare(const std::string& command, const std::vector<std::string>& args);
int cmd_e2e(const std::string& command, const std::vector<std::string>& args);
int cmd_validate(const std::string& command, const std::vector<std::string>& args);
// eva-sim pack (cli_pack.cpp).
int cmd_pack(const std::string& command, const std::vector<std::string>& args);

}  // namespace eva
