#pragma once
// A transformer model description (workloads/models/*.yaml or a user's file),
// validated: the shapes from which the workload compiler derives every
// operation of a forward pass. No SystemC here.
#include <string>
#include <vector>

#include "common/config.hpp"

namespace eva {

struct ModelConfig {
  std::string name;
  std::string family;
  std::string description;
  int hidden = 0;    // model width
  int ffn = 0;       // FFN width (per expert for MoE models)
  int layers = 0;    // decoder layers
  int heads = 0;     // query heads
  int kv_heads = 0;  // key/value heads (grouped-query attention when < heads)
  int head_dim = 0;  // elements per head
  int vocab = 0;     // LM-head outputs
  int experts = 0;   // 0: dense FFN
  int top_k = 0;     // experts per token (MoE)

  template <class V>
  void visit(V& v) {
    v.field("name", name, "model name");
    v.field("family", family, "model family");
    v.field("description", description, "one line for eva-sim list");
    v.field("hidden", hidden, between(1, 1 << 20), "hidden size");
    v.field("ffn", ffn, between(1, 1 << 22), "FFN size (per expert)");
    v.field("layers", layers, between(1, 1 << 12), "decoder layers");
    v.field("heads", heads, between(1, 1 << 12), "query heads");
    v.field("kv_heads", kv_heads, between(1, 1 << 12), "key/value heads");
    v.field("head_dim", head_dim, between(1, 1 << 14), "elements per head");
    v.field("vocab", vocab, between(1, 1 << 24), "vocabulary size");
    v.field("experts", experts, between(0, 1 << 12), "experts per MoE layer (0: dense)");
    v.field("top_k", top_k, between(0, 1 << 12), "experts per token");
  }
};

// A built-in name (workloads/models/<name>.yaml) or a path to a YAML file.
ModelConfig load_model(const std::string& name_or_path);
std::vector<std::string> builtin_model_names();
std::vector<std::string> builtin_dataset_names();

}  // namespace eva
