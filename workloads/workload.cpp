#include "workload.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

std::string WorkloadOp::signature() const {
  switch (kind) {
    case Kind::fc:  // an LM head may take another format than the layers
      return fmt::format("{} {}x{}x{}", is_lm_head() ? "head" : "fc", m, n, k);
    case Kind::attention:
      return fmt::format("attn {}x{}x{}", m, n, k);
    case Kind::vector:
      return fmt::format("vec {} {}x{}", static_cast<int>(vop), rows, cols);
  }
  return {};
}

std::string WorkloadOp::qualified_name() const {
  if (layer < 0) return name;
  if (expert < 0) return fmt::format("layer{}.{}", layer, name);
  return fmt::format("layer{}.{}.{}", layer, name, expert);
}

std::string WorkloadOp::weight_key() const { return fmt::format("{}.{}.{}", layer, expert, name); }

namespace {

// Deterministic across standard libraries: uniform doubles from raw draws.
double uniform01(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }
double normal(std::mt19937_64& rng) {
  return std::sqrt(-2.0 * std::log(uniform01(rng))) * std::cos(2.0 * M_PI * uniform01(rng));
}

// Tokens routed to each expert in one layer: per token, the top-k experts by
// bias + Gumbel noise (the artifact's stage-2 router draws the same way).
std::vector<std::uint64_t> route(const ModelConfig& model, const WorkloadRequest& r, std::uint64_t tokens, int layer) {
  const auto experts = static_cast<std::size_t>(model.experts);
  std::mt19937_64 rng(r.seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(layer) + 1);
  std::vector<double> bias(experts, 0.0);
  for (double& b : bias) b = r.routing_skew > 0 ? normal(rng) * 3.0 * r.routing_skew : 0.0;
  std::vector<std::uint64_t> load(experts, 0);
  std::vector<double> score(experts);
  std::vector<std::size_t> order(experts);
  for (std::uint64_t t = 0; t < tokens; ++t) {
    for (std::size_t e = 0; e < experts; ++e) score[e] = bias[e] - std::log(-std::log(uniform01(rng)));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + model.top_k, order.end(),
                      [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
    for (int i = 0; i < model.top_k; ++i) ++load[order[static_cast<std::size_t>(i)]];
  }
  return load;
}

struct Builder {
  std::vector<WorkloadOp>& ops;
  int layer = -1, expert = -1;

  // An op of this layer and expert.
  WorkloadOp& add(WorkloadOp::Kind kind, const char* name) {
    WorkloadOp& op = ops.emplace_back();
    op.kind = kind;
    op.name = name;
    op.layer = layer;
    op.expert = expert;
    return op;
  }
  void gemm(WorkloadOp::Kind kind, const char* name, std::uint64_t count, std::uint64_t m, std::uint64_t k,
            std::uint64_t n) {
    WorkloadOp& op = add(kind, name);
    op.m = m;
    op.n = n;
    op.k = k;
    op.count = count;
  }
  void fc(const char* name, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
    gemm(WorkloadOp::Kind::fc, name, 1, m, k, n);
  }
  void attention(const char* name, std::uint64_t count, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
    gemm(WorkloadOp::Kind::attention, name, count, m, k, n);
  }
  void vector(const char* name, VectorOp v, std::uint64_t rows, std::uint64_t cols) {
    WorkloadOp& op = add(WorkloadOp::Kind::vector, name);
    op.vop = v;
    op.rows = rows;
    op.cols = cols;
  }
};

}  // namespace

Workload compile_workload(const ModelConfig& model, const WorkloadRequest& r) {
  if (r.batch == 0) throw InputError("--batch: expected a positive number of sequences");
  if (r.seq_len == 0) throw InputError("--seq-len: expected a positive number of tokens");
  Workload w;
  const auto hidden = static_cast<std::uint64_t>(model.hidden), ffn = static_cast<std::uint64_t>(model.ffn);
  const auto hd = static_cast<std::uint64_t>(model.head_dim);
  const auto heads = static_cast<std::uint64_t>(model.heads), kv_heads = static_cast<std::uint64_t>(model.kv_heads);
  const std::uint64_t groups = heads / kv_heads;
  const std::uint64_t q_len = r.phase == Phase::prefill ? r.seq_len : 1;  // new tokens per sequence
  const std::uint64_t tokens = r.batch * q_len, kv_len = r.seq_len;
  w.tokens = r.phase == Phase::prefill ? tokens : r.batch;
  Builder b{w.ops};
  for (int layer = 0; layer < model.layers; ++layer) {
    b.layer = layer;
    b.vector("attn_norm", VectorOp::rmsnorm, tokens, hidden);
    b.fc("q_proj", tokens, hidden, heads * hd);
    b.fc("k_proj", tokens, hidden, kv_heads * hd);
    b.fc("v_proj", tokens, hidden, kv_heads * hd);
    b.vector("rope", VectorOp::rope, tokens, (heads + kv_heads) * hd);
    b.attention("attn_qk", r.batch * kv_heads, groups * q_len, hd, kv_len);
    b.vector("softmax", VectorOp::softmax, r.batch * heads * q_len, kv_len);
    b.attention("attn_av", r.batch * kv_heads, groups * q_len, kv_len, hd);
    b.fc("o_proj", tokens, heads * hd, hidden);
    b.vector("attn_residual", VectorOp::add, tokens, hidden);
    b.vector("ffn_norm", VectorOp::rmsnorm, tokens, hidden);
    if (model.experts == 0) {
      b.fc("gate_proj", tokens, hidden, ffn);
      b.fc("up_proj", tokens, hidden, ffn);
      b.vector("silu_mul", VectorOp::silu_mul, tokens, ffn);
      b.fc("down_proj", tokens, ffn, hidden);
    } else {
      b.fc("router", tokens, hidden, static_cast<std::uint64_t>(model.experts));
      b.vector("router_softmax", VectorOp::softmax, tokens, static_cast<std::uint64_t>(model.experts));
      const std::vector<std::uint64_t> load = route(model, r, tokens, layer);
      for (std::size_t e = 0; e < load.size(); ++e) {
        if (load[e] == 0) continue;
        ++w.experts_touched;
        b.expert = static_cast<int>(e);
        b.fc("expert.gate_proj", load[e], hidden, ffn);
        b.fc("expert.up_proj", load[e], hidden, ffn);
        b.vector("expert.silu_mul", VectorOp::silu_mul, load[e], ffn);
        b.fc("expert.down_proj", load[e], ffn, hidden);
      }
      b.expert = -1;
      // The weighted sum of each token's top-k expert outputs.
      b.vector("expert_combine", VectorOp::mul, tokens * static_cast<std::uint64_t>(model.top_k), hidden);
    }
    b.vector("ffn_residual", VectorOp::add, tokens, hidden);
  }
  b.layer = -1;
  b.vector("final_norm", VectorOp::rmsnorm, r.batch, hidden);
  b.fc("lm_head", r.batch, hidden, static_cast<std::uint64_t>(model.vocab));
  return w;
}

}  // namespace eva
