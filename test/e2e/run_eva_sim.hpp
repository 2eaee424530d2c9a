#pragma once
// Runs the eva-sim binary in a scratch directory and captures what it did.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eva::test {

struct Run {
  int exit_code = -1;
  std::string out, err;
};

// A fresh directory per test, removed at the end.
class Scratch {
 public:
  Scratch();
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string path(const std::string& name) const { return m_dir + "/" + name; }
  bool exists(const std::string& name) const;
  std::vector<std::string> files() const;
  void write(const std::string& name, const std::string& text) const;
  nlohmann::json json(const std::string& name) const;

 private:
  std::string m_dir;
};

// Simulating commands run with the base-protocol checker on unless
// `check_protocol` is false.
Run eva_sim(const Scratch& dir, const std::vector<std::string>& args, bool check_protocol = true);

// A two-layer model with grouped-query attention: fast to run in full.
inline const char* const tiny_model = R"(name: tiny
family: test
description: a two-layer model for tests
hidden: 512
ffn: 1024
layers: 2
heads: 8
kv_heads: 2
head_dim: 64
vocab: 1000
)";

// A two-request trace for e2e.
inline const char* const tiny_trace = R"([{"input_length": 7, "output_length": 12},
 {"input_length": 3, "output_length": 30}])";

// Writes tiny.yaml (tiny_model) and trace.json (tiny_trace) into `dir`.
inline Scratch& with_inputs(Scratch& dir) {
  dir.write("tiny.yaml", tiny_model);
  dir.write("trace.json", tiny_trace);
  return dir;
}

}  // namespace eva::test
