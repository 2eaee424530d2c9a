// eva-sim sweep: points run as separate processes, in parallel, with their
// summary; a bad point leaves nothing behind.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A memory-bound layer (sa, A8W8, batch 1) against the ideal DRAM's bandwidth,
// on two architectures.
const char* const bandwidth_sweep = R"(command: gemm
options: {m: 1, n: 512, k: 512}
set: {systolic.weight_load: overlapped}
vary:
  options: {arch: [sa, figlut]}
  set: {dram.bandwidth_gbps: [8, 32]}
)";

}  // namespace

TEST_CASE("sweep runs every point in parallel and writes each report and the summary") {
  Scratch dir;
  dir.write("s.yaml", bandwidth_sweep);
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "-j", "2", "--out", "out", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const char* f : {"point-000.json", "point-001.json", "point-002.json", "point-003.json", "sweep.csv"})
    CHECK(dir.exists(std::string("out/") + f));
  const auto index = dir.json("out/sweep.json");
  REQUIRE(index["points"].size() == 4);
  // Point 1 is (sa, 32 GB/s): its report is a gemm on sa with that bandwidth.
  const auto p1 = dir.json("out/point-001.json");
  CHECK(p1["arch"] == "sa");
  CHECK(p1["config"]["dram"]["bandwidth_gbps"] == 32.0);
  CHECK(index["points"][1]["values"]["dram.bandwidth_gbps"] == 32);
  // Four times the bandwidth makes the memory-bound layer faster on both.
  const auto seconds = [&](int p) { return index["points"][p]["rows"][0]["seconds"].get<double>(); };
  CHECK(seconds(1) < seconds(0) * 0.5);
  CHECK(seconds(3) < seconds(2) * 0.7);
  const std::string csv = slurp(dir.path("out/sweep.csv"));
  CHECK(csv.rfind("point,arch,dram.bandwidth_gbps,", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(r.out.find("4 points of 'gemm'") != std::string::npos);

  // The same sweep again, one point at a time: the same figures.
  const Run again = eva_sim(dir, {"sweep", "s.yaml", "-j", "1", "--out", "again", "--quiet"});
  REQUIRE(again.exit_code == 0);
  const auto index2 = dir.json("again/sweep.json");
  for (int p = 0; p < 4; ++p) {
    CHECK(index2["points"][p]["rows"][0]["seconds"] == index["points"][p]["rows"][0]["seconds"]);
    CHECK(index2["points"][p]["rows"][0]["energy_j"] == index["points"][p]["rows"][0]["energy_j"]);
  }
}

TEST_CASE("sweep over compare: one row per architecture and point") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  dir.write("c.yaml",
            "command: compare\noptions: {model: tiny.yaml, archs: \"eva,sa\"}\n"
            "vary: {options: {batch: [1, 2]}}\n");
  const Run r = eva_sim(dir, {"sweep", "c.yaml", "--out", "out", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string csv = slurp(dir.path("out/sweep.csv"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);  // header + 2 points x 2 archs
  // Points run side by side, so each compare runs in one process.
  const auto arguments = dir.json("out/sweep.json")["points"][0]["arguments"];
  CHECK(std::find(arguments.begin(), arguments.end(), "--jobs") != arguments.end());
}

TEST_CASE("Bad input: a sweep point the command refuses, and nothing is written") {
  Scratch dir;
  dir.write("s.yaml",
            "command: gemm\noptions: {arch: eva, m: 1, n: 64, k: 64}\n"
            "vary: {set: {epilogue.units: [1, 0, 2]}}\n");
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "-j", "2"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "eva-sim: s.yaml: point 1 (epilogue.units=0): --set epilogue.units=0: epilogue.units: expected an "
        "integer >= 1 and <= 4096, got \"0\"\n");
  CHECK(!dir.exists("out"));
}

TEST_CASE("Bad input: sweep file errors exit 2 with file and line") {
  Scratch dir;
  dir.write("s.yaml", "command: gemm\nvary:\n  set: {epilogue.units: []}\n");
  const Run r = eva_sim(dir, {"sweep", "s.yaml"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "eva-sim: s.yaml:3: vary.set.epilogue.units: expected a non-empty list of values\n");
  CHECK(!dir.exists("sweep-out"));
  CHECK(eva_sim(dir, {"sweep"}).exit_code == 2);
  CHECK(eva_sim(dir, {"sweep", "missing.yaml"}).exit_code == 2);
  CHECK(eva_sim(dir, {"sweep", "s.yaml", "-j", "0"}).exit_code == 2);
}
