#pragma once
// The accelerator's register interface (models/periph, docs/REGISTERS.md):
// the `periph:` section of an architecture.
#include "common/config.hpp"

namespace eva {

struct PeriphConfig {
  // A register access takes one accelerator cycle: a register file on the
  // accelerator's clock with a single-cycle read path (an assumption; no
  // source publishes EVA's bus interface).
  int register_cycles = 1;
  // Descriptors one ring entry may chain before the peripheral refuses the
  // chain (CHAIN_LIMIT): far above any layer's operations, so that only a
  // chain that loops reaches it.
  int chain_limit = 65536;

  template <class V>
  void visit(V& v) {
    v.field("register_cycles", register_cycles, between(0, 1 << 20), "cycles per register access");
    v.field("chain_limit", chain_limit, between(1, 1 << 30), "descriptors per ring entry's chain");
  }
};

}  // namespace eva
