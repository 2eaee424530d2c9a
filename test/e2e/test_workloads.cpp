// run, compare and e2e from the command line, on a small model file.
#include <algorithm>
#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

TEST_CASE("run --phase decode reports every operation of the model, with energy") {
  Scratch dir;
  with_inputs(dir);
  const Run r = eva_sim(dir, {"run", "--arch", "eva", "--model", dir.path("tiny.yaml"), "--phase", "decode",
                              "--seq-len", "50", "--json", "r.json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = dir.json("r.json");
  CHECK(j["model"] == "tiny");
  CHECK(j["phase"] == "decode");
  CHECK(j["ops"].size() == 2 * 16 + 2);
  CHECK(j["tokens"] == 1);
  CHECK(j["energy_j"].get<double>() > 0);
  double cycles = 0;
  for (const auto& op : j["ops"]) cycles += op["cycles"].get<double>();
  CHECK(cycles == Approx(j["cycles"].get<double>()));
}

TEST_CASE("compare writes one report per architecture with ratios, and is deterministic") {
  Scratch dir;
  with_inputs(dir);
  const std::vector<std::string> args = {"compare", "--model", dir.path("tiny.yaml"), "--archs", "sa,figlut,eva",
                                         "--phase", "prefill", "--seq-len",           "40"};
  auto first = args, second = args;
  first.insert(first.end(), {"--json", "a.json", "--csv", "a.csv"});
  second.insert(second.end(), {"--json", "b.json"});
  const Run r1 = eva_sim(dir, first), r2 = eva_sim(dir, second);
  INFO(r1.err);
  REQUIRE(r1.exit_code == 0);
  REQUIRE(r2.exit_code == 0);
  const auto a = dir.json("a.json"), b = dir.json("b.json");
  REQUIRE(a["results"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(a["results"][i]["cycles"] == b["results"][i]["cycles"]);
    CHECK(a["results"][i]["energy_j"] == b["results"][i]["energy_j"]);
    CHECK(a["results"][i].contains("speedup_vs_sa"));
    CHECK(a["results"][i].contains("energy_efficiency_vs_figlut"));
  }
  CHECK(a["results"][0]["speedup_vs_sa"].get<double>() == Approx(1.0));
  CHECK(dir.exists("a.csv"));
  CHECK(r1.out.find("speedup/figlut") != std::string::npos);
}

TEST_CASE("compare and e2e --plot draw a PNG and write nothing else") {
  Scratch dir;
  with_inputs(dir);
  const Run c = eva_sim(dir, {"compare", "--model", "tiny.yaml", "--archs", "sa,figlut,eva", "--plot", "c.png"});
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const Run e = eva_sim(dir, {"e2e", "--model", "tiny.yaml", "--dataset", "trace.json", "--archs", "eva,sa", "--plot",
                              "e.png", "--quiet"});
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  for (const char* png : {"c.png", "e.png"}) {
    std::ifstream in(dir.path(png), std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    CHECK(std::string(magic, 8) == "\x89PNG\r\n\x1a\n");
  }
  std::vector<std::string> files = dir.files();
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"c.png", "e.png", "tiny.yaml", "trace.json"});
}

TEST_CASE("compare --plot-log draws the latency axis logarithmic, only on request") {
  Scratch dir;
  with_inputs(dir);
  const auto plot = [&](const char* png, bool log) {
    std::vector<std::string> args = {"compare", "--model", "tiny.yaml", "--archs", "sa,eva", "--plot", png, "--quiet"};
    if (log) args.push_back("--plot-log");
    const Run r = eva_sim(dir, args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::ifstream in(dir.path(png), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string linear = plot("lin.png", false), log = plot("log.png", true), again = plot("lin2.png", false);
  CHECK(linear.rfind("\x89PNG", 0) == 0);
  CHECK(log.rfind("\x89PNG", 0) == 0);
  CHECK(linear == again);  // the same figure, drawn again
  CHECK(log != linear);
  const Run bad = eva_sim(dir, {"compare", "--model", "tiny.yaml", "--archs", "sa", "--plot-log"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--plot-log: sets the axis of a --plot; give --plot FILE.png") != std::string::npos);
}

TEST_CASE("run --plot draws a roofline of the operations as a PNG and writes nothing else") {
  Scratch dir;
  with_inputs(dir);
  const Run r = eva_sim(dir, {"run", "--arch", "eva", "--model", "tiny.yaml", "--plot", "roof.png", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir.path("roof.png"), std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  CHECK(std::string(magic, 8) == "\x89PNG\r\n\x1a\n");
  std::vector<std::string> files = dir.files();
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"roof.png", "tiny.yaml", "trace.json"});
  CHECK(eva_sim(dir, {"run", "--arch", "eva", "--model", "tiny.yaml", "--plot", "no/dir/r.png"}).exit_code == 2);
}

TEST_CASE("e2e over a trace file: per-request latency, tokens/s and energy per token") {
  Scratch dir;
  with_inputs(dir);
  const Run r = eva_sim(dir, {"e2e", "--model", dir.path("tiny.yaml"), "--dataset", dir.path("trace.json"), "--archs",
                              "sa,eva", "--json", "e.json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = dir.json("e.json");
  REQUIRE(j["results"].size() == 2);
  for (const auto& x : j["results"]) {
    CHECK(x["requests"] == 2);
    CHECK(x["output_tokens"] == 42);
    CHECK(x["mean_latency_s"].get<double>() == Approx(x["seconds"].get<double>() / 2));
    CHECK(x["tokens_per_s"].get<double>() == Approx(42 / x["seconds"].get<double>()));
    CHECK(x["energy_per_token_j"].get<double>() == Approx(x["energy_j"].get<double>() / 42));
  }
}

TEST_CASE("Bad input to the whole-model commands exits 2 and writes nothing") {
  Scratch dir;
  with_inputs(dir);
  dir.write("bad_trace.json", R"([{"input_length": 3}])");
  dir.write("bad_model.yaml",
            "name: x\nhidden: 64\nffn: 128\nlayers: 1\nheads: 3\nkv_heads: 2\nhead_dim: 8\nvocab: 10\n");
  const auto expect_2 = [&](std::vector<std::string> args, const std::string& expected) {
    args.insert(args.end(), {"--json", "out.json"});
    const Run r = eva_sim(dir, args);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(!dir.exists("out.json"));
  };
  const std::string model = dir.path("tiny.yaml");
  expect_2({"run", "--arch", "sa", "--model", model, "--phase", "sideways"}, "--phase");
  expect_2({"run", "--arch", "sa", "--model", model, "--batch", "0"}, "--batch");
  expect_2({"run", "--arch", "nope", "--model", model}, "nope");
  expect_2({"run", "--arch", "sa", "--model", dir.path("bad_model.yaml")}, "kv_heads");
  expect_2({"compare", "--model", model, "--archs", "sa,,eva"}, "--archs");
  expect_2({"e2e", "--model", model, "--dataset", dir.path("bad_trace.json")}, "output_length");
  expect_2({"e2e", "--model", model, "--dataset", dir.path("trace.json"), "--requests", "3"}, "--requests");
  expect_2({"e2e", "--model", model, "--dataset", "no-such-set"}, "no-such-set");
}

TEST_CASE("compare and e2e with -j 2 (platforms shared among processes) give the same reports as -j 1") {
  Scratch dir;
  with_inputs(dir);
  const std::vector<std::vector<std::string>> commands = {
      {"compare", "--model", "tiny.yaml", "--archs", "sa,figlut,eva", "--dram", "lpddr5-6400"},
      {"e2e", "--model", "tiny.yaml", "--dataset", "trace.json", "--archs", "eva,sa,figna"}};
  for (const auto& command : commands) {
    INFO(command.front());
    auto one = command, two = command;
    one.insert(one.end(), {"-j", "1", "--json", "one.json", "--quiet"});
    two.insert(two.end(), {"-j", "2", "--json", "two.json", "--quiet"});
    const Run r1 = eva_sim(dir, one), r2 = eva_sim(dir, two);
    INFO(r1.err << r2.err);
    REQUIRE(r1.exit_code == 0);
    REQUIRE(r2.exit_code == 0);
    auto a = dir.json("one.json"), b = dir.json("two.json");
    REQUIRE(a["results"].size() == 3);
    for (auto* j : {&a, &b})
      for (auto& r : (*j)["results"]) r.erase("sim_wall_s");
    CHECK(a == b);
  }
}

TEST_CASE("compare --baseline takes ratios against any compared architecture and the CSV carries them with tokens/s") {
  Scratch dir;
  with_inputs(dir);
  const Run r = eva_sim(dir, {"compare", "--model", "tiny.yaml", "--archs", "sa,figna,eva", "--baseline", "figna",
                              "--csv", "c.csv", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("speedup/figna") != std::string::npos);
  CHECK(r.out.find("speedup/sa") == std::string::npos);
  std::ifstream in(dir.path("c.csv"));
  std::string header;
  std::getline(in, header);
  CHECK(header.find(",tokens_per_s,energy_efficiency_vs_figna,speedup_vs_figna") != std::string::npos);
  const Run bad = eva_sim(dir, {"compare", "--model", "tiny.yaml", "--archs", "sa,eva", "--baseline", "figna"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "eva-sim: --baseline: 'figna' is not among the compared architectures\n");
}

TEST_CASE("Every op names its kind and what bounds it, and breakdown_by_kind adds up to the report") {
  Scratch dir;
  with_inputs(dir);
  struct Case {
    std::vector<std::string> args;
    std::string kind, bound;  // the FCs' bound
  };
  const std::vector<Case> cases = {
      {{"--arch", "eva"}, "vector", "compute"},
      {{"--arch", "vq-conflict"}, "fc", "bank conflicts"},
      {{"--arch", "sa", "--set", "systolic.weight_load=overlapped", "--set", "dram.bandwidth_gbps=1"}, "fc", "memory"},
      {{"--arch", "sa", "--set", "dram.bandwidth_gbps=1e6"}, "fc", "compute"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run", "--model", dir.path("tiny.yaml"), "--json", "r.json", "--quiet"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Run r = eva_sim(dir, args);
    INFO(r.err << " " << c.args[1] << " " << c.bound);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("bound by") != std::string::npos);  // the per-kind table
    const auto j = dir.json("r.json");
    for (const auto& op : j["ops"]) {
      CHECK(!op["kind"].get<std::string>().empty());
      CHECK(!op["bound_by"].get<std::string>().empty());
    }
    const auto& b = j["breakdown_by_kind"];
    for (const char* kind : {"fc", "attention", "vector", "lm_head"}) CHECK(b.contains(kind));
    double seconds = 0, share = 0;
    std::uint64_t ops = 0;
    for (const auto& [kind, k] : b.items()) {
      seconds += k["seconds"].get<double>();
      share += k["share_of_seconds"].get<double>();
      ops += k["ops"].get<std::uint64_t>();
    }
    CHECK(seconds == Approx(j["seconds"].get<double>()).epsilon(1e-9));
    CHECK(share == Approx(1.0).epsilon(1e-9));
    CHECK(ops == j["ops"].size());
    CHECK(b[c.kind]["bound_by"] == c.bound);
  }
  // EVA on a LLaMA-2-7B layer: its 2-bit weights at 64 GB/s take as long as
  // its compute, so memory bounds it; with memory out of the way, its adder
  // trees do (the OC computation is shorter).
  for (const auto& [bandwidth, bound] : {std::pair{"64", "memory"}, std::pair{"1e6", "epilogue"}}) {
    const Run g = eva_sim(dir, {"gemm", "--arch", "eva", "--m", "1", "--n", "4096", "--k", "4096", "--set",
                                std::string("dram.bandwidth_gbps=") + bandwidth, "--json", "g.json"});
    REQUIRE(g.exit_code == 0);
    CHECK(dir.json("g.json")["ops"][0]["bound_by"] == bound);
  }
}

namespace {

// One kind's DRAM bytes and seconds in a decode step: `run --arch A` with
// `args` (the model and options).
struct AttentionFigures {
  double bytes, seconds;
};
AttentionFigures kind_figures(const Scratch& dir, const std::string& arch, const std::string& kind,
                              std::vector<std::string> args) {
  args.insert(args.begin(), {"run", "--arch", arch, "--quiet", "--json", "k.json"});
  const Run r = eva_sim(dir, args, false);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto k = dir.json("k.json")["breakdown_by_kind"][kind];
  return {k["dram_bytes"].get<double>(), k["seconds"].get<double>()};
}

// Attention's figures in a 4096-position LLaMA-2-7B decode step.
AttentionFigures attention(const Scratch& dir, const std::string& arch, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--model", "llama2-7b", "--seq-len", "4096"};
  args.insert(args.end(), extra.begin(), extra.end());
  return kind_figures(dir, arch, "attention", args);
}

}  // namespace

TEST_CASE("A KV cache in INT4 (--kv-cache int4) reads 4-bit elements with a scale and zero point per 32") {
  Scratch dir;
  // FP16: 2 B per element; INT4 in groups of 32 with 4 B each: 0.5 + 0.125 B.
  // Activations and outputs add a little to both.
  for (const char* arch : {"sa", "figlut", "eva"}) {
    INFO(arch);
    const AttentionFigures fp16 = attention(dir, arch, {"--kv-cache", "fp16"});
    const AttentionFigures int4 = attention(dir, arch, {"--kv-cache", "int4"});
    const AttentionFigures int8 = attention(dir, arch, {"--kv-cache", "int8"});
    CHECK(int4.bytes / fp16.bytes > 0.625 / 2);
    CHECK(int4.bytes / fp16.bytes < 0.625 / 2 + 0.01);
    CHECK(int8.bytes / fp16.bytes > 1.125 / 2);
    CHECK(int8.bytes / fp16.bytes < 1.125 / 2 + 0.01);
    // --set overrides the option's parts: no groups, a quarter of FP16.
    const AttentionFigures bare = attention(dir, arch, {"--kv-cache", "int4", "--set", "formats.kv_group=0"});
    CHECK(bare.bytes / fp16.bytes < 0.25 + 0.01);
    // Memory-bound in the realistic setting: fewer bytes, less time.
    const AttentionFigures slow = attention(dir, arch, {"--setting", "realistic", "--kv-cache", "fp16"});
    const AttentionFigures fast = attention(dir, arch, {"--setting", "realistic", "--kv-cache", "int4"});
    CHECK(fast.seconds < 0.5 * slow.seconds);
  }
}

namespace {

// The LM head's figures in a decode step of tiny.yaml.
AttentionFigures lm_head(const Scratch& dir, const std::string& arch, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--model", dir.path("tiny.yaml")};
  args.insert(args.end(), extra.begin(), extra.end());
  return kind_figures(dir, arch, "lm_head", args);
}

}  // namespace

TEST_CASE("The LM head is FP16 unless formats.lm_head=native puts it in the layers' format") {
  Scratch dir;
  with_inputs(dir);
  // tiny.yaml: 512 x 1000 weights, 2 B each in FP16; the layers' formats take
  // at most 1 B (sa, ant: 8 bits; figna, figlut: 4; eva, vq-conflict: 2).
  const double fp16_weights = 512.0 * 1000 * 2;
  for (const char* arch : {"sa", "ant", "figna", "figlut", "eva", "vq-conflict"}) {
    INFO(arch);
    const AttentionFigures fp16 = lm_head(dir, arch, {});
    const AttentionFigures native = lm_head(dir, arch, {"--set", "formats.lm_head=native"});
    CHECK(fp16.bytes >= fp16_weights);
    CHECK(fp16.bytes < fp16_weights * 1.01);  // plus the activations and logits
    CHECK(native.bytes < 0.6 * fp16.bytes);
    // The paper setting keeps the layers' format, the realistic one FP16.
    CHECK(lm_head(dir, arch, {"--setting", "paper"}).bytes == native.bytes);
    CHECK(lm_head(dir, arch, {"--setting", "realistic"}).bytes >= fp16_weights);
  }
}

TEST_CASE("Attention over an FP16 KV cache runs in the array's FP16 mode (systolic.fp16_ratio)") {
  Scratch dir;
  with_inputs(dir);
  // Prefill with memory out of the way: attention's tiles are compute-bound,
  // M = 4 query heads per KV head x 256 tokens rows each.
  const auto seconds = [&](const std::string& arch, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run",     "--arch",    arch,  "--model", dir.path("tiny.yaml"),     "--phase",
                                     "prefill", "--seq-len", "256", "--set",   "dram.bandwidth_gbps=1e6", "--quiet",
                                     "--json",  "p.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Run r = eva_sim(dir, args, false);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return dir.json("p.json")["breakdown_by_kind"]["attention"]["seconds"].get<double>();
  };
  for (const char* arch : {"sa", "ant", "figna", "eva"}) {
    INFO(arch);
    // 32 x 8 FP16 PEs against 32 x 32: four times the tiles, each as long
    // but for its shorter fill (R + C).
    const double int8_rate = seconds(arch, {"--set", "systolic.fp16_ratio=1"});
    const double fp16_mode = seconds(arch, {});
    CHECK(fp16_mode / int8_rate > 3.0);
    CHECK(fp16_mode / int8_rate < 4.0);
    // The artifact's convention: the INT8 rate.
    CHECK(seconds(arch, {"--set", "systolic.dense_fp16=int8_rate"}) == int8_rate);
    CHECK(seconds(arch, {"--setting", "paper", "--set", "dram.bandwidth_gbps=1e6"}) == int8_rate);
    // A quantised cache runs at the array's native rate.
    CHECK(seconds(arch, {"--kv-cache", "int8"}) ==
          seconds(arch, {"--kv-cache", "int8", "--set", "systolic.fp16_ratio=1"}));
  }
  // FIGLUT's FP16 path is bit-serial: 16 planes, whatever the ratio.
  CHECK(seconds("figlut", {}) == seconds("figlut", {"--set", "systolic.fp16_ratio=1"}));
}
