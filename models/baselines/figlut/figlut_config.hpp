#pragma once
#include "common/config.hpp"

namespace eva {

// FIGLUT's LUT-based array (BASELINES.md section 3.5; EVA artifact
// simulator/methods/figlut.py and configs/methods/baselines.yaml figlut_4).
// Each MPU is a systolic.rows x systolic.cols array of PEs (2 x 16); a PE
// holds one LUT of the signed sums of `mu` activations, read by
// `racs_per_pe` read-accumulate units, each for its own output row. The MPUs
// take the weight bit-planes side by side.
struct FiglutConfig {
  int mu = 4;           // activations per LUT (artifact extra.mu; FIGLUT's hFFLUT)
  int racs_per_pe = 8;  // output rows sharing a PE's LUT (artifact extra.k)
  int mpus = 4;         // bit-plane units (artifact extra.num_mpu)

  template <class V>
  void visit(V& v) {
    v.field("mu", mu, between(1, 16), "activations per LUT");
    v.field("racs_per_pe", racs_per_pe, between(1, 1024), "read-accumulate units per LUT");
    v.field("mpus", mpus, between(1, 64), "MPUs (bit-planes in parallel)");
  }
};

}  // namespace eva
