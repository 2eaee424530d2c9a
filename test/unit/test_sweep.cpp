// Sweep files: parsing, the order of points, the arguments each point gets,
// and the summary rows and CSV. No processes are started here.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "process/process.hpp"
#include "study/pareto.hpp"
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

TEST_CASE("A sweep file's setting runs every point in it, and only paper or realistic is one") {
  const SweepPlan p = load_text(
      "command: run\nsetting: realistic\noptions: {arch: eva, model: llama2-7b}\n"
      "vary: {set: {epilogue.units: [1, 2]}}\n");
  const std::vector<std::string> args = p.arguments(1);
  const auto at = std::find(args.begin(), args.end(), "--setting");
  REQUIRE(at != args.end());
  CHECK(*(at + 1) == "realistic");
  CHECK(error_of("command: run\nsetting: fast\nvary: {set: {a: [1]}}\n") ==
        "test_sweep_input.yaml:2: setting: expected paper or realistic, got 'fast'");
}

TEST_CASE("Bad sweep files name the line and what is wrong") {
  CHECK(error_of("command: gemm\nvray: {}\n") ==
        "test_sweep_input.yaml:2: unknown key 'vray' (expected command, options, set, setting, vary, slurm)");
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

TEST_CASE("Keys in a together group move as one dimension and their lists must have one length") {
  const SweepPlan p = load_text(R"(command: gemm
vary:
  set: {epilogue.adder_inputs: [8, 16, 32]}
  together:
    - set: {epilogue.units: [1, 2], oc.banks: [64, 128]}
      options: {arch: [eva, eva-w3]}
)");
  REQUIRE(p.points() == 6);
  REQUIRE(p.dimensions == std::vector<std::size_t>{3, 2});
  CHECK(p.values(0) == std::vector<std::string>{"8", "1", "64", "eva"});
  CHECK(p.values(1) == std::vector<std::string>{"8", "2", "128", "eva-w3"});
  CHECK(p.values(5) == std::vector<std::string>{"32", "2", "128", "eva-w3"});
  CHECK(p.describe(3) == "epilogue.adder_inputs=16 epilogue.units=2 oc.banks=128 arch=eva-w3");
  CHECK(error_of("command: gemm\nvary:\n  together:\n    - set: {a: [1, 2], b: [1]}\n") ==
        "test_sweep_input.yaml:4: vary.together[0].set.b: 1 values, but the group's first key has 2 (keys that move "
        "together need lists of one length)");
  CHECK(error_of("command: gemm\nvary: {together: []}\n").find("expected a list of groups") != std::string::npos);
  CHECK(
      error_of("command: gemm\nvary: {together: [{sets: {a: [1]}}]}\n").find("vary.together[0]: unknown key 'sets'") !=
      std::string::npos);
  CHECK(error_of("command: gemm\nvary: {set: {a: [1]}, together: [{set: {a: [2]}}]}\n").find("'a' is swept twice") !=
        std::string::npos);
}

TEST_CASE("A sweep file's slurm settings are checked and the plan's identity is what its points run") {
  const SweepPlan p = load_text(
      "command: gemm\nvary: {set: {a: [1, 2]}}\n"
      "slurm: {partition: short, time: '00:10:00', options: [--qos=low], points_per_task: 4, program: /opt/eva-sim}\n");
  CHECK(p.slurm.partition == "short");
  CHECK(p.slurm.time == "00:10:00");
  CHECK(p.slurm.sbatch_options == std::vector<std::string>{"--qos=low"});
  CHECK(p.slurm.points_per_task == 4);
  CHECK(p.slurm.program == "/opt/eva-sim");
  // Where and how the points run is not part of what they are.
  CHECK(p.identity() == load_text("command: gemm\nvary: {set: {a: [1, 2]}}\n").identity());
  CHECK(p.identity() != load_text("command: gemm\nvary: {set: {a: [1, 3]}}\n").identity());
  CHECK(p.identity() != load_text("command: gemm\nset: {b: 1}\nvary: {set: {a: [1, 2]}}\n").identity());
  CHECK(error_of("command: gemm\nvary: {set: {a: [1]}}\nslurm: {points_per_task: 0}\n")
            .find("slurm.points_per_task: expected an integer >= 1") != std::string::npos);
  CHECK(error_of("command: gemm\nvary: {set: {a: [1]}}\nslurm: {options: [qos=low]}\n")
            .find("'qos=low' is not an option") != std::string::npos);
  CHECK(error_of("command: gemm\nvary: {set: {a: [1]}}\nslurm: {queue: x}\n").find("slurm: unknown key 'queue'") !=
        std::string::npos);
}

TEST_CASE("Built-in sweeps load by name") {
  const auto names = builtin_sweep_names();
  REQUIRE(std::find(names.begin(), names.end(), "explore-eva") != names.end());
  const SweepPlan p = load_sweep("explore-eva");
  CHECK(p.command == "run");
  CHECK(p.points() == 64);
  CHECK_THROWS_AS(load_sweep("explore-nothing"), InputError);
}

TEST_CASE("Pareto front: no other row at least as good everywhere and better somewhere") {
  const std::vector<Objective> o = {{"tps", true}, {"e", false}};
  const auto row = [](double tps, double e) { return nlohmann::ordered_json{{"tps", tps}, {"e", e}}; };
  std::vector<nlohmann::ordered_json> rows = {row(10, 1.0), row(20, 2.0), row(5, 1.5), row(20, 2.0), row(15, 1.0)};
  rows.push_back({{"tps", 100}});  // without every objective: never on the front, dominates nothing
  const auto front = pareto_front(rows, o);
  REQUIRE(front);
  // (10, 1.0) loses to (15, 1.0); (5, 1.5) to both; the equal pair stays.
  CHECK(*front == std::vector<bool>{false, true, false, true, true, false});
  CHECK(!pareto_front({nlohmann::ordered_json{{"x", 1}}}, o));
  CHECK(parse_objectives("tps:max,e:min").size() == 2);
  CHECK_THROWS_AS(parse_objectives("tps:max"), InputError);
  CHECK_THROWS_AS(parse_objectives("tps:most,e:min"), InputError);
  CHECK_THROWS_AS(parse_objectives("tps:max,tps:min"), InputError);
  CHECK(objectives_json(default_objectives()).dump() ==
        R"(["tokens_per_s:max","energy_per_token_j:min","area_mm2:min"])");
}

TEST_CASE("The Slurm batch script quotes every value: a hostile one reaches the program as it is") {
  const std::string dir = scratch_dir() + "/batch";
  std::filesystem::create_directories(dir);
  const std::string hostile = "$(touch pwned)'\"`touch pwned2`; touch pwned3";
  const SweepPlan p = load_text(R"yaml(command: gemm
options: {model: '$(touch pwned)''"`touch pwned2`; touch pwned3'}
vary: {set: {a: [1, "x y"]}}
)yaml");
  REQUIRE(p.options.at(0).second == hostile);
  // The "program" prints each argument it gets on a line of its own.
  const std::string program = dir + "/print-args";
  std::ofstream(program) << "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n";
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  const std::string script = slurm_batch_script(p, {0, 1}, 2, program, dir);
  std::ofstream(dir + "/job.sh") << script;
  ::setenv("SLURM_ARRAY_TASK_ID", "0", 1);
  const int status = wait_process(spawn_process({"bash", dir + "/job.sh"}, dir + "/out", dir + "/err")).second;
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  REQUIRE(status == 0);
  std::ifstream printed(dir + "/point-001.txt");
  std::stringstream text;
  text << printed.rdbuf();
  CHECK(text.str().find("[--model]\n[" + hostile + "]\n") != std::string::npos);
  CHECK(text.str().find("[--set]\n[a=x y]\n") != std::string::npos);
  std::ifstream exit_file(dir + "/point-001.exit");
  int exit_status = -1;
  exit_file >> exit_status;
  CHECK(exit_status == 0);
  for (const char* f : {"pwned", "pwned2", "pwned3"}) {
    CHECK(!std::filesystem::exists(dir + "/" + f));
    CHECK(!std::filesystem::exists(f));
  }
  CHECK(shell_quote("it's") == "'it'\\''s'");
}

TEST_CASE("vary.linked is one group of keys that step together") {
  const SweepPlan p = load_text(R"(command: run
vary:
  linked:
    set: {epilogue.units: [1, 2, 4]}
    options: {arch: [eva.yaml, eva-w3, eva-w4]}
  set: {dram.bandwidth_gbps: [16, 64]}
)");
  REQUIRE(p.points() == 6);
  CHECK(p.values(0) == std::vector<std::string>{"1", "eva.yaml", "16"});
  CHECK(p.values(3) == std::vector<std::string>{"2", "eva-w3", "64"});
  CHECK(error_of("command: gemm\nvary: {linked: {set: {a: [1, 2]}, options: {b: [1]}}}\n")
            .find("vary.linked.options.b: 1 values, but the group's first key has 2") != std::string::npos);
  // The arch column holds the architecture's name, not the file it came from.
  const auto rows = sweep_rows(p, 0, nlohmann::json{{"arch", "eva"}, {"seconds", 1.0}, {"tokens", 4}});
  CHECK(rows[0]["arch"] == "eva");
  CHECK(rows[0]["tokens_per_s"] == 4.0);
}
