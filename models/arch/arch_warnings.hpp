#pragma once
// What in an architecture is wasteful or degrades it without stopping it.
// Plain C++ (no SystemC): the platform writes these into every report and
// onto stderr.
#include <string>
#include <vector>

#include "arch/arch_config.hpp"

namespace eva {

// One line each; empty for every built-in architecture but EVA's ablation
// presets with fewer epilogue units than OC banks. FIGLUT with a LUT size or
// RAC count other than the published one is named too: its PE's cost does not
// follow them. (DRAM keys the DRAM kind
// does not read are refused by the loader instead.)
std::vector<std::string> arch_warnings(const ArchConfig& c);

}  // namespace eva
