#pragma once
// The workload compiler: (model, phase, batch, sequence length) -> the ordered
// operations of one forward pass. Plain C++, no SystemC.
//
// Per decoder layer: RMSNorm; the q, k, v projections (VQ/quantised FCs);
// RoPE; attention per sequence and KV head, QK^T then softmax then AV, over an
// FP16 KV cache of the sequence's length (grouped-query heads share their KV
// head's GEMM as extra rows); the o projection; the residual add; RMSNorm;
// the FFN (gate, up, SiLU x up, down), or for MoE models the router, a
// softmax over the experts, and only the selected experts' FFNs, each on the
// tokens routed to it (every expert touched by the batch is loaded once);
// the residual add. Then the final RMSNorm and the LM head (the last token of
// each sequence only).
//
// Prefill: each of `batch` sequences runs its `seq_len` prompt tokens; the
// attention is not masked (causal masking would halve QK^T and AV; the
// artifact does not mask either). Decode: one new token per sequence against
// `seq_len` cached positions (the new one included).
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/op_descriptor.hpp"
#include "model_config.hpp"

namespace eva {

enum class Phase { prefill, decode };
template <>
struct EnumNames<Phase> {
  static const std::vector<std::pair<std::string_view, Phase>>& list() {
    static const std::vector<std::pair<std::string_view, Phase>> names = {{"prefill", Phase::prefill},
                                                                          {"decode", Phase::decode}};
    return names;
  }
};

struct WorkloadRequest {
  Phase phase = Phase::decode;
  std::uint64_t batch = 1;
  std::uint64_t seq_len = 128;  // prefill: prompt tokens; decode: KV positions
  // MoE routing: per token, the top-k of (expert bias + Gumbel noise); the
  // biases are normal with standard deviation 3 x skew per layer (0: uniform).
  double routing_skew = 0.0;
  std::uint64_t seed = 1;
};

struct WorkloadOp {
  enum class Kind { fc, attention, vector };
  Kind kind = Kind::fc;
  std::string name;  // e.g. "q_proj", "expert.down", "attn.qk", "rmsnorm"
  // fc, attention, vector, lm_head or moe_router (the router and its softmax).
  bool is_lm_head() const { return kind == Kind::fc && name == "lm_head"; }
  const char* kind_name() const {
    if (is_lm_head()) return "lm_head";
    if (name.rfind("router", 0) == 0) return "moe_router";
    return kind == Kind::fc ? "fc" : kind == Kind::attention ? "attention" : "vector";
  }
  int layer = -1;   // -1: model-level (LM head, final norm)
  int expert = -1;  // MoE FFN ops
  // GEMMs: y (m x n) = x (m x k) W (k x n), `count` times (attention: one per
  // sequence and KV head, each with its own cache).
  std::uint64_t m = 0, n = 0, k = 0, count = 1;
  // Vector ops.
  VectorOp vop = VectorOp::add;
  std::uint64_t rows = 0, cols = 0;

  // What the op's cost depends on: equal signatures cost the same.
  std::string signature() const;
  // "layer3.q_proj", "layer3.expert.down.5", "lm_head": the op in reports.
  std::string qualified_name() const;
  // The weight matrix of an FC op, unique per layer, name and expert.
  std::string weight_key() const;
  double work_ops() const { return kind == Kind::vector ? 0.0 : 2.0 * static_cast<double>(m * n * k * count); }
};

struct Workload {
  std::vector<WorkloadOp> ops;
  std::uint64_t tokens = 0;  // tokens the pass produces (decode: one per sequence)
  // MoE: experts whose weights the pass reads, summed over layers.
  std::uint64_t experts_touched = 0;
};

// Throws InputError for requests the model cannot run (zero batch or length).
Workload compile_workload(const ModelConfig& model, const WorkloadRequest& request);

}  // namespace eva
