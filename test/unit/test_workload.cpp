// The workload compiler (no kernel): the operations of a forward pass.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "model_config.hpp"
#include "workload.hpp"

using namespace eva;

namespace {

std::map<std::string, WorkloadOp> layer0(const Workload& w) {
  std::map<std::string, WorkloadOp> ops;
  for (const WorkloadOp& op : w.ops)
    if (op.layer == 0 && op.expert < 0) ops[op.name] = op;
  return ops;
}

}  // namespace

TEST_CASE("LLaMA-2-7B decode: every layer's FCs, attention over the KV cache, vector ops, LM head") {
  const ModelConfig m = load_model("llama2-7b");
  WorkloadRequest r;
  r.phase = Phase::decode;
  r.seq_len = 300;
  const Workload w = compile_workload(m, r);
  CHECK(w.tokens == 1);
  CHECK(w.ops.size() == 32u * 16 + 2);  // 16 per layer, final norm, LM head
  auto ops = layer0(w);
  CHECK(ops["q_proj"].m == 1);
  CHECK(ops["q_proj"].k == 4096);
  CHECK(ops["q_proj"].n == 4096);
  CHECK(ops["down_proj"].k == 11008);
  CHECK(ops["attn_qk"].kind == WorkloadOp::Kind::attention);
  CHECK(ops["attn_qk"].count == 32);  // one per KV head
  CHECK(ops["attn_qk"].m == 1);
  CHECK(ops["attn_qk"].k == 128);
  CHECK(ops["attn_qk"].n == 300);
  CHECK(ops["attn_av"].k == 300);
  CHECK(ops["softmax"].rows == 32);
  CHECK(ops["softmax"].cols == 300);
  CHECK(w.ops.back().name == "lm_head");
  CHECK(w.ops.back().n == 32000);
  double fc_ops = 0;
  for (const auto& op : w.ops)
    if (op.kind == WorkloadOp::Kind::fc) fc_ops += op.work_ops();
  // 2 x parameters of the FC layers: 32 x (4 x 4096^2 + 3 x 4096 x 11008) + 4096 x 32000.
  CHECK(fc_ops == Approx(2.0 * (32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008) + 4096.0 * 32000)));
}

TEST_CASE("Grouped-query attention: KV heads carry their query heads as rows and Qwen3's q_proj widens") {
  const ModelConfig m = load_model("qwen3-30b-a3b");
  WorkloadRequest r;
  r.seq_len = 64;
  auto ops = layer0(compile_workload(m, r));
  CHECK(ops["q_proj"].n == 4096);  // 32 heads x 128
  CHECK(ops["k_proj"].n == 512);   // 4 KV heads x 128
  CHECK(ops["o_proj"].k == 4096);
  CHECK(ops["attn_qk"].count == 4);
  CHECK(ops["attn_qk"].m == 8);  // 32 / 4 query heads per KV head
}

TEST_CASE("Prefill: every prompt token through the FCs, full attention, LM head on the last token") {
  const ModelConfig m = load_model("llama3-8b");
  WorkloadRequest r;
  r.phase = Phase::prefill;
  r.batch = 2;
  r.seq_len = 100;
  const Workload w = compile_workload(m, r);
  CHECK(w.tokens == 200);
  auto ops = layer0(w);
  CHECK(ops["q_proj"].m == 200);
  CHECK(ops["attn_qk"].count == 2 * 8);
  CHECK(ops["attn_qk"].m == 4 * 100);
  CHECK(ops["attn_qk"].n == 100);
  CHECK(w.ops.back().m == 2);
}

TEST_CASE("MoE: the router picks top-k experts per token, deterministic per seed, and a batch loads each once") {
  const ModelConfig m = load_model("mixtral-8x7b");
  WorkloadRequest r;
  r.seed = 5;
  const Workload one = compile_workload(m, r);
  CHECK(one.experts_touched == 32u * 2);  // batch 1: top-2 per layer
  std::uint64_t tokens = 0;
  for (const auto& op : one.ops)
    if (op.name == "expert.gate_proj") tokens += op.m;
  CHECK(tokens == 32u * 2);
  CHECK(compile_workload(m, r).ops.size() == one.ops.size());
  r.batch = 16;
  const Workload many = compile_workload(m, r);
  CHECK(many.experts_touched <= 32u * 8);
  CHECK(many.experts_touched > 32u * 2);
  std::uint64_t routed = 0;
  for (const auto& op : many.ops)
    if (op.name == "expert.up_proj") routed += op.m;
  CHECK(routed == 32u * 16 * 2);  // every token reaches its top-2
}

TEST_CASE("Routing skew piles tokens on fewer experts") {
  const ModelConfig m = load_model("qwen3-30b-a3b");
  WorkloadRequest r;
  r.batch = 64;
  const std::uint64_t uniform = compile_workload(m, r).experts_touched;
  r.routing_skew = 2.0;
  const std::uint64_t skewed = compile_workload(m, r).experts_touched;
  CHECK(skewed < uniform);
}

TEST_CASE("Workload requests need positive batch and length") {
  const ModelConfig m = load_model("llama2-7b");
  WorkloadRequest r;
  r.batch = 0;
  CHECK_THROWS_AS(compile_workload(m, r), InputError);
  r.batch = 1;
  r.seq_len = 0;
  CHECK_THROWS_AS(compile_workload(m, r), InputError);
}
