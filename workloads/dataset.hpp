#pragma once
// Request traces for end-to-end runs: per request, the prompt's and the
// answer's lengths in tokens (workloads/datasets/<name>.json, or a file of
// the same form: a JSON array of {"input_length", "output_length"} objects).
#include <cstdint>
#include <string>
#include <vector>

namespace eva {

struct Request {
  std::uint64_t input = 0, output = 0;
};

// A built-in name or a path. Throws InputError on a missing file, bad JSON or
// a request without positive lengths (naming its index).
std::vector<Request> load_dataset(const std::string& name_or_path);

}  // namespace eva
