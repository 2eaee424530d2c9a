// Sweep files: parsing, the order of points, the arguments each point gets,
// and the summary rows and CSV. No processes are started here.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "study/sweep.hpp"

using namespace eva;

namespace {

// This process's own directory: ctest runs test cases in parallel, each in its
// own process, from the same working directory.
struct ScratchDir {
  std::string path;
  ScratchDir() : path((std::filesystem::temp_directory_path() / "eva-sweep-test-XXXXXX").string()) {
    if (!mkdtemp(path.data())) throw std::runtime_error("mkdtemp failed");
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

// Writes `text` to a temporary file and loads it as a sweep.
SweepPlan load_text(const std::string& text) {
  const std::string path = scratch_dir() + "/test_sweep_input.yaml";
  std::ofstream(path) << text;
  try {
    SweepPlan p = load_sweep(path);
    std::remove(path.c_str());
    return p;
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
}

std::string error_of(const std::string& text) {
  try {
    load_text(text);
  } catch (const InputError& e) {
    std::string message = e.what();  // the file as a reader sees it, without this process's directory
    if (const auto at = message.find(scratch_dir() + "/"); at != std::string::npos)
      message.erase(at, scratch_dir().size() + 1);
    return message;
  }
  return "no error";
}

const char* two_axes = R"(command: gemm
options: {arch: sa, m: 1, n: 64, k: 64, functional: true}
set: {systolic.weight_load: overlapped}
vary:
  set: {dram.bandwidth_gbps: [16, 64, 256]}
  options: {arch2: [a, b]}
)";

}  // namespace

TEST_CASE("A sweep's points are the cross product, the last axis fastest") {
  const SweepPlan p = load_text(two_axes);
  REQUIRE(p.points() == 6);
  CHECK(p.values(0) == std::vector<std::string>{"16", "a"});
  CHECK(p.values(1) == std::vector<std::string>{"16", "b"});
  CHECK(p.values(2) == std::vector<std::string>{"64", "a"});
  CHECK(p.values(5) == std::vector<std::string>{"256", "b"});
  CHECK(p.describe(3) == "dram.bandwidth_gbps=64 arch2=b");
}

TEST_CASE("A point's arguments: fixed options, swept options, then the --set overrides, with true as a switch") {
  const SweepPlan p = load_text(two_axes);
  const std::vector<std::string> expected = {"gemm",    "--arch",
                                             "sa",      "--m",
                                             "1",       "--n",
                                             "64",      "--k",
                                             "64",      "--functional",
                                             "--arch2", "b",
                                             "--set",   "systolic.weight_load=overlapped",
                                             "--set",   "dram.bandwidth_gbps=256"};
  CHECK(p.arguments(5) == expected);
}

TEST_CASE("Sweep rows: the swept values, typed, then each result's scalar keys, as CSV columns in that order") {
  const SweepPlan p = load_text(two_axes);
  const nlohmann::json report = {{"results",
                                  {{{"arch", "eva"}, {"seconds", 0.5}, {"ops", nlohmann::json::array()}},
                                   {{"arch", "sa"}, {"seconds", 2.0}, {"note", "a,\"b\""}}}}};
  const auto rows = sweep_rows(p, 4, report);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["point"] == 4);
  CHECK(rows[0]["dram.bandwidth_gbps"] == 256);
  CHECK(rows[0]["arch2"] == "a");
  CHECK(!rows[0].contains("ops"));
  CHECK(rows_csv(rows) ==
        "point,dram.bandwidth_gbps,arch2,arch,seconds,note\n"
        "4,256,a,eva,0.5,\n"
        "4,256,a,sa,2.0,\"a,\"\"b\"\"\"\n");
}

TEST_CASE("Bad sweep files name the line and what is wrong") {
  CHECK(error_of("command: gemm\nvray: {}\n") ==
        "test_sweep_input.yaml:2: unknown key 'vray' (expected command, options, set, vary)");
  CHECK(error_of("command: train\nvary: {set: {a: [1]}}\n").find(":1: command: expected one of run") !=
        std::string::npos);
  CHECK(error_of("vary: {set: {a: [1]}}\n").find("command: missing") != std::string::npos);
  CHECK(error_of("command: gemm\n").find("vary: missing") != std::string::npos);
  CHECK(error_of("command: gemm\nvary: {set: {a: []}}\n") ==
        "test_sweep_input.yaml:2: vary.set.a: expected a non-empty list of values");
  CHECK(error_of("command: gemm\nvary: {set: {a: 3}}\n").find("expected a non-empty list") != std::string::npos);
  CHECK(error_of("command: gemm\nvary: {set: {a: [1, [2]]}}\n").find("vary.set.a: expected a value") !=
        std::string::npos);
  CHECK(error_of("command: gemm\noptions: {json: x.json}\nvary: {set: {a: [1]}}\n")
            .find("'json' is set by the sweep itself") != std::string::npos);
  CHECK(error_of("command: gemm\noptions: {--m: 1}\nvary: {set: {a: [1]}}\n").find("without dashes") !=
        std::string::npos);
  CHECK(error_of("command: gemm\nset: {a: 1}\nvary: {set: {a: [1, 2]}}\n").find("'a' is also fixed under set") !=
        std::string::npos);
  CHECK(error_of("command: gemm\nvary: {sets: {a: [1]}}\n").find("vary: unknown key 'sets'") != std::string::npos);
  CHECK(error_of("command: gemm\nvary: {}\n").find("vary: nothing to sweep") != std::string::npos);
  CHECK(error_of("command: [gemm\n").find("malformed YAML") != std::string::npos);
  CHECK(error_of("- a\n").find("expected a mapping") != std::string::npos);
  CHECK(error_of("command: gemm\n? [a, b]\n: 1\nvary: {set: {a: [1]}}\n").find(":2: expected a name as the key") !=
        std::string::npos);
  std::string many = "command: gemm\nvary:\n  set:\n";
  for (int a = 0; a < 6; ++a) many += "    k" + std::to_string(a) + ": [1, 2, 3, 4, 5, 6, 7]\n";
  CHECK(error_of(many).find("more than 100000 points") != std::string::npos);
  CHECK_THROWS_AS(load_sweep("no/such/sweep.yaml"), InputError);
}
