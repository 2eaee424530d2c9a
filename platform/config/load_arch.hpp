#pragma once
// Loads an architecture from YAML: a built-in preset (platform/configs/) or a
// user's file, with the DRAM preset and --set overrides applied, then
// validated. The structs themselves are the models' (arch/arch_config.hpp).
#include <optional>
#include <string>
#include <vector>

#include "arch/arch_config.hpp"
#include "config/param_set.hpp"

namespace eva {

// What the command line says about the architecture to load.
struct ArchRequest {
  std::string arch;                 // built-in name or path to a YAML file
  std::optional<std::string> dram;  // --dram
  std::vector<std::string> sets;    // --set key=value, in order
  std::string origin = "--arch";    // where `arch` was given, for messages
};

ArchConfig load_arch(const ArchRequest& request);

// The named setting a configuration is in: "paper" (the `ideal` DRAM at the
// artifact's 64 GB/s, systolic.weight_load=paper, EVA's mode by thresholds),
// "realistic" (a timed DRAM preset, weight_load=overlapped, EVA's mode by
// estimate), or "custom" (anything else).
const char* setting_name(const ArchConfig& config);
// `--setting NAME`: the DRAM preset and the --set values it stands for.
struct NamedSetting {
  std::string dram;
  std::vector<std::string> sets;
};
// The names find_setting knows, for messages.
inline constexpr const char* setting_choices = "paper or realistic";
// Nothing for a name that is not one of setting_choices.
std::optional<NamedSetting> find_setting(const std::string& name);
// Throws InputError for a name that is not one of setting_choices.
NamedSetting setting_named(const std::string& name);
// A DRAM configuration alone (dram-bench): the preset (default `ideal`) and
// --set overrides, which must all be dram.* keys.
DramConfig load_dram(const std::optional<std::string>& preset, const std::vector<std::string>& sets);
// ...and the `sim.*` keys among `sets` into `sim` (dram-bench's checker).
DramConfig load_dram(const std::optional<std::string>& preset, const std::vector<std::string>& sets, SimConfig& sim);
// Prints the effective configuration as YAML (eva-sim config): every key, but
// of `dram.*` only those the DRAM's kind reads.
std::string to_yaml(ArchConfig config);

std::vector<std::string> builtin_arch_names();
std::vector<std::string> builtin_dram_names();

}  // namespace eva
