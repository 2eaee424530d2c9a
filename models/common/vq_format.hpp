#pragma once
// A vector-quantised weight format: C additive codebooks of 2^n centroids of
// d elements each (AQLM "C x n"), optionally one codebook set per weight group
// (GPTVQ). Bits per weight q = C * n / d (BRIEF section 2).
#include "common/config.hpp"

namespace eva {

struct VqFormat {
  // AQLM 2x8, d = 8: EVA-W2, the paper's headline configuration (BRIEF section 3).
  int codebooks = 2;
  int index_bits = 8;
  int vector_dim = 8;
  // GPTVQ: one codebook set per group_k x group_n weights (256 x 256); 0 = one
  // codebook set for the whole matrix (AQLM).
  int group_k = 0;
  int group_n = 0;
  // EVA runs a layer in INT8 prefill mode when its input rows exceed this:
  // 32 for W2 (EVA artifact end_to_end_ops.py; 16 for W3, 8 for W4, 4 for GPTVQ).
  int prefill_above_m = 32;

  template <class V>
  void visit(V& v) {
    v.field("codebooks", codebooks, between(1, 16), "additive codebooks C");
    v.field("index_bits", index_bits, between(1, 16), "bits per index n (2^n centroids)");
    v.field("vector_dim", vector_dim, between(1, 64), "elements per sub-vector d");
    v.field("group_k", group_k, between(0, 1 << 20), "rows per codebook group (0: none)");
    v.field("group_n", group_n, between(0, 1 << 20), "columns per codebook group (0: none)");
    v.field("prefill_above_m", prefill_above_m, between(0, 1 << 20),
            "EVA: INT8 prefill mode above this many input rows");
  }
  double bits_per_weight() const { return static_cast<double>(codebooks * index_bits) / vector_dim; }
};

}  // namespace eva
