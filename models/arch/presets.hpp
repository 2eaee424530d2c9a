#pragma once
// The built-in presets as C++: the same configs as the YAML files in
// platform/configs/archs/ and platform/configs/dram/, without any YAML, so a
// program that links only the models can build an accelerator and its DRAM:
//   ArchConfig c = eva::presets::arch("eva", "ddr4-3200");
//   auto accel = eva::make_accelerator(c);  // arch/accelerators.hpp
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch_config.hpp"

namespace eva::presets {

// A DRAM preset by name ("ideal", "ddr4-3200", ...). InputError if unknown.
DramConfig dram(std::string_view name);
// An architecture by name ("eva", "sa", ...) over a DRAM preset, as eva-sim's
// `--arch name --dram dram_preset` loads it. InputError if either is unknown.
ArchConfig arch(std::string_view name, std::string_view dram_preset = "ideal");

std::vector<std::string> arch_names();
std::vector<std::string> dram_names();

}  // namespace eva::presets
