// The inputs of the fuzzers' findings (test/fuzz/regressions/<harness>/,
// docs/TESTING.md), each fed to the entry point its harness fuzzes, with the
// harness's contract: the project's input error, or a correct result.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "config/load_arch.hpp"
#include "config/npy.hpp"
#include "study/sweep.hpp"

using namespace eva;

namespace {

std::vector<std::string> inputs(const std::string& harness) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(EVA_FUZZ_REGRESSIONS) + "/" + harness))
    out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  REQUIRE_FALSE(out.empty());
  return out;
}

}  // namespace

TEST_CASE("fuzz regressions: arch: an input error, or a configuration that prints as YAML that loads back") {
  for (const std::string& path : inputs("arch")) {
    INFO(path);
    ArchRequest request;
    request.arch = path;
    std::string printed;
    try {
      printed = to_yaml(load_arch(request));
    } catch (const InputError&) {
      SUCCEED("an input error");
      continue;
    }
    const ParamSet params = ParamSet::from_yaml(printed, "printed");
    ArchConfig back;
    ConfigReader reader(params, "printed");
    back.visit(reader);
    reader.finish();
    CHECK(to_yaml(back) == printed);
  }
}

// Each an input error, refused before the reader allocates the array its
// header claims: the process's peak memory grows by less than 64 MiB (each
// file is a few hundred bytes).
TEST_CASE("fuzz regressions: npy: every input is an input error, with no allocation beyond the file") {
  const auto peak_kib = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
  };
  for (const std::string& path : inputs("npy")) {
    INFO(path);
    const long before = peak_kib();
    CHECK_THROWS_AS(read_npy(path), InputError);
    CHECK(peak_kib() - before < 64 * 1024);
  }
}

// A value that is not UTF-8 loaded, and the sweep's JSON (its plan, its
// summary) could then not be written: an exception other than the input
// error. Now the file is refused as text that is not UTF-8.
TEST_CASE("fuzz regressions: sweep: an input error, or a plan whose identity and values write as JSON") {
  for (const std::string& path : inputs("sweep")) {
    INFO(path);
    try {
      const SweepPlan plan = load_sweep(path);
      CHECK_NOTHROW(plan.identity().dump());
      CHECK_NOTHROW(sweep_values(plan, 0).dump());
    } catch (const InputError&) {
      SUCCEED("an input error");
    }
  }
}
