// The command-line contract: names, exit codes and messages on bad input.
// Every bad-input case exits 2 with one line on stderr and writes no file.
#include <algorithm>
#include <filesystem>
#include <utility>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

// Runs a bad command with --json out.json; checks the exit code, that stderr
// is one line containing `expected`, and that no file was written.
void rejects(std::vector<std::string> args, const std::string& expected, const Scratch& dir = Scratch()) {
  args.push_back("--json");
  args.push_back("out.json");
  const Run r = eva_sim(dir, args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(expected) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(dir.files().empty());
}

const std::vector<std::string> gemm = {"gemm", "--arch", "sa", "--m", "1", "--n", "64", "--k", "64"};

std::vector<std::string> gemm_with(std::vector<std::string> extra) {
  auto a = gemm;
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace

TEST_CASE("list archs prints every architecture of the contract") {
  Scratch dir;
  const Run r = eva_sim(dir, {"list", "archs"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const char* a : {"eva", "eva-w3", "eva-w4", "eva-gptvq", "sa", "ant", "figna", "figlut", "vq-conflict"})
    CHECK(("\n" + r.out).find("\n" + std::string(a) + " ") != std::string::npos);
}

TEST_CASE("list models, dram and datasets") {
  Scratch dir;
  const Run m = eva_sim(dir, {"list", "models"});
  CHECK(m.exit_code == 0);
  for (const char* n : {"llama2-7b", "llama3-70b", "mixtral-8x7b", "qwen3-30b-a3b"})
    CHECK(m.out.find(n) != std::string::npos);
  CHECK(eva_sim(dir, {"list", "dram"}).out.find("ideal") != std::string::npos);
  CHECK(eva_sim(dir, {"list", "datasets"}).out.find("dolly") != std::string::npos);
  CHECK(eva_sim(dir, {"list", "nothing"}).exit_code == 2);
}

TEST_CASE("help exits 0 and a command's --help lists that command's options") {
  Scratch dir;
  CHECK(eva_sim(dir, {"--help"}).exit_code == 0);
  const Run gemm_help = eva_sim(dir, {"gemm", "--help"});
  CHECK(gemm_help.exit_code == 0);
  CHECK(gemm_help.out.find("--functional") != std::string::npos);
  const Run e2e_help = eva_sim(dir, {"e2e", "--model", "llama2-7b", "--help"});
  CHECK(e2e_help.exit_code == 0);
  CHECK(e2e_help.out.find("--kv-grid") != std::string::npos);
  CHECK(e2e_help.out.find("--functional") == std::string::npos);
  CHECK(dir.files().empty());
}

TEST_CASE("Bad input: unknown command") { rejects({"no-such-command"}, "unknown command 'no-such-command'"); }
TEST_CASE("Bad input: no command") {
  Scratch dir;
  const Run r = eva_sim(dir, {});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("missing command") != std::string::npos);
}
TEST_CASE("Bad input: unknown option") { rejects(gemm_with({"--fast"}), "unrecognised option '--fast'"); }
TEST_CASE("Bad input: missing required option") {
  rejects({"gemm", "--arch", "sa", "--m", "1", "--n", "8"}, "--k is required");
}
TEST_CASE("Bad input: zero size") {
  rejects({"gemm", "--arch", "sa", "--m", "0", "--n", "8", "--k", "8"}, "--m: expected an integer from 1");
}
TEST_CASE("Bad input: negative size") { rejects({"gemm", "--arch", "sa", "--m", "1", "--n", "-8", "--k", "8"}, "--n"); }
TEST_CASE("Bad input: non-numeric size") {
  rejects({"gemm", "--arch", "sa", "--m", "1", "--n", "8", "--k", "lots"}, "--k: expected an integer");
}
TEST_CASE("Bad input: unknown architecture name") {
  rejects({"gemm", "--arch", "no-such", "--m", "1", "--n", "8", "--k", "8"}, "--arch: unknown name 'no-such'");
}
TEST_CASE("Bad input: unknown DRAM preset") { rejects(gemm_with({"--dram", "ddr9"}), "--dram: unknown name 'ddr9'"); }
TEST_CASE("Bad input: unknown --set key") {
  rejects(gemm_with({"--set", "no.such.key=1"}), "--set no.such.key=1: no.such.key: unknown key");
}
TEST_CASE("Bad input: --set value of the wrong type") {
  rejects(gemm_with({"--set", "systolic.rows=many"}), "systolic.rows: expected an integer");
}
TEST_CASE("Bad input: --set value out of range") {
  rejects(gemm_with({"--set", "dram.bandwidth_gbps=-5"}), "dram.bandwidth_gbps: expected a number > 0");
}
TEST_CASE("Bad input: --set zero size") {
  rejects(gemm_with({"--set", "systolic.cols=0"}), "systolic.cols: expected an integer >= 1");
}
TEST_CASE("Bad input: --set without a value") {
  rejects(gemm_with({"--set", "clock_mhz"}), "expected dotted.key=value");
}
TEST_CASE("Bad input: unknown weight_load convention") {
  rejects(gemm_with({"--set", "systolic.weight_load=magic"}), "one of scalesim|paper|overlapped");
}
TEST_CASE("Bad input: missing architecture file") {
  rejects({"gemm", "--arch", "missing.yaml", "--m", "1", "--n", "8", "--k", "8"}, "missing.yaml: cannot open file");
}
TEST_CASE("Bad input: malformed architecture YAML") {
  Scratch dir;
  dir.write("bad.yaml", "base: sa\nsystolic: [rows: 3\n");
  const Run r = eva_sim(dir, {"gemm", "--arch", "bad.yaml", "--m", "1", "--n", "8", "--k", "8", "--json", "o.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad.yaml:") != std::string::npos);
  CHECK(r.err.find("malformed YAML") != std::string::npos);
  CHECK(!dir.exists("o.json"));
}
TEST_CASE("Bad input: unknown key in an architecture file, with its line") {
  Scratch dir;
  dir.write("arch.yaml", "base: sa\nname: mine\nsystolic:\n  colz: 8\n");
  const Run r = eva_sim(dir, {"gemm", "--arch", "arch.yaml", "--m", "1", "--n", "8", "--k", "8", "--json", "o.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("arch.yaml:4: systolic.colz: unknown key") != std::string::npos);
  CHECK(!dir.exists("o.json"));
}
TEST_CASE("Bad input: wrong type in an architecture file, with its line") {
  Scratch dir;
  dir.write("arch.yaml", "base: sa\nclock_mhz: fast\n");
  const Run r = eva_sim(dir, {"gemm", "--arch", "arch.yaml", "--m", "1", "--n", "8", "--k", "8", "--json", "o.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("arch.yaml:2: clock_mhz: expected a number > 0") != std::string::npos);
  CHECK(!dir.exists("o.json"));
}
TEST_CASE("Bad input: unknown model name") {
  rejects({"run", "--arch", "sa", "--model", "gpt-9"}, "--model: unknown name 'gpt-9'");
}
TEST_CASE("Bad input: unknown phase") {
  rejects({"run", "--arch", "sa", "--model", "llama2-7b", "--phase", "train"},
          "--phase: expected decode, prefill or e2e");
}
TEST_CASE("Bad input: a KV grid of zero, in e2e and in run --phase e2e") {
  rejects({"e2e", "--model", "llama2-7b", "--kv-grid", "0"}, "--kv-grid: expected an integer from 1");
  rejects({"run", "--arch", "sa", "--model", "llama2-7b", "--phase", "e2e", "--kv-grid", "0"},
          "--kv-grid: expected an integer from 1");
}
TEST_CASE("Bad input: output directory that does not exist") {
  Scratch dir;
  const Run r = eva_sim(dir, gemm_with({"--json", "no/such/dir/r.json"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("does not exist or is not writable") != std::string::npos);
}
TEST_CASE("Bad input: operands larger than the DRAM") {
  rejects({"gemm", "--arch", "sa", "--m", "1", "--n", "16000000", "--k", "16000000"}, "more than the DRAM holds");
}
TEST_CASE("Bad input: a plot into a directory that does not exist, refused before any simulation") {
  rejects({"compare", "--model", "llama2-7b", "--plot", "no/dir/p.png"}, "--plot no/dir/p.png: directory 'no/dir'");
}

TEST_CASE("dram-bench reports the contract's keys") {
  Scratch dir;
  const Run r =
      eva_sim(dir, {"dram-bench", "--dram", "ddr4-3200", "--pattern", "mix", "--bytes", "262144", "--json", "b.json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = dir.json("b.json");
  for (const char* key : {"bandwidth_gbps", "peak_gbps", "efficiency", "latency_ns_mean", "latency_ns_p99"})
    CHECK(j.contains(key));
  CHECK(j["peak_gbps"].get<double>() == Approx(51.2));
  CHECK(j["stats"]["wr"].get<double>() > 0);  // the mix writes
}
TEST_CASE("Bad input: dram-bench with an unknown pattern") {
  rejects({"dram-bench", "--dram", "ideal", "--pattern", "zigzag"}, "--pattern: expected seq, random, strided or mix");
}
TEST_CASE("Bad input: dram-bench --set of a key that is not the DRAM's") {
  rejects({"dram-bench", "--dram", "ideal", "--pattern", "seq", "--set", "systolic.rows=4"},
          "systolic.rows: unknown key");
}
TEST_CASE("Bad input: a timing key on the ideal DRAM") {
  rejects({"dram-bench", "--dram", "ideal", "--pattern", "seq", "--set", "dram.timing.tRCD=4"},
          "dram.timing.tRCD: only for dram.kind: timed");
}
TEST_CASE("Bad input: bandwidth_gbps on a timed DRAM") {
  rejects(gemm_with({"--dram", "hbm2", "--set", "dram.bandwidth_gbps=100"}),
          "dram.bandwidth_gbps: only for dram.kind: ideal");
}
TEST_CASE("Bad input: DRAM geometry that is not a power of two") {
  rejects(gemm_with({"--dram", "ddr4-3200", "--set", "dram.channels=3"}), "dram.channels: expected a power of two");
}
TEST_CASE("Bad input: an address mapping that misses a field") {
  rejects(gemm_with({"--dram", "ddr4-3200", "--set", "dram.address_mapping=ro,ba,co,bg,ch"}), "dram.address_mapping");
}

TEST_CASE("describe --arch eva: the epilogue units and the array bound to the OC SRAM, the DMA to the DRAM") {
  Scratch dir;
  const Run r = eva_sim(dir, {"describe", "--arch", "eva", "--set", "epilogue.units=2"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("epilogue_0  (eva::EpilogueUnit)") != std::string::npos);
  CHECK(r.out.find("epilogue_2") == std::string::npos);  // the tree follows the config
  CHECK(r.out.find("oc  (eva::Sram)") != std::string::npos);
  CHECK(r.out.find("lookup_socket  [target socket]  <- platform.eva.array.lane_socket  <- "
                   "platform.eva.epilogue_0.lookup_socket  <- platform.eva.epilogue_1.lookup_socket") !=
        std::string::npos);
  CHECK(r.out.find("initiator_socket  [initiator socket]  -> platform.dram.target_socket") != std::string::npos);
  CHECK(dir.files().empty());
}

TEST_CASE("describe --arch figlut: the PEs' LUT SRAM on the array's lane port, no OC SRAM") {
  Scratch dir;
  const Run r = eva_sim(dir, {"describe", "--arch", "figlut"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("(eva::FiglutAccelerator)") != std::string::npos);
  CHECK(r.out.find("lut  (eva::Sram)") != std::string::npos);
  CHECK(r.out.find("lane_socket  [initiator socket]  -> platform.figlut.lut.lookup_socket") != std::string::npos);
  CHECK(r.out.find("EpilogueUnit") == std::string::npos);
  CHECK(r.out.find("oc  (eva::Sram)") == std::string::npos);
}

TEST_CASE("describe --arch sa: the array's lane port unbound") {
  Scratch dir;
  const Run r = eva_sim(dir, {"describe", "--arch", "sa"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("lane_socket  [initiator socket]  unbound") != std::string::npos);
}

TEST_CASE("Bad input: describe of an unknown architecture") {
  Scratch dir;
  const Run r = eva_sim(dir, {"describe", "--arch", "nope"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--arch") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("Bad input: a device or a directory given as an input file is refused and never read to its end") {
  Scratch dir;
  std::filesystem::create_directory(dir.path("sub.yaml"));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"config", "--arch", "/dev/zero"}, "/dev/zero: larger than 64 MiB, the limit for an input file"},
      {{"run", "--arch", "eva", "--model", "/dev/zero"}, "/dev/zero: larger than 64 MiB"},
      {{"run", "--arch", "eva", "--model", "llama2-7b", "--dram", "/dev/zero"}, "/dev/zero: larger than 64 MiB"},
      {{"sweep", "/dev/zero", "--out", "s"}, "/dev/zero: larger than 64 MiB"},
      {{"config", "--arch", "sub.yaml"}, "sub.yaml: is a directory, not a file"}};
  for (const auto& [args, expected] : cases) {
    const Run r = eva_sim(dir, args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(!dir.exists("s"));
}

TEST_CASE("A command's help shows its positional argument in the usage line and not as an option") {
  Scratch dir;
  const Run r = eva_sim(dir, {"sweep", "--help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("usage: eva-sim sweep FILE [options]\n", 0) == 0);
  CHECK(r.out.find("--file") == std::string::npos);
  CHECK(r.out.find("--executor") != std::string::npos);
  CHECK(eva_sim(dir, {"pareto", "--help"}).out.rfind("usage: eva-sim pareto FILE [options]\n", 0) == 0);
}

TEST_CASE(
    "Named settings: paper and realistic stand for their DRAM and weight loading, --dram and --set override, every "
    "report "
    "names its setting") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  struct Case {
    std::vector<std::string> extra;
    std::string dram, weight_load, setting;
  };
  const std::vector<Case> cases = {
      {{}, "ideal", "paper", "custom"},  // the paper's conventions but the FP16 LM head and mode
      {{"--setting", "paper"}, "ideal", "paper", "paper"},
      {{"--setting", "paper", "--set", "formats.lm_head=fp16"}, "ideal", "paper", "custom"},
      {{"--set", "formats.lm_head=native"}, "ideal", "paper", "custom"},
      {{"--set", "formats.lm_head=native", "--set", "systolic.dense_fp16=int8_rate", "--set",
        "energy.leakage_fraction=1"},
       "ideal",
       "paper",
       "paper"},
      {{"--setting", "realistic"}, "lpddr5-6400", "overlapped", "realistic"},
      {{"--setting", "realistic", "--dram", "hbm2"}, "hbm2", "overlapped", "realistic"},
      {{"--setting", "realistic", "--set", "systolic.weight_load=paper"}, "lpddr5-6400", "paper", "custom"},
      {{"--setting", "paper", "--set", "dram.bandwidth_gbps=128"}, "ideal", "paper", "custom"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run", "--arch", "sa", "--model", "tiny.yaml", "--json", "r.json", "--quiet"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const Run r = eva_sim(dir, args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto config = dir.json("r.json")["config"];
    CHECK(config["dram"]["preset"] == c.dram);
    CHECK(config["systolic"]["weight_load"] == c.weight_load);
    CHECK(config["setting"] == c.setting);
    CHECK(r.out.find("setting " + c.setting) != std::string::npos);  // the printed line says it
  }
  const Run table =
      eva_sim(dir, {"compare", "--model", "tiny.yaml", "--archs", "sa,eva", "--setting", "realistic", "--quiet"});
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("setting realistic") != std::string::npos);
  const Run bad =
      eva_sim(dir, {"run", "--arch", "sa", "--model", "tiny.yaml", "--setting", "fast", "--json", "b.json"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--setting fast: expected paper or realistic") != std::string::npos);
  CHECK(!dir.exists("b.json"));
}

TEST_CASE("config prints only the DRAM keys the chosen kind reads, and its output loads back") {
  Scratch dir;
  const Run ideal = eva_sim(dir, {"config", "--arch", "sa"});
  REQUIRE(ideal.exit_code == 0);
  CHECK(ideal.out.find("energy_pj_per_bit:") != std::string::npos);
  for (const char* timed_key : {"tRCD:", "idd4r:", "channels:", "page_policy:"}) {
    INFO(timed_key);
    CHECK(ideal.out.find(timed_key) == std::string::npos);
  }
  const Run hbm = eva_sim(dir, {"config", "--arch", "sa", "--dram", "hbm2"});
  REQUIRE(hbm.exit_code == 0);
  CHECK(hbm.out.find("tRCD:") != std::string::npos);
  for (const char* ideal_key : {"bandwidth_gbps:", "energy_pj_per_bit:", "background_w:", "latency_ns:"}) {
    INFO(ideal_key);
    CHECK(hbm.out.find(ideal_key) == std::string::npos);
  }
  dir.write("hbm.yaml", hbm.out);
  const Run again = eva_sim(dir, {"config", "--arch", "hbm.yaml"});
  REQUIRE(again.exit_code == 0);
  CHECK(again.out == hbm.out);
}

TEST_CASE("Bad input: --kv-cache with an unknown format") {
  rejects({"run", "--arch", "sa", "--model", "llama2-7b", "--kv-cache", "int3"},
          "--kv-cache: expected fp16, int8 or int4, got 'int3'");
}
