// eva-sim sweep: points run as separate processes, in parallel, with their
// summary; a bad point is reported and the others kept; resume; the Pareto front.
#include <algorithm>
#include <filesystem>
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

TEST_CASE("A point the command refuses is reported and finished points are kept and --keep-going runs the rest") {
  Scratch dir;
  dir.write("s.yaml",
            "command: gemm\noptions: {arch: eva, m: 1, n: 64, k: 64}\n"
            "vary: {set: {epilogue.units: [1, 0, 2]}}\n");
  // One at a time: point 0 runs, point 1 fails, and the sweep starts nothing more.
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "-j", "1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "eva-sim: s.yaml: point 1 (epilogue.units=0): --set epilogue.units=0: epilogue.units: expected an "
        "integer >= 1 and <= 4096, got \"0\"\n");
  CHECK(r.out.find("(local: 2 run now, 0 kept from before, 1 failed, 1 not run (stopped at the failure") !=
        std::string::npos);
  CHECK(dir.exists("out/point-000.json"));
  CHECK(!dir.exists("out/point-001.json"));
  CHECK(!dir.exists("out/point-002.json"));
  auto index = dir.json("out/sweep.json");
  REQUIRE(index["points"].size() == 1);
  REQUIRE(index["failed"].size() == 1);
  CHECK(index["failed"][0]["point"] == 1);
  CHECK(index["failed"][0]["status"] == 2);
  CHECK(index["failed"][0]["error"].get<std::string>().find("epilogue.units: expected an integer") !=
        std::string::npos);
  CHECK(index["not_run"] == nlohmann::json::array({2}));
  // Again with --keep-going: the missing point runs; the failed one stays
  // failed (nothing reruns it unless asked).
  const Run on = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--keep-going"});
  CHECK(on.exit_code == 2);
  CHECK(on.out.find("(local: 1 run now, 1 kept from before, 1 failed)") != std::string::npos);
  index = dir.json("out/sweep.json");
  CHECK(index["points"].size() == 2);
  CHECK(index["not_run"].empty());
  const Run retry = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--retry-failed"});
  CHECK(retry.exit_code == 2);
  CHECK(retry.out.find("(local: 1 run now, 2 kept from before, 1 failed)") != std::string::npos);
}

TEST_CASE("An interrupted sweep resumes: complete points are kept, missing and half-written ones rerun") {
  Scratch dir;
  dir.write("s.yaml", bandwidth_sweep);
  REQUIRE(eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet"}).exit_code == 0);
  const std::string kept = slurp(dir.path("out/point-000.json"));  // sim_wall_s differs on any rerun
  const auto before = dir.json("out/sweep.json");
  // As a kill would leave it: point 2 never finished, point 3's report is
  // there but its status is not, point 1's report was cut short.
  for (const char* f : {"out/point-002.json", "out/point-002.exit", "out/point-003.exit"})
    std::filesystem::remove(dir.path(f));
  dir.write("out/point-001.json", "{\"arch\": \"sa\", \"cyc");
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("(local: 3 run now, 1 kept from before, 0 failed), 4 rows") != std::string::npos);
  CHECK(slurp(dir.path("out/point-000.json")) == kept);
  const auto after = dir.json("out/sweep.json");
  REQUIRE(after["points"].size() == 4);
  for (int p = 0; p < 4; ++p)
    CHECK(after["points"][p]["rows"][0]["cycles"] == before["points"][p]["rows"][0]["cycles"]);
}

TEST_CASE("Bad input: a changed sweep file into the same directory is refused unless --force") {
  Scratch dir;
  dir.write("s.yaml", bandwidth_sweep);
  REQUIRE(eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet"}).exit_code == 0);
  std::string changed = bandwidth_sweep;
  changed.replace(changed.find("[8, 32]"), 7, "[8, 64]");
  dir.write("s.yaml", changed);
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("holds the points of a different sweep") != std::string::npos);
  CHECK(dir.json("out/point-001.json")["config"]["dram"]["bandwidth_gbps"] == 32.0);  // untouched
  const Run forced = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet", "--force"});
  INFO(forced.err);
  REQUIRE(forced.exit_code == 0);
  CHECK(forced.out.find("(local: 4 run now, 0 kept from before") != std::string::npos);
  CHECK(dir.json("out/point-001.json")["config"]["dram"]["bandwidth_gbps"] == 64.0);
}

TEST_CASE("sweep marks the Pareto front and --plot draws it and pareto redraws it over other objectives") {
  Scratch dir;
  dir.write("tiny.yaml", tiny_model);
  dir.write("s.yaml",
            "command: run\noptions: {arch: eva, model: tiny.yaml, phase: decode}\n"
            "vary:\n  together:\n    - set: {epilogue.units: [1, 2, 4], oc.banks: [128, 128, 128]}\n"
            "  options: {dram: [ideal, lpddr5-6400]}\n");
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet", "--plot", "front.png"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(dir.exists("front.png"));
  CHECK(r.out.find("Pareto front over [\"tokens_per_s:max\",\"energy_per_token_j:min\",\"area_mm2:min\"]") !=
        std::string::npos);
  const auto index = dir.json("out/sweep.json");
  REQUIRE(index["pareto"]["front"].get<int>() >= 1);
  int marked = 0;
  for (const auto& p : index["points"]) {
    REQUIRE(p["rows"][0].contains("pareto"));
    CHECK(p["rows"][0]["tokens_per_s"].get<double>() > 0);
    marked += p["rows"][0]["pareto"].get<bool>();
  }
  CHECK(marked == index["pareto"]["front"]);
  // Fastest and cheapest in area alone: only the fastest point per area.
  const Run p = eva_sim(
      dir, {"pareto", "out/sweep.json", "--objectives", "tokens_per_s:max,area_mm2:min", "--plot", "front2.png"});
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  CHECK(dir.exists("front2.png"));
  CHECK(p.out.find("units=") != std::string::npos);
  CHECK(eva_sim(dir, {"pareto", "missing.json"}).exit_code == 2);
  dir.write("bad.json", "{\"points\": 3}");
  CHECK(eva_sim(dir, {"pareto", "bad.json"}).err ==
        "eva-sim: bad.json: not a sweep.json (expected an object with a list of points)\n");
  CHECK(eva_sim(dir, {"pareto", "out/sweep.json", "--objectives", "cycles"}).exit_code == 2);
  CHECK(eva_sim(dir, {"pareto", "out/sweep.json", "--objectives", "nothing:max,none:min"})
            .err.find("no row has every objective") != std::string::npos);
}

TEST_CASE("Bad input: sweep executor options") {
  Scratch dir;
  dir.write("s.yaml", bandwidth_sweep);
  CHECK(eva_sim(dir, {"sweep", "s.yaml", "--executor", "cloud"}).err ==
        "eva-sim: --executor: expected local or slurm, got 'cloud'\n");
  CHECK(eva_sim(dir, {"sweep", "s.yaml", "--partition", "p"}).err ==
        "eva-sim: --partition: only for --executor slurm\n");
  CHECK(eva_sim(dir, {"sweep", "s.yaml", "--executor", "slurm", "--points-per-task", "0"}).exit_code == 2);
  CHECK(eva_sim(dir, {"sweep", "s.yaml", "--executor", "slurm", "--sbatch-option", "qos"}).exit_code == 2);
  CHECK(eva_sim(dir, {"sweep", "s.yaml", "--plot", "no/dir/x.png"}).exit_code == 2);
  CHECK(!dir.exists("sweep-out"));
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

TEST_CASE("sweep --baseline adds ratio columns against an architecture of the same swept values") {
  Scratch dir;
  dir.write("s.yaml", bandwidth_sweep);
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "-j", "2", "--out", "out", "--quiet", "--baseline", "sa"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto index = dir.json("out/sweep.json");
  REQUIRE(index["points"].size() == 4);
  const auto row = [&](int p) { return index["points"][p]["rows"][0]; };
  // Points 0, 1 are sa at 8 and 32 GB/s; 2, 3 figlut at the same.
  for (int p : {0, 1}) {
    CHECK(row(p)["speedup_vs_sa"].get<double>() == 1.0);
    CHECK(row(p)["energy_efficiency_vs_sa"].get<double>() == 1.0);
  }
  for (int p : {2, 3}) {
    const auto sa = row(p - 2);
    CHECK(row(p)["speedup_vs_sa"].get<double>() ==
          Approx(sa["seconds"].get<double>() / row(p)["seconds"].get<double>()));
    CHECK(row(p)["energy_efficiency_vs_sa"].get<double>() ==
          Approx(sa["energy_j"].get<double>() / row(p)["energy_j"].get<double>()));
  }
  CHECK(row(2)["speedup_vs_sa"].get<double>() != row(3)["speedup_vs_sa"].get<double>());  // matched by bandwidth
  const std::string csv = slurp(dir.path("out/sweep.csv"));
  CHECK(csv.find("speedup_vs_sa") != std::string::npos);
  CHECK(r.out.find("speedup_vs_sa") != std::string::npos);  // the printed summary
}

TEST_CASE("Bad input: sweep --baseline naming an architecture the sweep does not run") {
  Scratch dir;
  dir.write("s.yaml", bandwidth_sweep);
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--out", "out", "--quiet", "--baseline", "eva"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--baseline eva: not an architecture of this sweep (its points run sa, figlut)") !=
        std::string::npos);
  CHECK(!dir.exists("out/sweep.json"));
}
