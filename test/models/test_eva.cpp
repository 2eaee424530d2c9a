// The EVA accelerator: functional VQ decode against the float64 reference for
// each format, conflict-free epilogue lookups, and timing against the DRAM
// roofline. One simulation per test case.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "arch_for_test.hpp"
#include "common/error.hpp"
#include "config/load_arch.hpp"
#include "eva/eva_accelerator.hpp"
#include "sim_check.hpp"
#include "vp/platform.hpp"
#include "vp/simulate.hpp"

using namespace eva;
using eva::test::arch;

namespace {

using Case = VqProblem;

Case random_case(std::uint64_t m, std::uint64_t k, std::uint64_t n, int c, int bits, int d, std::uint64_t group = 0,
                 double skew = 0.0, unsigned seed = 5) {
  return random_vq_problem(m, k, n, c, bits, d, group, group, skew, seed);
}

// conflict_free: EVA's lookups never conflict; vq-conflict's do.
void matches_reference(const std::string& name, const Case& t, bool conflict_free = true) {
  ArchConfig a = arch(name);
  a.vq.codebooks = t.w.codebooks;
  a.vq.index_bits = t.w.index_bits;
  a.vq.vector_dim = t.w.d;
  a.vq.group_k = static_cast<int>(t.w.group_k);
  a.vq.group_n = static_cast<int>(t.w.group_n);
  if (name == "vq-conflict") {  // a codebook SRAM that holds every group's codebooks (16-B words)
    const std::uint64_t words = t.w.groups_k() * t.w.groups_n() * static_cast<std::uint64_t>(t.w.codebooks) *
                                (1ull << t.w.index_bits) * ((static_cast<std::uint64_t>(t.w.d) * 2 + 15) / 16);
    a.buffers.codebook_kib = static_cast<int>((words * 16 + 1023) / 1024);
  }
  const VqGemvResult r = simulate_vq_gemv(a, t.w, t.x, t.m);
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  const double err = relative_l2_error(r.y, vq_reference(t.w, t.x, t.m));
  INFO("relative L2 error " << err);
  CHECK(err < 1e-3);
  if (conflict_free)
    CHECK(r.report.sram_bank_conflict_cycles == 0);  // EVA's OC layout: every lookup in its own bank
  else
    CHECK(r.report.sram_bank_conflict_cycles > 0);
  CHECK(r.report.dram_bytes_written == t.m * t.w.n * 2);
}

// LLaMA-2-7B's seven FC layers of one decoder layer (workloads/models/llama2-7b.yaml).
const std::vector<GemmShape> llama2_7b_layer = {{1, 4096, 4096},  {1, 4096, 4096},  {1, 4096, 4096}, {1, 4096, 4096},
                                                {1, 11008, 4096}, {1, 11008, 4096}, {1, 4096, 11008}};

// Index and codebook bytes of those layers for AQLM 2x8, over the bandwidth.
double roofline_cycles(double gbps) {
  double bytes = 0;
  for (const auto& s : llama2_7b_layer) bytes += static_cast<double>(s.k * s.n) * 2 / 8 + 2 * 256 * 8 * 2;
  return bytes / (gbps * 1e9) * 500e6;
}

Report layer(std::vector<std::string> sets) {
  const Report r = simulate_gemms(arch("eva", std::move(sets)), llama2_7b_layer);
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  return r;
}

}  // namespace

// K and N are multiples of no tile size (d divides K, as the format requires).
TEST_CASE("EVA 2x8, M = 1, matches the float64 reference") {
  matches_reference("eva", random_case(1, 1000, 333, 2, 8, 8));
}
TEST_CASE("EVA 2x8, M = 4, matches the float64 reference") {
  matches_reference("eva", random_case(4, 1000, 333, 2, 8, 8));
}
TEST_CASE("EVA 4x8, M = 1, matches the float64 reference") {
  matches_reference("eva", random_case(1, 1352, 150, 4, 8, 8));
}
TEST_CASE("EVA 4x8, M = 4, matches the float64 reference") {
  matches_reference("eva", random_case(4, 1352, 150, 4, 8, 8));
}
TEST_CASE("EVA 1x16, M = 1, matches the float64 reference") {
  matches_reference("eva", random_case(1, 136, 45, 1, 16, 8));
}
TEST_CASE("EVA 1x16, M = 4, matches the float64 reference") {
  matches_reference("eva", random_case(4, 72, 30, 1, 16, 8));
}
TEST_CASE("EVA GPTVQ (256x256 groups, d = 4), M = 1, matches the float64 reference") {
  matches_reference("eva-gptvq", random_case(1, 700, 530, 1, 8, 4, 256));
}
TEST_CASE("EVA GPTVQ (256x256 groups, d = 4), M = 4, matches the float64 reference") {
  matches_reference("eva-gptvq", random_case(4, 700, 530, 1, 8, 4, 256));
}
TEST_CASE("EVA: skewed indices still meet no bank conflict") {
  matches_reference("eva", random_case(1, 2048, 257, 2, 8, 8, 0, 3.0, 9));
}

TEST_CASE("EVA: timing mode takes the same cycles as the functional run") {
  // The same layer twice on one platform: with data, then with time only.
  const Case t = random_case(1, 2048, 700, 2, 8, 8, 0, 1.0);
  const ArchConfig a = arch("eva");
  Platform platform("vp", a);
  GemmDescriptor op = place_vq_operands(platform, a, t.w, t.x, t.m);
  platform.add(op);
  op.functional = false;
  op.name = "timing";
  platform.add(op);
  test::run_clean();
  const Report r = platform.report();
  REQUIRE(r.ops.size() == 2);
  CHECK(r.ops[0].cycles == r.ops[1].cycles);
  CHECK(r.ops[0].dram_bytes_read == r.ops[1].dram_bytes_read);
  CHECK(r.ops[0].compute_cycles == r.ops[1].compute_cycles);
}

TEST_CASE("EVA: with the protocol checker on, a checker behind the local bus sees every buffer's traffic") {
  const Case t = random_case(1, 1024, 256, 2, 8, 8);
  const ArchConfig a = arch("eva");  // sim.check_protocol: true, as in every simulating test
  Platform platform("vp", a);
  GemmDescriptor op = place_vq_operands(platform, a, t.w, t.x, t.m);
  platform.add(op);
  op.functional = false;
  platform.add(op);
  test::run_clean();  // a violation reports with SC_REPORT_ERROR, which fails the run
  auto* eva = dynamic_cast<EvaAccelerator*>(&platform.accelerator());
  REQUIRE(eva != nullptr);
  const auto& checkers = eva->bus.checkers();
  REQUIRE(checkers.size() == 4);  // input, codebook, index and output buffers
  for (const auto& c : checkers) {
    INFO(c->name());
    CHECK(c->transactions_checked() > 0);
    CHECK(c->violations() == 0);
    CHECK(c->in_flight() == 0);
  }
  REQUIRE(platform.protocol_checker() != nullptr);
  CHECK(platform.protocol_checker()->transactions_checked() > 0);
  CHECK(platform.protocol_checker()->violations() == 0);
}

TEST_CASE("EVA: a LLaMA-2-7B decoder layer at 64 GB/s runs within 5% of the DRAM roofline") {
  const Report r = layer({});
  const double roof = roofline_cycles(64.0);
  INFO("cycles " << r.cycles << ", roofline " << roof);
  CHECK(static_cast<double>(r.cycles) >= roof);
  CHECK(static_cast<double>(r.cycles) <= 1.05 * roof);
}

TEST_CASE("EVA: at 16 GB/s the layer stays bandwidth-bound") {
  const Report r = layer({"dram.bandwidth_gbps=16"});
  const double roof = roofline_cycles(16.0);
  INFO("cycles " << r.cycles << ", roofline " << roof);
  CHECK(static_cast<double>(r.cycles) >= roof);
  CHECK(static_cast<double>(r.cycles) <= 1.05 * roof);
}
TEST_CASE("EVA: at 32 GB/s the layer stays bandwidth-bound") {
  const Report r = layer({"dram.bandwidth_gbps=32"});
  CHECK(static_cast<double>(r.cycles) <= 1.05 * roofline_cycles(32.0));
}
TEST_CASE("EVA: at 48 GB/s the layer stays bandwidth-bound") {
  const Report r = layer({"dram.bandwidth_gbps=48"});
  CHECK(static_cast<double>(r.cycles) <= 1.05 * roofline_cycles(48.0));
}

TEST_CASE("EVA: with 2 epilogue units the layer becomes epilogue-bound") {
  const Report r = layer({"epilogue.units=2"});
  double epilogue = 0;
  for (const auto& op : r.ops) epilogue += static_cast<double>(op.compute_cycles);
  INFO("cycles " << r.cycles << ", epilogue " << epilogue << ", roofline " << roofline_cycles(64.0));
  CHECK(static_cast<double>(r.cycles) > 1.8 * roofline_cycles(64.0));
  CHECK(static_cast<double>(r.cycles) == Approx(epilogue).epsilon(0.05));
}
TEST_CASE("EVA: with 1 epilogue unit the layer becomes epilogue-bound") {
  const Report r = layer({"epilogue.units=1"});
  double epilogue = 0;
  for (const auto& op : r.ops) epilogue += static_cast<double>(op.compute_cycles);
  CHECK(static_cast<double>(r.cycles) > 3.6 * roofline_cycles(64.0));
  CHECK(static_cast<double>(r.cycles) == Approx(epilogue).epsilon(0.05));
}

TEST_CASE("EVA prefill: above the threshold the INT8 array runs weight-stationary tiles") {
  // 2x8 switches to prefill above 32 input rows; with fast memory the cycles
  // are the weight-stationary closed form (paper: tiles x (M + R + C)), plus
  // 2 for the first operands' last burst written into its buffer (1 cycle of
  // latency, 1 of the 256 B/cycle port).
  const Report r = simulate_gemms(arch("eva", {"dram.bandwidth_gbps=1e6"}),
                                  {GemmShape{64, 4096, 4096}, GemmShape{32, 1000, 1000}, GemmShape{33, 1000, 1000}});
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  CHECK(r.ops[0].cycles == 2 + 128ull * 128 * (64 + 32 + 32));
  // Bytes: 2-bit indices, codebooks once, INT8 activations once, INT8 outputs.
  CHECK(r.ops[0].dram_bytes_read == 4096ull * 4096 * 2 / 8 + 2 * 256 * 8 * 2 + 64ull * 4096);
  CHECK(r.ops[0].dram_bytes_written == 64ull * 4096);
  // 32 rows: decode mode, FP16 in and out; 33: prefill, INT8.
  CHECK(r.ops[1].dram_bytes_written == 32ull * 1000 * 2);
  CHECK(r.ops[2].dram_bytes_written == 33ull * 1000);
  CHECK(r.ops[2].cycles == 2 + 32ull * 32 * (33 + 64));
}

TEST_CASE("EVA prefill: the threshold follows the format") {
  // GPTVQ switches above 4 rows: 5 rows run weight-stationary.
  const Report r = simulate_gemms(arch("eva-gptvq", {"dram.bandwidth_gbps=1e6"}), {GemmShape{5, 512, 512}});
  CHECK(r.ops[0].cycles == 2 + 16ull * 16 * (5 + 64));  // + the first buffer fill, as above
  CHECK(r.stats["systolic"]["tiles"]["value"].get<double>() == 256);
}

TEST_CASE("EVA's mode policy estimate: functional layers keep the thresholds, INT8 mode having no functional model") {
  // At 8 rows the estimate would take INT8 mode (above); a functional layer
  // runs VQ-lookup mode and matches the reference.
  const ArchConfig a = arch("eva", {"systolic.weight_load=overlapped", "eva.mode_policy=estimate"});
  const Case t = random_case(8, 256, 256, 2, 8, 8);
  const VqGemvResult r = simulate_vq_gemv(a, t.w, t.x, t.m);
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  CHECK(relative_l2_error(r.y, vq_reference(t.w, t.x, t.m)) < 1e-3);
  CHECK(r.report.dram_bytes_written == t.m * t.w.n * 2);  // FP16 outputs: VQ-lookup mode
}

TEST_CASE("EVA's vector unit: passes x rows x ceil(cols / lanes) + pipeline, operands through the DMA") {
  ArchConfig a = arch("eva", {"dram.bandwidth_gbps=1e6"});
  Platform platform("vp", a);
  VectorDescriptor softmax{"softmax", VectorOp::softmax, 32, 130, 0, 0, 1 << 20};
  VectorDescriptor residual{"residual", VectorOp::add, 1, 4096, 0, 1 << 16, 1 << 20};
  VectorDescriptor norm{"rmsnorm", VectorOp::rmsnorm, 1, 4096, 0, 0, 1 << 20};
  platform.add(softmax);
  platform.add(residual);
  platform.add(norm);
  test::run_clean();
  const Report r = platform.report();
  REQUIRE(r.ops.size() == 3);
  CHECK(r.ops[0].compute_cycles == 3 * 32 * 5 + 8);  // ceil(130 / 32) = 5
  CHECK(r.ops[1].compute_cycles == 1 * 1 * 128 + 8);
  CHECK(r.ops[2].compute_cycles == 2 * 1 * 128 + 8);
  // Memory too fast to matter, but for the operands' last burst written into
  // the input buffer (1 cycle of latency, 1 of the 256 B/cycle port).
  CHECK(r.ops[0].cycles == r.ops[0].compute_cycles + 2);
  CHECK(r.ops[1].dram_bytes_read == 2 * 4096 * 2);  // two FP16 operands
  CHECK(r.ops[1].dram_bytes_written == 4096 * 2);
}

// The conflicting-VQ baseline decodes the same formats to the same numbers.
TEST_CASE("vq-conflict 2x8, M = 1, matches the float64 reference") {
  matches_reference("vq-conflict", random_case(1, 1000, 333, 2, 8, 8), false);
}
TEST_CASE("vq-conflict 2x8, M = 4, matches the float64 reference") {
  matches_reference("vq-conflict", random_case(4, 1000, 333, 2, 8, 8), false);
}
TEST_CASE("vq-conflict 4x8, M = 1 and 4, matches the float64 reference") {
  matches_reference("vq-conflict", random_case(4, 1352, 150, 4, 8, 8), false);
}
TEST_CASE("vq-conflict 1x16, M = 1, matches the float64 reference") {
  matches_reference("vq-conflict", random_case(1, 136, 45, 1, 16, 8), false);
}
TEST_CASE("vq-conflict GPTVQ (256x256 groups, d = 4), M = 4, matches the float64 reference") {
  matches_reference("vq-conflict", random_case(4, 700, 530, 1, 8, 4, 256), false);
}
TEST_CASE("vq-conflict GPTVQ (256x256 groups, d = 4), M = 1, matches the float64 reference") {
  matches_reference("vq-conflict", random_case(1, 700, 530, 1, 8, 4, 256), false);
}

// 2 x 2^8 centroids of 16 B in each of 4 copies; 2 codebooks x K/d rows of
// N one-byte indices; M x K FP16 activations.
TEST_CASE("vq-conflict: the DMA fills every codebook copy, the index and the input buffer") {
  const Report r = simulate_gemms(arch("vq-conflict-free", {"dram.bandwidth_gbps=1e6"}), {GemmShape{2, 1024, 1024}});
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  const auto written = [&](const char* sram) { return r.stats[sram]["bytes_written"]["value"].get<double>(); };
  CHECK(written("codebook") == 4 * 2 * 256 * 16);
  CHECK(written("index_buffer") == 2 * (1024 / 8) * 1024);
  CHECK(r.stats["index_buffer"]["bytes_read"]["value"].get<double>() == 2 * (1024 / 8) * 1024);
  CHECK(written("input_buffer") == 2 * 1024 * 2);
  CHECK(r.dram_bytes_read == 4 * 2 * 256 * 16 + 2 * (1024 / 8) * 1024 + 2 * 1024 * 2);
}

TEST_CASE("Bad input: vq-conflict codebooks larger than the codebook SRAM") {
  CHECK_THROWS_WITH(simulate_gemms(arch("vq-conflict", {"vq.index_bits=16", "vq.codebooks=1"}), {GemmShape{1, 64, 64}}),
                    Catch::Contains("buffers.codebook_kib: 32 KiB cannot hold 1 codebook group(s)"));
}
