#include <fstream>

#include <catch2/catch.hpp>

#include "model_config.hpp"

using namespace eva;

TEST_CASE("Every model of the brief is built in with its shapes") {
  const auto names = builtin_model_names();
  for (const char* n : {"llama1-7b", "llama1-13b", "llama1-30b", "llama1-65b", "llama2-7b", "llama2-13b", "llama2-70b",
                        "llama3-8b", "llama3-70b", "mixtral-8x7b", "qwen3-30b-a3b"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  const ModelConfig l = load_model("llama2-70b");
  CHECK(l.hidden == 8192);
  CHECK(l.ffn == 28672);
  CHECK(l.layers == 80);
  CHECK(l.kv_heads == 8);
  const ModelConfig q = load_model("qwen3-30b-a3b");
  CHECK(q.experts == 128);
  CHECK(q.top_k == 8);
  CHECK(q.heads * q.head_dim == 4096);
  CHECK(q.vocab == 151936);
}

TEST_CASE("Model files are validated") {
  const std::string path = "test_model_config_user.yaml";
  const auto with = [&](const std::string& text) {
    std::ofstream(path) << text;
    return path;
  };
  const std::string base = "name: m\nhidden: 64\nffn: 128\nlayers: 2\nhead_dim: 16\nvocab: 100\n";
  CHECK(load_model(with(base + "heads: 4\nkv_heads: 2\n")).kv_heads == 2);
  CHECK_THROWS_WITH(load_model(with(base + "heads: 4\nkv_heads: 3\n")),
                    Catch::Contains("kv_heads: expected a divisor"));
  CHECK_THROWS_WITH(load_model(with(base + "heads: 4\nkv_heads: 4\nexperts: 4\n")),
                    Catch::Contains("both be 0 (dense) or both > 0"));
  CHECK_THROWS_WITH(load_model(with(base + "heads: 4\nkv_heads: 4\nexperts: 2\ntop_k: 3\n")),
                    Catch::Contains("top_k: expected at most experts"));
  CHECK_THROWS_WITH(load_model(with(base + "heads: 4\n")), Catch::Contains("kv_heads: required key missing"));
  CHECK_THROWS_WITH(load_model(with(base + "heads: 4\nkv_heads: 4\nlayerz: 3\n")),
                    Catch::Contains("layerz: unknown key"));
  CHECK_THROWS_WITH(load_model("gpt-5"), Catch::Contains("--model: unknown name 'gpt-5'"));
  std::remove(path.c_str());
}

TEST_CASE("The Dolly data set is built in") {
  const auto d = builtin_dataset_names();
  CHECK(std::find(d.begin(), d.end(), "dolly") != d.end());
}
