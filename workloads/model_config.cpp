#include "model_config.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "config/builtin_files.hpp"
#include "config/param_set.hpp"

namespace eva {

namespace {

const std::string model_dir = "workloads/models/";
const std::string dataset_dir = "workloads/datasets/";

void require(const std::string& name, const char* key, const std::string& file, const Param* p) {
  if (!p) throw InputError(fmt::format("{}: {}: required key missing (model {})", file, key, name));
}

}  // namespace

std::vector<std::string> builtin_model_names() { return builtin_names(model_dir, ".yaml"); }
std::vector<std::string> builtin_dataset_names() { return builtin_names(dataset_dir, ".json"); }

ModelConfig load_model(const std::string& name_or_path) {
  const auto& files = builtin_files();
  const auto it = files.find(model_dir + name_or_path + ".yaml");
  ParamSet params;
  std::string source;
  if (it != files.end()) {
    source = it->first;
    params = ParamSet::from_yaml(it->second, source);
  } else if (name_or_path.find('/') != std::string::npos || name_or_path.find(".yaml") != std::string::npos ||
             name_or_path.find(".yml") != std::string::npos) {
    source = name_or_path;
    params = ParamSet::from_file(name_or_path);
  } else {
    throw InputError(fmt::format("--model: unknown name '{}' (built-in: {}; or a path to a YAML file)", name_or_path,
                                 fmt::join(builtin_model_names(), ", ")));
  }
  for (const char* key : {"name", "hidden", "ffn", "layers", "heads", "kv_heads", "head_dim", "vocab"})
    require(name_or_path, key, source, params.find(key));

  ModelConfig m;
  ConfigReader reader(params, "model " + name_or_path);
  m.visit(reader);
  reader.finish();
  if (m.heads % m.kv_heads != 0) reader.fail("kv_heads", fmt::format("expected a divisor of heads ({})", m.heads));
  if ((m.experts == 0) != (m.top_k == 0))
    reader.fail(m.experts == 0 ? "top_k" : "experts", "experts and top_k must both be 0 (dense) or both > 0");
  if (m.top_k > m.experts) reader.fail("top_k", fmt::format("expected at most experts ({})", m.experts));
  return m;
}

}  // namespace eva
