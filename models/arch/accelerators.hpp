#pragma once
// The models an architecture names: its accelerator (by ArchConfig::kind) and
// its DRAM (by DramConfig::kind). The caller binds the accelerator's
// memory_socket() to the DRAM's target_socket.
#include <memory>

#include "arch/arch_config.hpp"
#include "common/accelerator.hpp"
#include "dram/dram_target.hpp"

namespace eva {

// The accelerator, named after its kind ("eva", "sa", ...) in the module tree.
std::unique_ptr<Accelerator> make_accelerator(const ArchConfig& c);
std::unique_ptr<DramTarget> make_dram(const char* name, const DramConfig& c);

}  // namespace eva
