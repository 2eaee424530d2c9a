// The slurm executor on a real single-node cluster (scripts/slurm-local.sh,
// brought up and down around these tests by ctest fixtures; SLURM_CONF points
// at it). Built only where slurmctld is installed.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

// Eight quick points on two architectures.
const char* const sweep = R"(command: gemm
options: {m: 1, n: 256, k: 256}
vary:
  options: {arch: [sa, eva]}
  set: {dram.bandwidth_gbps: [8, 16, 32, 64]}
)";

// The JSON without wall-clock measures (keys ending in wall_s).
nlohmann::json without_wall_times(nlohmann::json j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [key, value] : j.items())
      if (key.size() < 6 || key.compare(key.size() - 6, 6, "wall_s") != 0) out[key] = without_wall_times(value);
    return out;
  }
  if (j.is_array())
    for (auto& v : j) v = without_wall_times(v);
  return j;
}

}  // namespace

TEST_CASE("The slurm executor gives the local executor's sweep.json except for wall times") {
  Scratch dir;
  dir.write("s.yaml", sweep);
  const Run local = eva_sim(dir, {"sweep", "s.yaml", "--out", "local", "--quiet"});
  INFO(local.err);
  REQUIRE(local.exit_code == 0);
  const Run slurm = eva_sim(dir, {"sweep", "s.yaml", "--executor", "slurm", "--out", "slurm", "--quiet"});
  INFO(slurm.err);
  REQUIRE(slurm.exit_code == 0);
  CHECK(slurm.out.find("(slurm: 8 run now, 0 kept from before, 0 failed), 8 rows") != std::string::npos);
  CHECK(without_wall_times(dir.json("slurm/sweep.json")) == without_wall_times(dir.json("local/sweep.json")));
  CHECK(dir.exists("slurm/slurm/job.sh"));
  CHECK(dir.exists("slurm/slurm/job-id"));
  // Complete: a second run submits nothing.
  const Run again = eva_sim(dir, {"sweep", "s.yaml", "--executor", "slurm", "--out", "slurm", "--quiet"});
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("(slurm: 0 run now, 8 kept from before, 0 failed)") != std::string::npos);
}

TEST_CASE(
    "Slurm runs chunks of points per task and reports a failed point with its stderr and a hostile value stays inert") {
  Scratch dir;
  // Point 1's model is a shell command in quotes: it must reach eva-sim as a
  // name (and be refused), never run.
  dir.write("s.yaml", R"yaml(command: run
options: {arch: sa, phase: decode}
vary:
  options: {model: [tiny.yaml, '$(touch pwned)''"`touch pwned2`', tiny.yaml]}
  set: {dram.bandwidth_gbps: [16, 64]}
)yaml");
  dir.write("tiny.yaml", tiny_model);
  const Run r = eva_sim(dir, {"sweep", "s.yaml", "--executor", "slurm", "--points-per-task", "4", "-j", "2", "--out",
                              "out%a", "--quiet"});  // '%' is sbatch's pattern character: taken literally
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("eva-sim: s.yaml: point 2 (model=$(touch pwned)'\"`touch pwned2` dram.bandwidth_gbps=16): "
                   "--model") != std::string::npos);
  CHECK(r.err.find("and 1 more failed points") != std::string::npos);
  CHECK(r.out.find("(slurm: 6 run now, 0 kept from before, 2 failed), 4 rows") != std::string::npos);
  for (const char* f : {"pwned", "pwned2", "out%a/pwned", "out%a/pwned2"}) CHECK(!dir.exists(f));
  const auto index = dir.json("out%a/sweep.json");
  REQUIRE(index["failed"].size() == 2);
  CHECK(index["failed"][0]["status"] == 2);
  CHECK(index["failed"][1]["point"] == 3);
  // Six points, four per task: two tasks.
  CHECK(dir.exists("out%a/slurm/task-1.out"));
  CHECK(!dir.exists("out%a/slurm/task-2.out"));
}
