#pragma once
// How EVA picks, per FC layer, between its two modes: VQ-lookup (the input
// codebook GEMM on the FP16 array and the epilogue's lookups) and INT8 (the
// 32 x 32 array, weight-stationary, over weights dequantised on chip).
// Plain C++: the policy as config, and the rule that compares two estimates.
#include <string_view>
#include <utility>
#include <vector>

#include "common/config.hpp"

namespace eva {

// eva.mode_policy.
enum class ModePolicy { thresholds, estimate };
template <>
struct EnumNames<ModePolicy> {
  static const std::vector<std::pair<std::string_view, ModePolicy>>& list() {
    static const std::vector<std::pair<std::string_view, ModePolicy>> names = {{"thresholds", ModePolicy::thresholds},
                                                                               {"estimate", ModePolicy::estimate}};
    return names;
  }
};

struct EvaModeConfig {
  // thresholds: INT8 mode above vq.prefill_above_m input rows, the EVA
  // artifact's switch (end_to_end_ops.py; BRIEF section 3). estimate: the mode
  // this model's own estimate of both finds faster (docs/EVA.md, "Choosing the
  // mode"); the realistic setting's choice.
  ModePolicy mode_policy = ModePolicy::thresholds;

  template <class V>
  void visit(V& v) {
    v.field("mode_policy", mode_policy,
            "thresholds | estimate: EVA's VQ-lookup or INT8 mode per layer, by vq.prefill_above_m or by the faster "
            "estimate");
  }
};

// A mode's cost for one layer, estimated before it runs: its units' cycles
// with memory never late and the DRAM bytes its schedule moves. `fits`: the
// layer can be tiled into the buffers in this mode at all.
struct ModeCost {
  double cycles = 0.0;
  double bytes = 0.0;
  bool fits = true;
  // The longer of compute and traffic at `dram_bytes_per_cycle` (compute
  // alone when that is unknown, 0).
  double time(double dram_bytes_per_cycle) const {
    const double memory = dram_bytes_per_cycle > 0 ? bytes / dram_bytes_per_cycle : 0.0;
    return cycles > memory ? cycles : memory;
  }
};

// The estimate policy's rule: INT8 mode when VQ mode does not fit and INT8
// does, or when both fit and INT8's time is strictly shorter; a tie (both
// bound by the same traffic) keeps VQ mode.
inline bool int8_is_faster(const ModeCost& vq, const ModeCost& int8, double dram_bytes_per_cycle) {
  if (!int8.fits) return false;
  if (!vq.fits) return true;
  return int8.time(dram_bytes_per_cycle) < vq.time(dram_bytes_per_cycle);
}

}  // namespace eva
