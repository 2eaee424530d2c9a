// The example SoC (platform/soc, docs/SOC.md): the firmware built for it runs
// on the Unicorn core and drives EVA and FIGLUT through their registers. One
// simulation per test case.
#include <sys/wait.h>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "arch/presets.hpp"
#include "sim_check.hpp"
#include "soc.hpp"
#include "vp/platform.hpp"

using namespace eva;

namespace {

std::vector<std::uint8_t> firmware() {
  std::ifstream in(EVA_SOC_FIRMWARE, std::ios::binary);
  REQUIRE(in);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

soc::SocConfig config(const std::string& dram) {
  soc::SocConfig c;
  c.eva = presets::arch("eva", dram);
  c.figlut = presets::arch("figlut", dram);
  c.firmware = firmware();
  set_global_quantum(c.eva.sim);
  return c;
}

// Runs eva-soc with `args`; its exit status and its stderr.
int run_eva_soc(const std::string& args, std::string& err) {
  const std::string cmd = std::string(EVA_SOC) + " " + args + " 2>&1 >/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[256];
  err.clear();
  while (std::fgets(buf, sizeof buf, p)) err += buf;
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("soc: without an image the firmware identifies both accelerators and runs a timing-only GEMM on each") {
  soc::SocConfig c = config("ddr4-3200");
  soc::Soc soc("soc", c);
  test::run_clean();
  INFO(soc.uart().text());
  CHECK(soc.core().error().empty());
  REQUIRE(soc.core().finished());
  CHECK(soc.core().exit_code() == 0);
  const std::string& out = soc.uart().text();
  CHECK(out.find("EVA at 0x20010000: regmap v1") != std::string::npos);
  CHECK(out.find("FIGLUT at 0x20011000: regmap v1") != std::string::npos);
  CHECK(out.find("EVA: 1 descriptors done, 0 failed") != std::string::npos);
  CHECK(out.find("FIGLUT: 1 descriptors done, 0 failed") != std::string::npos);
  CHECK(out.find("RESULT: PASS") != std::string::npos);
  // The core slept on the interrupt controller while both accelerators ran,
  // and their DRAM traffic and the core's went to the same DRAM.
  CHECK(soc.core().instructions() > 1000);
  CHECK(soc.dram().bytes_read() > 500000);
}

TEST_CASE("soc: eva-soc refuses bad input with exit 2 and one line") {
  std::string err;
  CHECK(run_eva_soc("--cpu-mhz fast", err) == 2);
  CHECK(err == "eva-soc: --cpu-mhz fast: expected a number in [1.000000, 100000.000000]\n");
  CHECK(run_eva_soc("--image /nonexistent/image.bin", err) == 2);
  CHECK(err == "eva-soc: image /nonexistent/image.bin: cannot be read\n");
  CHECK(run_eva_soc("--image " EVA_SOC_FIRMWARE, err) == 2);
  CHECK(err.find("not a memory image") != std::string::npos);
  CHECK(run_eva_soc("--dram nope", err) == 2);
  CHECK(run_eva_soc("--bogus 1", err) == 2);
  CHECK(err == "eva-soc: unknown option --bogus (see --help)\n");
}
