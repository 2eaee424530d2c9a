// run --trace: a timeline of one forward pass in trace-event JSON.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

struct Trace {
  std::map<std::string, std::vector<std::pair<double, double>>> spans;  // track -> (start, end), us
  std::map<std::string, int> open;                                      // interval track -> begins - ends
  nlohmann::json metadata;
};

Trace read_trace(const nlohmann::json& j) {
  Trace t;
  std::map<int, std::string> names;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"];
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      const double ts = e["ts"].get<double>();
      t.spans[names.at(e["tid"].get<int>())].emplace_back(ts, ts + e["dur"].get<double>());
    } else if (e["ph"] == "b") {
      ++t.open[e["cat"].get<std::string>()];
    } else if (e["ph"] == "e") {
      --t.open[e["cat"].get<std::string>()];
    }
  }
  t.metadata = j["metadata"];
  return t;
}

// Spans of one track follow each other.
bool disjoint(std::vector<std::pair<double, double>> s) {
  std::sort(s.begin(), s.end());
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].first < s[i - 1].second - 1e-6) return false;
  return true;
}

}  // namespace

TEST_CASE("run --trace: every operation on the ops track, end to end as long as the report, and unit tracks") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  for (const char* arch : {"eva", "sa"}) {
    INFO(arch);
    const Run r = eva_sim(
        dir, {"run", "--arch", arch, "--model", "tiny.yaml", "--trace", "t.json", "--json", "r.json", "--quiet"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto report = dir.json("r.json");
    const Trace t = read_trace(dir.json("t.json"));
    REQUIRE(t.spans.count("ops"));
    const auto& ops = t.spans.at("ops");
    CHECK(ops.size() == report["ops"].size());
    double total = 0;
    for (const auto& [start, end] : ops) total += end - start;
    CHECK(total * 1e-6 == Approx(report["seconds"].get<double>()).epsilon(1e-9));
    CHECK(std::max_element(ops.begin(), ops.end())->second * 1e-6 ==
          Approx(report["seconds"].get<double>()).epsilon(1e-9));
    CHECK(report["ops"][0]["name"] == "layer0.attn_norm");  // a traced run names its ops in full
    CHECK(t.spans.count("array"));
    CHECK(t.spans.count("vector"));
    if (std::string(arch) == "eva") CHECK(t.spans.count("epilogue"));
    for (const auto& [track, s] : t.spans) {
      INFO(track);
      CHECK(disjoint(s));
    }
    CHECK(t.open.at("dma read") == 0);
    CHECK(t.open.at("dma write") == 0);
    CHECK(t.metadata["dropped_spans"] == 0);
  }
}

TEST_CASE("run --trace keeps at most sim.trace_max_spans unit spans, and every operation") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  const Run r = eva_sim(dir, {"run", "--arch", "sa", "--model", "tiny.yaml", "--trace", "t.json", "--set",
                              "sim.trace_max_spans=20", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Trace t = read_trace(dir.json("t.json"));
  CHECK(t.spans.at("ops").size() == 34);
  CHECK(t.metadata["spans"] == 34 + 20);
  CHECK(t.metadata["dropped_spans"].get<int>() > 0);
}

TEST_CASE("Bad input: --trace of an end-to-end run, or into a missing directory") {
  Scratch dir;
  Run r = eva_sim(dir, {"run", "--arch", "sa", "--model", "llama2-7b", "--phase", "e2e", "--trace", "t.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--trace: a timeline is of one forward pass") != std::string::npos);
  r = eva_sim(dir, {"run", "--arch", "sa", "--model", "llama2-7b", "--trace", "no/dir/t.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--trace no/dir/t.json: directory 'no/dir'") != std::string::npos);
  CHECK(dir.files().empty());
}

TEST_CASE("run --trace --trace-layers: only the chosen decoder layers run and are traced, and the report says so") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  const Run whole = eva_sim(
      dir, {"run", "--arch", "eva", "--model", "tiny.yaml", "--trace", "all.json", "--json", "all.r.json", "--quiet"});
  const Run one = eva_sim(dir, {"run", "--arch", "eva", "--model", "tiny.yaml", "--trace", "t.json", "--trace-layers",
                                "1", "--json", "r.json", "--quiet"});
  INFO(one.err);
  REQUIRE(whole.exit_code == 0);
  REQUIRE(one.exit_code == 0);
  CHECK(one.out.find("layers 1 to 1 only") != std::string::npos);
  const auto report = dir.json("r.json"), all = dir.json("all.r.json");
  CHECK(report["trace_layers"] == "1-1");
  std::size_t layer1 = 0;
  for (const auto& op : all["ops"]) layer1 += op["name"].get<std::string>().rfind("layer1.", 0) == 0;
  REQUIRE(layer1 > 0);
  CHECK(report["ops"].size() == layer1);  // every op of layer 1, and nothing else (no LM head)
  for (const auto& op : report["ops"]) CHECK(op["name"].get<std::string>().rfind("layer1.", 0) == 0);
  const Trace t = read_trace(dir.json("t.json"));
  CHECK(t.spans.at("ops").size() == layer1);
  CHECK(report["seconds"].get<double>() < all["seconds"].get<double>());
}

TEST_CASE("Bad input: --trace-layers without --trace, reversed, beyond the model's layers, or not a number") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--trace-layers", "0"}, "give --trace FILE"},
      {{"--trace", "t.json", "--trace-layers", "1-0"}, "the first layer comes after the last"},
      {{"--trace", "t.json", "--trace-layers", "2"}, "tiny has layers 0 to 1"},
      {{"--trace", "t.json", "--trace-layers", "a-b"}, "expected a layer or a range"},
      {{"--trace", "t.json", "--trace-layers", "-1"}, "expected a layer or a range"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = {"run", "--arch", "sa", "--model", "tiny.yaml", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Run r = eva_sim(dir, args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--trace-layers") != std::string::npos);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(!dir.exists("t.json"));
  }
}
