#pragma once
#include "common/config.hpp"

namespace eva {

// FIGNA's pre-alignment (BASELINES.md section 2.1). Each tile's K-slice of an
// activation row shares one exponent (the block is the array's reduction
// tile, systolic.rows activations).
struct FignaConfig {
  // Bits kept below the largest significand's LSB when aligning. FIGNA's
  // width is not published (BASELINES.md 2.1 [G]); 3 is what an FP adder's
  // guard, round and sticky bits keep.
  int guard_bits = 3;

  template <class V>
  void visit(V& v) {
    v.field("guard_bits", guard_bits, between(0, 40), "alignment guard bits (40: lossless)");
  }
};

}  // namespace eva
