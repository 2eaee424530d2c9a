#pragma once
#include "common/config.hpp"

namespace eva {

// EVA's epilogue units: E adder trees of A inputs each.
struct EpilogueConfig {
  // 4 EUs of 32-input adder trees (EVA artifact eva.yaml adder_tree_size 128 =
  // 4 x 32; BRIEF section 3).
  int units = 4;
  int adder_inputs = 32;

  template <class V>
  void visit(V& v) {
    v.field("units", units, between(1, 4096), "number of epilogue units");
    v.field("adder_inputs", adder_inputs, between(2, 1 << 16), "inputs per adder tree");
  }
};

}  // namespace eva
