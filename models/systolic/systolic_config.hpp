#pragma once
#include "common/config.hpp"

namespace eva {

// How a weight-stationary array loads its weights (systolic.weight_load).
enum class WeightLoad { scalesim, paper, overlapped };
template <>
struct EnumNames<WeightLoad> {
  static const std::vector<std::pair<std::string_view, WeightLoad>>& list() {
    static const std::vector<std::pair<std::string_view, WeightLoad>> names = {
        {"scalesim", WeightLoad::scalesim}, {"paper", WeightLoad::paper}, {"overlapped", WeightLoad::overlapped}};
    return names;
  }
};

struct SystolicConfig {
  // 32x32 INT8 array (EVA paper; artifact specs.py; BRIEF section 3). The
  // baselines SA, ANT and FIGNA use the same size (artifact baselines.yaml).
  int rows = 32;
  int cols = 32;
  // The EVA artifact's convention by default, so that default figures compare
  // with the paper's; `overlapped` is the realistic double-buffered array.
  WeightLoad weight_load = WeightLoad::paper;
  // `overlapped` only: the weight-load path into the shadow registers, bytes
  // per cycle. A tile loads in ceil(its bytes in the weight format / this)
  // cycles, so 4-bit weights load twice as many rows a cycle as 8-bit ones.
  // 128 B = the EVA artifact's 1024-bit DRAM interface (mem_width), so loading
  // weights is never slower than DRAM delivers them. An assumption of this
  // model, not a published figure.
  int load_bytes_per_cycle = 128;
  // `overlapped` only: rows per cycle, when a datapath's load is counted in
  // rows rather than bytes (FIGLUT's key rows); 0 = from load_bytes_per_cycle.
  int load_rows_per_cycle = 0;
  // Cycles added to every weight tile by the PE datapath: 0 for the plain
  // array; the EVA artifact charges 2 for ANT's decoders and 4 for FIGNA's
  // pre-alignment (artifact baselines.yaml pipeline_overhead_cycles).
  int tile_overhead_cycles = 0;

  template <class V>
  void visit(V& v) {
    v.field("rows", rows, between(1, 4096), "PE rows (reduction dimension K)");
    v.field("cols", cols, between(1, 4096), "PE columns (output dimension N)");
    v.field("weight_load", weight_load, "scalesim | paper | overlapped");
    v.field("load_bytes_per_cycle", load_bytes_per_cycle, between(1, 1 << 20),
            "overlapped: weight bytes loaded into the shadow registers per cycle");
    v.field("load_rows_per_cycle", load_rows_per_cycle, between(0, 4096),
            "overlapped: rows loaded per cycle (0: from load_bytes_per_cycle and the weight format)");
    v.field("tile_overhead_cycles", tile_overhead_cycles, between(0, 1 << 20), "extra cycles per weight tile");
  }
};

}  // namespace eva
