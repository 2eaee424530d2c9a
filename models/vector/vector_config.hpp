#pragma once
#include "common/config.hpp"

namespace eva {

// The vector/special-function unit (SFU) that runs a layer's non-FC
// operations. The EVA artifact gives its power (0.185 W) and area
// (0.063 mm2, configs/hardware.yaml) but not its width or depth; the two
// defaults below are this model's assumptions.
struct VectorConfig {
  // FP16 elements per cycle: 32, the array's row count, so one array output
  // row is taken per cycle.
  int lanes = 32;
  // Pipeline depth of the FP16 exp / reciprocal-sqrt datapath.
  int pipeline_cycles = 8;
  // Passes over a row: normalisations read it twice (statistics, then
  // scale), softmax three times (max, sum of exponentials, normalise).
  int norm_passes = 2;
  int softmax_passes = 3;

  template <class V>
  void visit(V& v) {
    v.field("lanes", lanes, between(1, 1 << 16), "FP16 elements per cycle");
    v.field("pipeline_cycles", pipeline_cycles, between(0, 1 << 16), "pipeline depth");
    v.field("norm_passes", norm_passes, between(1, 16), "passes of RMSNorm / LayerNorm over a row");
    v.field("softmax_passes", softmax_passes, between(1, 16), "passes of softmax over a row");
  }
};

}  // namespace eva
