#pragma once
// EVA's sizes that follow from its configuration, shared by the tiler, the
// host-side layouts, the configuration loader and the warnings. Plain C++,
// header only.
#include <cstdint>

#include "epilogue/epilogue_config.hpp"
#include "sram/sram_config.hpp"

namespace eva {

// The largest power of two not above x (1 for x <= 1).
inline std::uint64_t pow2_floor(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// Lookups the epilogue can do in a cycle: units x adder inputs.
inline std::uint64_t eva_lookups(const EpilogueConfig& e) {
  return static_cast<std::uint64_t>(e.units) * static_cast<std::uint64_t>(e.adder_inputs);
}

// Lookups a pass uses: a pass takes a power of two of sub-vector rows.
inline std::uint64_t eva_pass_lookups(const EpilogueConfig& e) { return pow2_floor(eva_lookups(e)); }

// The OC SRAM's depth per region, in entries per bank:
// size_kib x 1024 / buffers / (banks x bank_width_bytes).
inline std::uint64_t eva_oc_depth(const SramConfig& oc) {
  return static_cast<std::uint64_t>(oc.size_kib) * 1024 / static_cast<std::uint64_t>(oc.buffers) /
         (static_cast<std::uint64_t>(oc.banks) * static_cast<std::uint64_t>(oc.bank_width_bytes));
}

}  // namespace eva
