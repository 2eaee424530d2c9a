// The example SoC (platform/soc, docs/SOC.md): the firmware built for it runs
// on the Unicorn core and drives EVA and FIGLUT through their registers. One
// simulation per test case.
#include <sys/wait.h>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "arch/presets.hpp"
#include "common/vq_math.hpp"
#include "firmware/soc_map.h"
#include "pack/image.hpp"
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
  c.eva.sim.check_protocol = c.figlut.sim.check_protocol = true;  // every simulating test checks the protocol
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

// One small transformer block packed by the packing library at the DRAM's
// base (docs/SOC.md): Q, K, V, O on EVA (AQLM 2x8), the MLP on FIGLUT. The
// firmware queues them on both accelerators, waits for the interrupts and
// checks each output against the FP16 reference the image carries; the test
// then reads the outputs back from the DRAM and compares them with the
// float64 reference.
namespace {

// With `inject_fault` (eva-soc --inject-fault) the firmware first queues a
// descriptor with an operand in the faulty window, checks the error it gets,
// clears it, and then runs the block: the outputs must match all the same.
void run_packed_block(bool inject_fault) {
  soc::SocConfig c = config("ddr4-3200");
  c.inject_fault = inject_fault;
  const std::uint64_t tokens = 4, d_model = 64, d_ff = 128;
  std::vector<PackedOp> packed;
  std::vector<const ArchConfig*> archs;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const VqProblem p = random_vq_problem(tokens, d_model, d_model, c.eva.vq.codebooks, c.eva.vq.index_bits,
                                          c.eva.vq.vector_dim, 0, 0, 0.0, seed);
    packed.push_back(pack_vq_op(c.eva, p.w, p.x, p.m));
    archs.push_back(&c.eva);
  }
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& [k, n] : {std::pair{d_model, d_ff}, std::pair{d_ff, d_model}}) {
    std::vector<float> x(tokens * k), w(k * n);
    for (float& v : x) v = normal(rng);
    for (float& v : w) v = 0.05f * normal(rng);
    packed.push_back(pack_dense_op(c.figlut, x, w, tokens, n, k));
    archs.push_back(&c.figlut);
  }
  std::vector<eva_image_op_t> table;
  soc::MemoryImage image;
  image.segments = layout_image(packed, table, 0x80000000ull, 0x80000000ull);
  c.image = &image;
  soc::Soc soc("soc", c);
  test::run_clean();
  const std::string& out = soc.uart().text();
  INFO(out);
  REQUIRE(soc.core().finished());
  CHECK(soc.core().error().empty());
  CHECK(soc.core().exit_code() == 0);
  CHECK(out.find("queued 4 ops on EVA, 2 on FIGLUT") != std::string::npos);
  if (inject_fault) {
    CHECK(out.find("fault: EVA reported error 11 at 0x") != std::string::npos);  // EVA_ERR_DATA_BUS_ERROR
    CHECK(out.find("cleared: as expected") != std::string::npos);
    CHECK(out.find("EVA: 4 descriptors done, 1 failed") != std::string::npos);
    REQUIRE(soc.fault_injector() != nullptr);
    CHECK(soc.fault_injector()->errors_injected() == 1);
  } else {
    CHECK(soc.fault_injector() == nullptr);
  }
  CHECK(out.find("RESULT: PASS: the outputs of 6 ops match the reference") != std::string::npos);
  for (std::size_t i = 0; i < packed.size(); ++i) {
    const eva_image_op_t& o = table[i];
    std::vector<std::uint8_t> y_bytes(packed[i].out_bytes);
    soc.dram().storage().read(o.out_addr - SOC_DRAM_BASE, y_bytes.data(), y_bytes.size());  // the DRAM's own address
    const std::vector<double> y = decode_outputs(*archs[i], o.m, o.n, y_bytes, packed[i].codebooks);
    const std::vector<double>& ref = packed[i].reference;
    REQUIRE(y.size() == ref.size());
    double err = 0.0, norm = 0.0;
    for (std::size_t e = 0; e < y.size(); ++e) {
      err += (y[e] - ref[e]) * (y[e] - ref[e]);
      norm += ref[e] * ref[e];
    }
    INFO("op " << i << " (" << archs[i]->name << "): relative L2 error " << std::sqrt(err / norm));
    CHECK(norm > 0.0);
    CHECK(std::sqrt(err / norm) < 2e-3);
    CHECK(check_outputs(y, packed[i].reference_fp16, o.tolerance_q24).ok);
  }
}

}  // namespace

TEST_CASE(
    "soc: the firmware runs a packed block on both accelerators, and its outputs in DRAM match the float64 reference") {
  run_packed_block(false);
}

TEST_CASE("soc: with --inject-fault the firmware sees one fault reported and cleared, then the block's outputs match") {
  run_packed_block(true);
}
