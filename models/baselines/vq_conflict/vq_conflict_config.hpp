#pragma once
#include "common/accel_config.hpp"
#include "common/config.hpp"
#include "common/energy.hpp"
#include "common/vq_format.hpp"
#include "dma/dma_config.hpp"
#include "vector/vector_config.hpp"

namespace eva {

// How the conflicting-VQ baseline's FC layers are timed (lookup.model).
// `artifact`: the EVA artifact's own naive VQ (BASELINES.md 4.5): an FP16
// output-stationary array of os_rows x os_cols, tiles of os_rows x tile_k x
// os_cols, each tile charged its compute plus the conflict stall beyond it,
// codebooks looked up in parallel. `lanes`: lookup lanes rebuilding weights
// from a banked codebook SRAM, every lookup timed by the SRAM's bank model.
enum class LookupModel { artifact, lanes };
template <>
struct EnumNames<LookupModel> {
  static const std::vector<std::pair<std::string_view, LookupModel>>& list() {
    static const std::vector<std::pair<std::string_view, LookupModel>> names = {{"artifact", LookupModel::artifact},
                                                                                {"lanes", LookupModel::lanes}};
    return names;
  }
};

// The lookup datapath of the conflicting-VQ baseline.
struct LookupConfig {
  // The paper setting's convention by default, so that default figures
  // compare with the paper's; the realistic setting uses `lanes`.
  LookupModel model = LookupModel::artifact;
  // `artifact`: the output-stationary array and its tiles (BASELINES.md 4.5:
  // 8 x 32 FP16, tile_m 8, tile_k 1024, tile_n 32).
  int os_rows = 8;
  int os_cols = 32;
  int tile_k = 1024;
  // Lanes that each rebuild one weight sub-vector per cycle. 4 lanes x 16 B
  // entries = 64 B/cycle, the codebook SRAM's bandwidth (BRIEF section 4).
  int lanes = 4;
  // Codebook SRAM: 4 banks of 16 B (one FP16 x 8 centroid per word),
  // 64 B/cycle (BRIEF section 4: 8 x 256 x FP16, 4 KB per codebook).
  int banks = 4;
  int bank_width_bytes = 16;
  // Codebook copies (VQ-LLM-style replication): lane l reads copy l mod R,
  // each copy in its own group of banks (BASELINES.md section 4.3), so the
  // SRAM has banks x R banks. 1: no replication.
  int replicas = 1;
  // Timing mode has no index data: indices are drawn from a seeded power law,
  // u^(1 + skew) of the range (0: uniform), as trained codebooks skew.
  double index_skew = 0.0;
  int seed = 1;
  // Timing mode counts the conflicts of this many lookup cycles' worth of
  // lane groups exactly (whole chunks of columns), then charges the rest of
  // the layer their mean: the drawn stream is stationary, so the estimate's
  // error shrinks as 1/sqrt(sample). 0: count every lookup.
  int sample_groups = 1 << 18;

  template <class V>
  void visit(V& v) {
    v.field("model", model,
            "artifact | lanes: the artifact's output-stationary tiles with conflict stalls, or "
            "lookup lanes timed by the codebook SRAM's banks");
    v.field("os_rows", os_rows, between(1, 4096), "artifact: output-stationary array rows (tile_m)");
    v.field("os_cols", os_cols, between(1, 4096), "artifact: output-stationary array columns (tile_n)");
    v.field("tile_k", tile_k, between(1, 1 << 20), "artifact: reduction tile");
    v.field("lanes", lanes, between(1, 1024), "lookup lanes");
    v.field("banks", banks, between(1, 1024), "codebook SRAM banks");
    v.field("bank_width_bytes", bank_width_bytes, between(1, 4096), "bytes per bank word");
    v.field("replicas", replicas, between(1, 1024), "codebook copies");
    v.field("index_skew", index_skew, between(0.0, 100.0), "timing mode: index power-law skew");
    v.field("seed", seed, between(0, 1 << 30), "timing mode: index seed");
    v.field("sample_groups", sample_groups, between(0, 1 << 30), "timing mode: lane groups counted exactly (0: all)");
  }
};

struct VqConflictConfig {
  double clock_mhz = 500.0;  // EVA paper and artifact FREQ_HZ (BRIEF section 3)
  VqFormat vq;
  DmaConfig dma;
  BufferConfig buffers;
  LookupConfig lookup;
  FormatConfig formats;  // kv_bits: the attention KV cache
  VectorConfig vector;
  EnergyConfig energy;
  AreaConfig area;
  bool check_protocol = false;  // sim.check_protocol: a checker between the local bus and each buffer
};

}  // namespace eva
