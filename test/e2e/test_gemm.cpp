// eva-sim gemm end to end: the JSON report, its keys and values, against the
// documented formula and against a checked-in expected report.
#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

nlohmann::json gemm(const Scratch& dir, std::vector<std::string> extra, const std::string& m = "1",
                    const std::string& n = "4096", const std::string& k = "4096") {
  std::vector<std::string> args = {"gemm", "--arch", "sa", "--m", m, "--n", n, "--k", k, "--json", "r.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Run r = eva_sim(dir, args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  return dir.json("r.json");
}

}  // namespace

TEST_CASE("gemm --arch sa writes a report with the contract's keys") {
  Scratch dir;
  const auto j = gemm(dir, {});
  for (const char* key :
       {"arch", "model", "phase", "cycles", "seconds", "energy_j", "dram_bytes_read", "dram_bytes_written",
        "dram_bw_utilization", "sram_bank_conflict_cycles", "ops", "sim_wall_s"})
    CHECK(j.contains(key));
  CHECK(j["arch"] == "sa");
  REQUIRE(j["ops"].size() == 1);
  for (const char* key : {"name", "m", "n", "k", "cycles", "dram_bytes_read"}) CHECK(j["ops"][0].contains(key));
  CHECK(j["ops"][0]["n"] == 4096);
  CHECK(j["dram_bytes_read"] == 4096 * 4096 + 4096 + 4 * (2 + 4096));  // weights, x, float32 scales
  CHECK(j["dram_bytes_written"] == 4096);
  CHECK(j["seconds"].get<double>() == Approx(j["cycles"].get<double>() / 500e6));
  // Energy: the modules' breakdown sums to the total; derived figures follow.
  REQUIRE(j["energy_j"].is_number());
  double sum = 0.0;
  for (const auto& [module, joules] : j["energy_breakdown_j"].items()) sum += joules.get<double>();
  CHECK(sum == Approx(j["energy_j"].get<double>()));
  for (const char* module : {"array", "buffers", "vector", "dram"}) CHECK(j["energy_breakdown_j"].contains(module));
  CHECK(j["gops"].get<double>() == Approx(2.0 * 4096 * 4096 / j["seconds"].get<double>() * 1e-9));
  CHECK(j["gops_per_w"].get<double>() == Approx(2.0 * 4096 * 4096 / j["energy_j"].get<double>() * 1e-9));
  CHECK(j["area_mm2"].get<double>() == Approx(0.330688512 + 0.063380772 + 0.861716551149));
  CHECK(j["energy_per_token_j"].get<double>() == Approx(j["energy_j"].get<double>()));  // M = 1
}

TEST_CASE("gemm cycles equal the formula of each weight_load mode with fast memory") {
  Scratch dir;
  // + 2: the first operands' last burst is written into its buffer (1 cycle of
  // latency, 1 of the 256 B/cycle port) before the array can start.
  const long fill = 2;
  const std::vector<std::string> fast = {"--set", "dram.bandwidth_gbps=1e6"};
  for (const auto& [mode, expected] :
       std::vector<std::pair<std::string, long>>{{"paper", fill + 4L * 3 * (5 + 64)},
                                                 {"scalesim", fill + 4L * 3 * (64 + 32 + 5 - 2)},
                                                 {"overlapped", fill + 8L + 11 * 8 + 5 + 62}}) {
    auto args = fast;
    args.insert(args.end(), {"--set", "systolic.weight_load=" + mode});
    const auto j = gemm(dir, args, "5", "70", "100");  // N and K not multiples of 32
    INFO(mode);
    CHECK(j["cycles"] == expected);
  }
}

TEST_CASE("gemm --csv writes one row with the report's columns") {
  Scratch dir;
  const Run r = eva_sim(dir, {"gemm", "--arch", "sa", "--m", "2", "--n", "64", "--k", "64", "--csv", "r.csv"});
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir.path("r.csv"));
  std::string header, row, extra;
  std::getline(in, header);
  std::getline(in, row);
  CHECK(header.rfind("arch,model,phase,cycles,", 0) == 0);
  CHECK(row.rfind("sa,", 0) == 0);
  CHECK(!std::getline(in, extra));
}

TEST_CASE("Regression: gemm reports match the checked-in expected figures") {
  // Deterministic figures only (not sim_wall_s). Regenerate with
  // scripts/update-expected.sh when a model change is intended.
  std::ifstream in(std::string(EVA_EXPECTED_DIR) + "/gemm.json");
  REQUIRE(in);
  const auto expected = nlohmann::json::parse(in);
  for (const auto& c : expected["cases"]) {
    Scratch dir;
    std::vector<std::string> args = c["args"].get<std::vector<std::string>>();
    args.insert(args.end(), {"--json", "r.json"});
    const Run r = eva_sim(dir, args);
    REQUIRE(r.exit_code == 0);
    const auto got = dir.json("r.json");
    INFO(c["args"].dump());
    for (const char* key : {"cycles", "dram_bytes_read", "dram_bytes_written", "sram_bank_conflict_cycles"})
      CHECK(got[key] == c["report"][key]);
    CHECK(got["dram_bw_utilization"].get<double>() == Approx(c["report"]["dram_bw_utilization"].get<double>()));
    CHECK(got["energy_j"].get<double>() == Approx(c["report"]["energy_j"].get<double>()).epsilon(1e-9));
  }
}

TEST_CASE("gemm --arch eva reads 2-bit indices and codebooks, near the DRAM roofline") {
  Scratch dir;
  const Run r = eva_sim(dir, {"gemm", "--arch", "eva", "--m", "1", "--n", "4096", "--k", "4096", "--json", "r.json"});
  REQUIRE(r.exit_code == 0);
  const auto j = dir.json("r.json");
  const double weights = 4096.0 * 4096 * 2 / 8, codebooks = 2 * 256 * 8 * 2, x = 4096 * 2;
  CHECK(j["dram_bytes_read"].get<double>() == weights + codebooks + x);
  CHECK(j["dram_bytes_written"] == 4096 * 2);
  const double roofline = (weights + codebooks) / 128.0;  // 64 GB/s at 500 MHz
  CHECK(j["cycles"].get<double>() >= roofline);
  CHECK(j["cycles"].get<double>() <= 1.05 * roofline);
}

namespace {

// Conflict cycles per lookup cycle of vq-conflict's lanes on a 1024 x 1024 layer.
double conflict_fraction(const std::vector<std::string>& sets) {
  Scratch dir;
  std::vector<std::string> a = {
      "gemm",   "--arch", "vq-conflict",       "--m", "1", "--n", "1024", "--k", "1024", "--json",
      "r.json", "--set",  "lookup.model=lanes"};
  for (const auto& s : sets) a.insert(a.end(), {"--set", s});
  const Run r = eva_sim(dir, a);
  REQUIRE(r.exit_code == 0);
  const auto j = dir.json("r.json");
  return j["sram_bank_conflict_cycles"].get<double>() / j["stats"]["lookup"]["cycles"]["value"].get<double>();
}

}  // namespace

TEST_CASE("vq-conflict: bank conflicts grow with the lanes") {
  const double four = conflict_fraction({"lookup.lanes=4"}), eight = conflict_fraction({"lookup.lanes=8"}),
               sixteen = conflict_fraction({"lookup.lanes=16"});
  CHECK(four > 0.3);
  CHECK(eight > four);
  CHECK(sixteen > eight);
}

TEST_CASE("vq-conflict: codebook copies in their own banks remove conflicts") {
  CHECK(conflict_fraction({"lookup.replicas=2"}) < 0.6 * conflict_fraction({}));
  CHECK(conflict_fraction({"lookup.replicas=4"}) == 0.0);  // one copy per lane
}

TEST_CASE("vq-conflict: heavily skewed indices share words, so conflicts fall") {
  // Lanes reading the same centroid share its word (broadcast): a skew that
  // piles lookups onto a few centroids lowers the conflicts it would otherwise cause.
  CHECK(conflict_fraction({"lookup.index_skew=8"}) < conflict_fraction({"lookup.index_skew=0"}));
}

TEST_CASE("vq-conflict, the artifact's convention: output-stationary tiles plus the conflict stall beyond them") {
  Scratch dir;
  const auto layer = [&](const std::vector<std::string>& sets) {
    std::vector<std::string> a = {"gemm", "--arch", "vq-conflict", "--m",     "1",      "--n",
                                  "4096", "--k",    "4096",        "--quiet", "--json", "r.json"};
    for (const auto& s : sets) a.insert(a.end(), {"--set", s});
    REQUIRE(eva_sim(dir, a, false).exit_code == 0);
    return dir.json("r.json");
  };
  // 4 K tiles x 128 column tiles, each ceil(1 / 8) x 1024 + 1 + 32 - 1 cycles
  // (BASELINES.md 4.5).
  const double compute = 4 * 128 * (1024 + 1 + 32 - 1);
  // The default lookup model is the artifact's: with the paper's LM head,
  // FP16 convention (which this GEMM does not use) and core power the run is
  // in the paper setting.
  const auto plain = layer({"formats.lm_head=native", "systolic.dense_fp16=int8_rate", "energy.leakage_fraction=1"});
  CHECK(plain["config"]["setting"] == "paper");
  const double stall = plain["sram_bank_conflict_cycles"].get<double>();
  CHECK(stall > 0.5 * compute);
  // Everything but the first loads hides under the tiles.
  CHECK(plain["cycles"].get<double>() == Approx(compute + stall).epsilon(0.01));
  // A copy per index row in banks of its own: no stall, compute alone.
  const auto free = layer({"lookup.replicas=4"});
  CHECK(free["sram_bank_conflict_cycles"] == 0);
  CHECK(free["cycles"].get<double>() == Approx(compute).epsilon(0.01));
  // The banked lanes are slower: 4 lanes against the array's 8 x 32.
  CHECK(layer({"lookup.model=lanes"})["cycles"].get<double>() > 1.5 * plain["cycles"].get<double>());
}

TEST_CASE("EVA decodes a VQ layer many times faster than conflicting lookups") {
  Scratch dir;
  REQUIRE(
      eva_sim(dir, {"gemm", "--arch", "eva", "--m", "1", "--n", "4096", "--k", "4096", "--json", "e.json"}).exit_code ==
      0);
  REQUIRE(eva_sim(dir, {"gemm", "--arch", "vq-conflict", "--m", "1", "--n", "4096", "--k", "4096", "--json", "c.json"})
              .exit_code == 0);
  CHECK(dir.json("c.json")["cycles"].get<double>() > 10 * dir.json("e.json")["cycles"].get<double>());
  CHECK(dir.json("e.json")["sram_bank_conflict_cycles"] == 0);
}

TEST_CASE("gemm --functional runs seeded random VQ weights against the reference, reproducibly") {
  Scratch dir;
  const std::vector<std::string> a = {"gemm", "--arch", "eva-w4", "--m",          "2",      "--n",
                                      "333",  "--k",    "1000",   "--functional", "--seed", "11"};
  auto first = a, second = a;
  first.insert(first.end(), {"--json", "a.json"});
  second.insert(second.end(), {"--json", "b.json"});
  REQUIRE(eva_sim(dir, first).exit_code == 0);
  REQUIRE(eva_sim(dir, second).exit_code == 0);
  const auto x = dir.json("a.json"), y = dir.json("b.json");
  CHECK(x["functional"]["relative_l2_error"].get<double>() < 1e-3);
  CHECK(x["functional"]["relative_l2_error"] == y["functional"]["relative_l2_error"]);
  CHECK(x["cycles"] == y["cycles"]);
  CHECK(x["sram_bank_conflict_cycles"] == 0);
}

TEST_CASE(
    "EVA's OC single- or double-buffered: the epilogue waits for the GEMM with one region and the second region is "
    "priced") {
  Scratch dir;
  // Compute-bound (memory out of the picture), functional: the data go through
  // the OC regions as the timing says.
  const std::vector<std::string> a = {"gemm", "--m",          "2",      "--n", "700",   "--k",
                                      "1024", "--functional", "--seed", "5",   "--set", "dram.bandwidth_gbps=1e6"};
  auto two = a, one = a;
  two.insert(two.end(), {"--arch", "eva", "--json", "two.json"});
  one.insert(one.end(), {"--arch", "eva-oc1", "--json", "one.json"});
  REQUIRE(eva_sim(dir, two).exit_code == 0);
  REQUIRE(eva_sim(dir, one).exit_code == 0);
  const auto d = dir.json("two.json"), s = dir.json("one.json");
  CHECK(d["functional"]["relative_l2_error"].get<double>() < 1e-3);
  CHECK(s["functional"]["relative_l2_error"].get<double>() < 1e-3);
  // One region: each pass's GEMM and epilogue in turn rather than overlapped.
  CHECK(s["ops"][0]["compute_cycles"].get<double>() > 1.1 * d["ops"][0]["compute_cycles"].get<double>());
  CHECK(s["cycles"].get<double>() > 1.1 * d["cycles"].get<double>());
  // The second 64 KiB region costs its cells and its 128 banks' periphery
  // (area.sram_mm2_per_kib, area.sram_mm2_per_port_byte; eva.yaml).
  CHECK(d["area_mm2"].get<double>() - s["area_mm2"].get<double>() ==
        Approx(64 * 8192 * 0.127e-6 + 128 * 2 * 0.00014586140562618705));
  // And oc.buffers is what decides: eva-oc1's 64 KiB split in two halves the OC's depth.
  auto halves = a;
  halves.insert(halves.end(), {"--arch", "eva-oc1", "--set", "oc.buffers=2", "--json", "halves.json"});
  REQUIRE(eva_sim(dir, halves).exit_code == 0);
  CHECK(dir.json("halves.json")["cycles"] != s["cycles"]);
}

namespace {

// One EVA layer of M x 4096 x 4096 under overlapped, the report.
nlohmann::json eva_layer(const Scratch& dir, const std::string& m, const std::vector<std::string>& sets,
                         const std::string& arch = "eva") {
  std::vector<std::string> args = {
      "gemm", "--arch", arch,      "--m",    m,        "--n",   "4096",
      "--k",  "4096",   "--quiet", "--json", "r.json", "--set", "systolic.weight_load=overlapped"};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  const Run r = eva_sim(dir, args, false);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return dir.json("r.json");
}

// Cycles of that layer in each EVA mode: forced VQ-lookup, forced INT8, and
// chosen by the estimate.
struct ModeRuns {
  double vq, int8, estimate;
};
ModeRuns mode_runs(const Scratch& dir, const std::string& m) {
  const auto cycles = [&](const std::string& set) { return eva_layer(dir, m, {set})["cycles"].get<double>(); };
  return {cycles("vq.prefill_above_m=1000000"), cycles("vq.prefill_above_m=0"), cycles("eva.mode_policy=estimate")};
}

}  // namespace

TEST_CASE("EVA's INT8 mode under overlapped: the PEs load each dequantised tile as INT8, as sa loads its own") {
  // The load path moves the tile the PEs hold (1024 INT8 bytes: 8 cycles at
  // 128 B a cycle), not the 256 B of indices it is decoded from.
  Scratch dir;
  const auto eva = eva_layer(dir, "1", {"vq.prefill_above_m=0", "dram.bandwidth_gbps=1e6"});
  const auto sa = eva_layer(dir, "1", {"dram.bandwidth_gbps=1e6"}, "sa");
  CHECK(eva["ops"][0]["compute_cycles"] == sa["ops"][0]["compute_cycles"]);
  CHECK(eva["ops"][0]["compute_cycles"].get<double>() >= 8.0 * 128 * 128);  // 16384 tiles, 8 cycles of load each
}

TEST_CASE("EVA's mode policy estimate: VQ-lookup mode at batch 1, where it is the faster") {
  Scratch dir;
  const ModeRuns r = mode_runs(dir, "1");
  CHECK(r.vq < r.int8);
  CHECK(r.estimate == r.vq);
}

TEST_CASE("EVA's mode policy estimate: INT8 mode at 8 and 32 rows, where it is the faster and thresholds keep VQ") {
  Scratch dir;
  for (const char* m : {"8", "32"}) {
    INFO("M = " << m);
    const ModeRuns r = mode_runs(dir, m);
    CHECK(r.int8 < r.vq);
    CHECK(r.estimate == r.int8);
    CHECK(eva_layer(dir, m, {})["cycles"].get<double>() == r.vq);  // thresholds: VQ-lookup mode up to 32 rows
  }
}

TEST_CASE("A wasteful configuration runs, with its warnings in the report and one line each on stderr") {
  Scratch dir;
  const Run r = eva_sim(dir, {"gemm", "--arch", "eva", "--m", "1", "--n", "512", "--k", "512", "--quiet", "--json",
                              "r.json", "--set", "oc.banks=256", "--set", "oc.size_kib=128"});
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = dir.json("r.json");
  REQUIRE(j["warnings"].size() == 2);  // idle banks, and a codebook deeper than a bank
  CHECK(j["warnings"][1].get<std::string>().find("less than a codebook's 256") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);
  CHECK(r.err.rfind("eva-sim: warning: eva: oc.banks: 256 banks", 0) == 0);
  // The same run composed from its signature (run, compare) carries them too.
  dir.write("m.yaml", tiny_model);
  const Run c = eva_sim(dir, {"compare", "--model", "m.yaml", "--archs", "eva,sa", "--quiet", "--json", "c.json",
                              "--set", "oc.banks=256", "--set", "oc.size_kib=128"});
  REQUIRE(c.exit_code == 0);
  CHECK(dir.json("c.json")["results"][0]["warnings"].size() == 2);
  CHECK(dir.json("c.json")["results"][1]["warnings"].empty());
  CHECK(eva_sim(dir, {"gemm", "--arch", "eva", "--m", "1", "--n", "512", "--k", "512", "--quiet"}).err.empty());
}

TEST_CASE("dma.max_outstanding bounds the bandwidth a layer draws until it covers the DRAM's latency") {
  Scratch dir;
  const auto cycles = [&](const std::string& arch, const std::string& dram, const std::string& outstanding) {
    const Run r = eva_sim(dir,
                          {"gemm", "--arch", arch, "--m", "1", "--n", "4096", "--k", "4096", "--dram", dram, "--set",
                           "systolic.weight_load=overlapped", "--set", "dma.max_outstanding=" + outstanding, "--quiet",
                           "--json", "r.json"},
                          false);
    REQUIRE(r.exit_code == 0);
    return dir.json("r.json")["cycles"].get<double>();
  };
  // FIGNA's decode GEMV is DRAM-bound on LPDDR5: 4 bursts in flight cannot
  // cover the latency; 128 reach 98% of the peak, and more add nothing.
  const double few = cycles("figna", "lpddr5-6400", "4"), many = cycles("figna", "lpddr5-6400", "128");
  CHECK(few > 1.4 * many);
  CHECK(cycles("figna", "lpddr5-6400", "512") == many);
  // On HBM2 (16 channels) too few bursts in flight starve even a
  // compute-bound array.
  CHECK(cycles("sa", "hbm2", "4") > 1.2 * cycles("sa", "hbm2", "128"));
}
