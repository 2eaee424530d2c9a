#pragma once
// Configuration sections shared by the accelerators that are not one unit's:
// on-chip buffer sizes, number formats and tiling limits.
#include "common/config.hpp"

namespace eva {

struct BufferConfig {
  // ANT's split (BRIEF section 3; ANT simulator conf_ant.ini): 128 KiB weights,
  // 256 KiB activations, 128 KiB outputs. The EVA artifact gives 528 KB in total
  // without a split.
  int weight_kib = 128;
  int input_kib = 256;
  int output_kib = 128;
  // EVA's codebook buffer: not published. Two sets of resident AQLM codebooks
  // of up to 4 x 2^8 entries x d = 8, FP16 (16 KiB each), double-buffered:
  // an assumption of this model.
  int codebook_kib = 32;

  template <class V>
  void visit(V& v) {
    v.field("weight_kib", weight_kib, between(1, 1 << 20), "weight buffer, KiB");
    v.field("input_kib", input_kib, between(1, 1 << 20), "activation buffer, KiB");
    v.field("output_kib", output_kib, between(1, 1 << 20), "output buffer, KiB");
    v.field("codebook_kib", codebook_kib, between(1, 1 << 20), "codebook buffer (EVA), KiB");
  }
};

// The LM head's weights (formats.lm_head): FP16, or the layers' format.
enum class LmHead { fp16, native };
template <>
struct EnumNames<LmHead> {
  static const std::vector<std::pair<std::string_view, LmHead>>& list() {
    static const std::vector<std::pair<std::string_view, LmHead>> names = {{"fp16", LmHead::fp16},
                                                                           {"native", LmHead::native}};
    return names;
  }
};

struct FormatConfig {
  // A8W8 with 8-bit outputs and INT32 accumulators: the EVA artifact's SA and
  // ANT baselines (configs/methods/baselines.yaml).
  int act_bits = 8;
  int weight_bits = 8;
  int out_bits = 8;
  int acc_bits = 32;
  // The attention KV cache: FP16 (BRIEF section 5: attention reads the KV
  // cache in FP16 and is not VQ).
  int kv_bits = 16;
  // A quantised KV cache's per-group parameters: each group of kv_group
  // elements carries kv_group_bytes (0: none, as FP16 needs). `--kv-cache
  // int8|int4` sets 32 elements with an FP16 scale and an FP16 zero point,
  // KIVI's asymmetric grouping (Liu et al., ICML 2024; its examples use
  // group_size 32).
  int kv_group = 0;
  int kv_group_bytes = 4;
  // The LM head: FP16, as every quantiser modelled here leaves it (AQLM,
  // Egiazarian et al., ICML 2024, and GPTVQ, van Baalen et al., 2024, quantise
  // the decoder layers only; GPTQ-style INT4 and the BCQ of LUT-GEMM/FIGLUT
  // likewise keep the embeddings and the head in FP16). `native`: in the
  // layers' format, the paper setting's convention (the EVA artifact prices
  // the decoder layers only).
  LmHead lm_head = LmHead::fp16;

  template <class V>
  void visit(V& v) {
    v.field("act_bits", act_bits, between(1, 64), "bits per activation in memory");
    v.field("weight_bits", weight_bits, between(1, 64), "bits per weight in memory");
    v.field("out_bits", out_bits, between(1, 64), "bits per output written back");
    v.field("acc_bits", acc_bits, between(1, 64), "bits per accumulator in the output buffer");
    v.field("kv_bits", kv_bits, between(1, 32), "bits per KV-cache element");
    v.field("kv_group", kv_group, between(0, 1 << 20), "KV-cache elements per quantisation group (0: no groups)");
    v.field("kv_group_bytes", kv_group_bytes, between(0, 1024), "bytes of scale and zero point per KV group");
    v.field("lm_head", lm_head, "fp16 | native: the LM head's weights in FP16 or in the layers' format");
  }

  // Bytes of `elements` KV-cache elements, their groups' parameters included.
  std::uint64_t kv_bytes(std::uint64_t elements) const;

  // The formats of attention over the KV cache: FP16 activations and outputs,
  // INT32/FP32 accumulators, the cache itself at kv_bits as the "weights".
  FormatConfig kv_formats() const {
    return FormatConfig{16, kv_bits, 16, 32, kv_bits, kv_group, kv_group_bytes, lm_head};
  }
  // The formats of a GEMM over dense FP16 weights (an FP16 LM head).
  FormatConfig fp16_formats() const { return FormatConfig{16, 16, 16, 32, 16, 0, 0, lm_head}; }
};

struct TilingConfig {
  // Input rows per block: 1024, the EVA artifact's dense buffer tile
  // (configs/methods/baselines.yaml tile m).
  int m_tile = 1024;
  // Not a config key: the platform sets it from the DRAM's peak bandwidth and
  // the clock, so that the control can estimate which schedule is faster.
  // 0: unknown (the control then minimises bytes moved).
  double dram_bytes_per_cycle = 0.0;

  template <class V>
  void visit(V& v) {
    v.field("m_tile", m_tile, between(1, 1 << 24), "input rows per block");
  }
};

// Bytes taken by `count` elements of `bits` each, packed.
inline std::uint64_t packed_bytes(std::uint64_t count, int bits) {
  return (count * static_cast<std::uint64_t>(bits) + 7) / 8;
}

// Bytes of `count` elements of `bits` each in groups of `group` (0: none),
// each group with `group_bytes` of parameters beside its elements.
inline std::uint64_t grouped_bytes(std::uint64_t count, int bits, int group, int group_bytes) {
  const std::uint64_t groups =
      group > 0 ? (count + static_cast<std::uint64_t>(group) - 1) / static_cast<std::uint64_t>(group) : 0;
  return packed_bytes(count, bits) + groups * static_cast<std::uint64_t>(group_bytes);
}

inline std::uint64_t FormatConfig::kv_bytes(std::uint64_t elements) const {
  return grouped_bytes(elements, kv_bits, kv_group, kv_group_bytes);
}

}  // namespace eva
