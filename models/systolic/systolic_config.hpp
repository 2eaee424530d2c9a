#pragma once
#include <algorithm>

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

// How the array runs GEMMs whose operands are both FP16 (systolic.dense_fp16).
enum class DenseFp16 { fp16_mode, int8_rate };
template <>
struct EnumNames<DenseFp16> {
  static const std::vector<std::pair<std::string_view, DenseFp16>>& list() {
    static const std::vector<std::pair<std::string_view, DenseFp16>> names = {{"fp16_mode", DenseFp16::fp16_mode},
                                                                              {"int8_rate", DenseFp16::int8_rate}};
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
  // The array's FP16 mode, for GEMMs whose operands are both FP16 (attention
  // over an FP16 KV cache, an FP16 LM head; EVA's output codebooks): one FP16
  // multiply takes this many of the array's multipliers, so the mode is rows
  // x cols / fp16_ratio PEs. 4: BRIEF section 3, EVA's 32x32 INT8 array runs
  // FP16 as 32x8. The arrays with a bit-serial FP16 path (FIGLUT's
  // bit-planes) ignore it.
  int fp16_ratio = 4;
  // Attention over an FP16 KV cache and an FP16 LM head: in the FP16 mode
  // (`fp16_mode`), or at the INT8 array's rate (`int8_rate`), the EVA
  // artifact's convention (it times attention on its INT8 prefill array) and
  // the paper setting's. EVA's output codebooks are always in the FP16 mode.
  DenseFp16 dense_fp16 = DenseFp16::fp16_mode;

  // The FP16 mode's shape: cols / fp16_ratio columns (at least one).
  SystolicConfig fp16_mode() const {
    SystolicConfig f = *this;
    f.cols = std::max(1, cols / fp16_ratio);
    return f;
  }

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
    v.field("dense_fp16", dense_fp16, "fp16_mode | int8_rate: how FP16 x FP16 GEMMs (attention, FP16 LM head) run");
    v.field("fp16_ratio", fp16_ratio, between(1, 64), "multipliers per FP16 multiply: FP16 mode is rows x cols/ratio");
  }
};

}  // namespace eva
