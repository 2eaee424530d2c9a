// The SA accelerator on the platform: cycles against the documented closed
// forms (models/systolic/ws_timing.hpp), with memory too fast to matter, and
// the DRAM traffic its tiling implies. One platform per test case.
#include <vector>

#include <catch2/catch.hpp>

#include "arch_for_test.hpp"
#include "config/load_arch.hpp"
#include "sim_check.hpp"
#include "vp/platform.hpp"
#include "vp/simulate.hpp"

using namespace eva;

namespace {

ArchConfig sa(const std::string& weight_load, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "systolic.weight_load=" + weight_load);
  return eva::test::arch("sa", extra);
}

// 1e6 GB/s and no latency: a 1 KiB weight tile arrives in about a picosecond.
const std::vector<std::string> fast_memory = {"dram.bandwidth_gbps=1e6", "dram.latency_ns=0"};

std::uint64_t cdiv(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Each GEMM's first tile waits for its operands' last burst to be written into
// the buffers: 1 cycle of SRAM latency and 1 of the 256 B/cycle port; so does
// each later input-row block, whose rows load once the previous block is done.
const std::uint64_t fill = 2;

// Shapes with K and N that are and are not multiples of 32, M from 1 to 1500
// (two blocks of 750 input rows).
const std::vector<GemmShape> shapes = {{1, 4096, 4096}, {1, 1000, 1000},   {4, 100, 70},  {8, 33, 31},
                                       {1, 31, 33},     {16, 11008, 4096}, {1500, 64, 96}};

Report run(const ArchConfig& c) {
  Report r = simulate_gemms(c, shapes);
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  REQUIRE(r.ops.size() == shapes.size());
  return r;
}

}  // namespace

TEST_CASE("paper: cycles = tiles x (M + R + C) per input-row block") {
  const Report r = run(sa("paper", fast_memory));
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& s = shapes[i];
    const std::uint64_t blocks = cdiv(s.m, 1024), rows = s.m / blocks;  // equal blocks here
    INFO("M=" << s.m << " N=" << s.n << " K=" << s.k);
    CHECK(r.ops[i].cycles == blocks * (fill + cdiv(s.k, 32) * cdiv(s.n, 32) * (rows + 32 + 32)));
    CHECK(r.ops[i].compute_cycles + blocks * fill == r.ops[i].cycles);
  }
}

TEST_CASE("scalesim: cycles = folds x (2R + C + M - 2)") {
  const Report r = run(sa("scalesim", fast_memory));
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& s = shapes[i];
    const std::uint64_t blocks = cdiv(s.m, 1024), rows = s.m / blocks;
    INFO("M=" << s.m << " N=" << s.n << " K=" << s.k);
    CHECK(r.ops[i].cycles == blocks * (fill + cdiv(s.k, 32) * cdiv(s.n, 32) * (64 + 32 + rows - 2)));
  }
}

TEST_CASE("overlapped: cycles = L + (T - 1) max(M, L) + M + R + C - 2") {
  const Report r = run(sa("overlapped", fast_memory));
  const std::uint64_t L = 32 / 4;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& s = shapes[i];
    // Blocks of at most 512 rows: two blocks of INT32 accumulators fill the
    // 128 KiB output buffer.
    const std::uint64_t blocks = cdiv(s.m, 512), rows = s.m / blocks;
    const std::uint64_t tiles = blocks * cdiv(s.k, 32) * cdiv(s.n, 32);
    INFO("M=" << s.m << " N=" << s.n << " K=" << s.k);
    CHECK(r.ops[i].cycles == fill + L + (tiles - 1) * std::max(rows, L) + rows + 32 + 32 - 2);
  }
}

TEST_CASE("Per-arch tile overhead and array size enter the formula") {
  const Report r = run(sa(
      "paper", {"dram.bandwidth_gbps=1e6", "systolic.tile_overhead_cycles=4", "systolic.rows=16", "systolic.cols=8"}));
  const auto& s = shapes[3];  // 8 x 33 x 31
  CHECK(r.ops[3].cycles == fill + cdiv(s.k, 16) * cdiv(s.n, 8) * (s.m + 16 + 8 + 4));
}

TEST_CASE("At 64 GB/s the overlapped array is DRAM-bound at M = 1, on the roofline") {
  ArchRequest req;
  req.arch = "sa";
  req.sets = {"systolic.weight_load=overlapped"};
  const Report r = simulate_gemm(test::checked(load_arch(req)), GemmShape{1, 4096, 4096});
  const double bytes = static_cast<double>(r.dram_bytes_read + r.dram_bytes_written);
  const double roofline_cycles = bytes / 128.0;  // 64 GB/s at 500 MHz = 128 B/cycle
  CHECK(static_cast<double>(r.cycles) >= roofline_cycles);
  CHECK(static_cast<double>(r.cycles) <= 1.01 * roofline_cycles);
  CHECK(r.dram_bw_utilization > 0.99);
}

TEST_CASE("DRAM latency delays the first tile but the stream hides it") {
  ArchRequest req;
  req.arch = "sa";
  req.sets = {"systolic.weight_load=paper", "dram.latency_ns=500"};
  const Report r = simulate_gemm(test::checked(load_arch(req)), GemmShape{1, 1024, 1024});
  const std::uint64_t compute = 32 * 32 * 65;
  CHECK(r.cycles > compute + 250);        // at least the first read's 500 ns
  CHECK(r.cycles < compute + 250 + 600);  // but not per tile
}

// Per-operation parameters: float32 activation and output scales, then one
// weight scale per output channel (baselines/sa/int_datapath.hpp).
namespace {
std::uint64_t sa_parameters(std::uint64_t n) { return 4 * (2 + n); }
}  // namespace

TEST_CASE("DRAM traffic: weights once, activations once when they fit, outputs once, scales once") {
  const Report r = run(sa("paper"));
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& s = shapes[i];
    INFO("M=" << s.m << " N=" << s.n << " K=" << s.k);
    const std::uint64_t blocks = cdiv(s.m, 1024);
    const bool act_fits = (s.m / blocks) * s.k <= 256 * 1024;  // input buffer
    const std::uint64_t act = act_fits ? s.m * s.k : cdiv(s.n, 32) * s.m * s.k;
    CHECK(r.ops[i].dram_bytes_read == blocks * s.k * s.n + act + sa_parameters(s.n));
    CHECK(r.ops[i].dram_bytes_written == s.m * s.n);
  }
}

TEST_CASE("Activations that do not fit the input buffer are re-read per output tile") {
  ArchRequest req;
  req.arch = "sa";
  const Report r = simulate_gemm(test::checked(load_arch(req)), GemmShape{1024, 64, 4096});  // 4 MiB of activations
  CHECK(r.dram_bytes_read == 4096ull * 64 + 2 * 1024ull * 4096 + sa_parameters(64));
}

// ant and figna run on the same weight-stationary skeleton with their formats
// and per-tile overheads (EVA artifact baselines.yaml).
TEST_CASE("ant: A8W8 with 2 cycles per tile for its decoders") {
  ArchRequest req;
  req.arch = "ant";
  req.sets = {"dram.bandwidth_gbps=1e6"};
  const Report r = simulate_gemm(test::checked(load_arch(req)), GemmShape{1, 1000, 700});
  CHECK(r.ops[0].cycles == fill + cdiv(700, 32) * cdiv(1000, 32) * (1 + 64 + 2));
  // Parameters: 4 bytes of types, float32 alpha_a and s_y, alpha_w per channel.
  CHECK(r.dram_bytes_read == 700ull * 1000 + 700 + 4 + 4 * (2 + 1000));
  CHECK(r.dram_bytes_written == 1000);
}

TEST_CASE("figna: A16W4 with 4 cycles per tile for pre-alignment") {
  ArchRequest req;
  req.arch = "figna";
  req.sets = {"dram.bandwidth_gbps=1e6"};
  const Report r = simulate_gemm(test::checked(load_arch(req)), GemmShape{1, 1000, 700});
  CHECK(r.ops[0].cycles == fill + cdiv(700, 32) * cdiv(1000, 32) * (1 + 64 + 4));
  // 4-bit weights, FP16 activations, float32 scale and zero per channel.
  CHECK(r.dram_bytes_read == 700ull * 1000 / 2 + 700 * 2 + 8 * 1000);
  CHECK(r.dram_bytes_written == 1000ull * 2);  // 16-bit outputs
}

TEST_CASE("sa runs vector operations on its vector unit, reading and writing FP16") {
  Platform platform("vp", sa("paper"));
  VectorDescriptor v;
  v.op = VectorOp::rmsnorm;
  v.rows = 4;
  v.cols = 4096;
  v.in_addr = 0;
  v.out_addr = 1 << 20;
  platform.add(v);
  sc_core::sc_start();
  const Report r = platform.report();
  CHECK(r.ops[0].compute_cycles == r.stats["vector"]["busy_cycles"]["value"].get<double>());
  CHECK(r.ops[0].compute_cycles > 0);
  CHECK(r.dram_bytes_read == 4 * 4096 * 2);
  CHECK(r.dram_bytes_written == 4 * 4096 * 2);
  CHECK(r.energy_breakdown_j.at("vector") > 0.0);
}
