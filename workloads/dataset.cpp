#include "dataset.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "config/builtin_files.hpp"
#include "config/input_file.hpp"
#include "model_config.hpp"

namespace eva {

std::vector<Request> load_dataset(const std::string& name_or_path) {
  const auto& files = builtin_files();
  const auto it = files.find("workloads/datasets/" + name_or_path + ".json");
  std::string text;
  if (it != files.end()) {
    text = it->second;
  } else if (name_or_path.find('/') != std::string::npos || name_or_path.find(".json") != std::string::npos) {
    try {
      text = read_input_file(name_or_path);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--dataset: {}", e.what()));
    }
  } else {
    throw InputError(fmt::format("--dataset: unknown name '{}' (built-in: {}; or a path to a JSON file)", name_or_path,
                                 fmt::join(builtin_dataset_names(), ", ")));
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array())
    throw InputError(fmt::format("--dataset: {}: expected a JSON array of requests", name_or_path));
  std::vector<Request> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& r = j[i];
    const auto length = [&](const char* key) {
      if (!r.is_object() || !r.contains(key) || !r[key].is_number_integer() || r[key].get<std::int64_t>() <= 0)
        throw InputError(
            fmt::format("--dataset: {}: request {}: '{}' must be a positive integer", name_or_path, i, key));
      return static_cast<std::uint64_t>(r[key].get<std::int64_t>());
    };
    out.push_back({length("input_length"), length("output_length")});
  }
  if (out.empty()) throw InputError(fmt::format("--dataset: {}: no requests", name_or_path));
  return out;
}

}  // namespace eva
