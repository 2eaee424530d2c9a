// The dense baselines (sa, ant, figna, figlut) on the platform: functional
// runs against float64 references, the cycle conventions of their folders'
// READMEs, and the energy model's arithmetic. One platform per test case.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "arch_for_test.hpp"
#include "baselines/ant/ant_format.hpp"
#include "common/int_quant.hpp"
#include "config/load_arch.hpp"
#include "pack/image.hpp"
#include "sim_check.hpp"
#include "vp/platform.hpp"
#include "vp/simulate.hpp"

using namespace eva;
using eva::test::arch;

namespace {

std::uint64_t cdiv(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// K and N not multiples of any tile; several input rows.
const GemmShape odd{3, 100, 200};

// Integer outputs: every output within half an output step of the reference
// (the requantisation is the only rounding after exact integer sums).
void within_half_output_step(const Report& r, int out_bits) {
  const auto& f = r.functional;
  INFO(f.dump());
  const double step = f["reference_max_abs"].get<double>() / static_cast<double>((1 << (out_bits - 1)) - 1);
  CHECK(f["max_abs_error"].get<double>() <= 0.5 * step * (1 + 1e-6));
  CHECK(f["relative_l2_error"].get<double>() < 0.01);
}

// FP16 outputs of FP32 sums: within FP16 rounding of the reference.
void within_fp16(const Report& r, double bound = 5e-4) {
  const auto& f = r.functional;
  INFO(f.dump());
  CHECK(f["relative_l2_error"].get<double>() < bound);
  CHECK(f["max_abs_error"].get<double>() <= f["reference_max_abs"].get<double>() * std::ldexp(1.0, -10));
}

Report functional(const ArchConfig& c, const GemmShape& s, std::uint64_t seed = 7) {
  Report r = simulate_dense_functional(c, s, seed);
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  return r;
}

// One functional GEMM on one platform, its operand bytes placed at fixed
// addresses; the `out_bytes` it wrote.
std::vector<std::uint8_t> run_functional(const ArchConfig& c, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                         const std::vector<std::uint8_t>& activations,
                                         const std::vector<std::uint8_t>& weights,
                                         const std::vector<std::uint8_t>& codebooks, std::uint64_t out_bytes) {
  Platform platform("vp", c);
  SparseStorage& mem = platform.dram().storage();
  GemmDescriptor op;
  op.m = m;
  op.n = n;
  op.k = k;
  op.functional = true;
  op.act_addr = 0x10000;
  op.weight_addr = 0x20000;
  op.codebook_addr = 0x30000;
  op.out_addr = 0x40000;
  mem.write(op.act_addr, activations.data(), activations.size());
  mem.write(op.weight_addr, weights.data(), weights.size());
  mem.write(op.codebook_addr, codebooks.data(), codebooks.size());
  platform.add(op);
  test::run_clean();
  std::vector<std::uint8_t> out(out_bytes);
  mem.read(op.out_addr, out.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("sa A8W8 functional: exact integer sums, outputs within half an INT8 step") {
  const Report r = functional(arch("sa"), odd);
  within_half_output_step(r, 8);
  CHECK(r.functional["relative_l2_error_vs_unquantised"].get<double>() < 0.03);
}

TEST_CASE("sa functional with inputs re-read per tile (small input buffer)") {
  const Report r = functional(arch("sa", {"buffers.input_kib=4"}), GemmShape{40, 70, 2000});
  within_half_output_step(r, 8);
}

TEST_CASE("ant A8W8 functional: 8-bit ANT is int, decoded in the PEs") {
  const Report r = functional(arch("ant"), odd);
  CHECK(r.functional["format"].get<std::string>().find("weights signed int 8-bit") != std::string::npos);
  within_half_output_step(r, 8);
}

TEST_CASE("ant A4W4 functional: heavy-tailed weights take a non-int type and the PE sums are exact") {
  const Report r = functional(arch("ant", {"formats.act_bits=4", "formats.weight_bits=4"}), GemmShape{4, 96, 256});
  const std::string format = r.functional["format"].get<std::string>();
  INFO(format);
  CHECK(format.find("weights signed int") == std::string::npos);
  within_half_output_step(r, 8);
}

TEST_CASE("figna functional: pre-aligned FP16 x INT4 within FP16 output rounding") {
  within_fp16(functional(arch("figna"), odd));
}

TEST_CASE("figna functional with lossless alignment (40 guard bits)") {
  within_fp16(functional(arch("figna", {"figna.guard_bits=40"}), odd));
}

TEST_CASE("figna with no guard bits: truncation adds error, still near FP16") {
  const Report lossy = functional(arch("figna", {"figna.guard_bits=0"}), GemmShape{2, 64, 512});
  INFO(lossy.functional.dump());
  CHECK(lossy.functional["relative_l2_error"].get<double>() > 2.5e-4);
  CHECK(lossy.functional["relative_l2_error"].get<double>() < 2e-3);
}

// Data the pre-alignment cannot take (found by the soak, test/soak): an
// infinite activation, zero points that are NaN, beyond INT32 or so large
// that the block accumulator would overflow. Their outputs are NaN, the
// others as usual, and the simulation goes on.
TEST_CASE("figna functional: non-finite activations and unusable zero points give NaN outputs, not a stopped run") {
  const ArchConfig c = arch("figna", {"figna.guard_bits=40"});
  const std::uint64_t m = 3, n = 8, k = 40;
  std::mt19937_64 rng(3);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> x(m * k), w(k * n);
  for (float& v : x) v = g(rng);
  for (float& v : w) v = 0.1f * g(rng);
  PackedOp p = pack_dense_op(c, x, w, m, n, k);
  const std::uint64_t inf_row = 1, nan_col = 2, huge_col = 5, overflow_col = 6;
  p.activations[2 * (inf_row * k + 5) + 0] = 0x00;  // FP16 +infinity
  p.activations[2 * (inf_row * k + 5) + 1] = 0x7c;
  const auto zero_point = [&](std::uint64_t col, float v) { std::memcpy(p.codebooks.data() + 4 * (n + col), &v, 4); };
  zero_point(nan_col, std::nanf(""));
  zero_point(huge_col, 1e30f);
  zero_point(overflow_col, -1048576.0f);  // 2^20: 11 + 40 guard + 21 + 6 bits > 63
  const std::vector<std::uint8_t> out = run_functional(c, m, n, k, p.activations, p.weights, p.codebooks, p.out_bytes);
  const std::vector<double> y = decode_outputs(c, m, n, out, p.codebooks);
  std::vector<double> kept;
  std::vector<std::uint8_t> kept_ref;
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      const std::uint64_t e = i * n + j;
      INFO("output " << i << ", " << j << ": " << y[e]);
      if (i == inf_row || j == nan_col || j == huge_col || j == overflow_col) {
        CHECK(std::isnan(y[e]));
      } else {
        kept.push_back(y[e]);
        kept_ref.insert(kept_ref.end(), {p.reference_fp16[2 * e], p.reference_fp16[2 * e + 1]});
      }
    }
  CHECK(check_outputs(kept, kept_ref, p.tolerance_q24).ok);
}

// ANT's types are parameters in memory, data like any other: a PoT type at
// 8 bits (which the encoder never picks) has codes up to 2^254, beyond what
// the PE's int64 shift holds (the soak found the undefined shift, UBSan
// reported it). Such products are exact in double; the outputs are the
// decoded products requantised.
TEST_CASE("ant functional: 8-bit PoT activations from the parameters, products beyond int64, exact outputs") {
  const ArchConfig c = arch("ant");
  const std::uint64_t m = 2, n = 4, k = 8;
  const ant::AntFormat act{ant::AntType::pot, 8, false}, weight{ant::AntType::int_type, 8, true};
  std::mt19937_64 rng(5);
  std::vector<std::uint8_t> x(m * k), w(k * n);  // codes; 8 bits each, so a byte each
  for (std::uint8_t& v : x) v = static_cast<std::uint8_t>(rng() % 256);
  for (std::uint8_t& v : w) v = static_cast<std::uint8_t>(rng() % 256);
  // One 8 x 4 weight tile (ANT's tiles are larger): tile-major is row-major here.
  const float alpha_a = 1.0f, alpha_w = 1.0f;
  std::vector<double> y(m * n, 0.0);
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      for (std::uint64_t kk = 0; kk < k; ++kk)
        y[i * n + j] += ant::decode(act, x[i * k + kk]) * ant::decode(weight, w[kk * n + j]);
      y[i * n + j] *= ant::pe_scale(act, alpha_a, weight, alpha_w);
    }
  double y_max = 0.0;
  for (double v : y) y_max = std::max(y_max, std::fabs(v));
  REQUIRE(y_max > 0.0);
  const auto s_y = static_cast<float>(y_max / 127.0);
  std::vector<std::uint8_t> params = {static_cast<std::uint8_t>(act.type), 0, static_cast<std::uint8_t>(weight.type),
                                      1};
  for (float v : {alpha_a, s_y, alpha_w, alpha_w, alpha_w, alpha_w}) {
    std::uint8_t b[4];
    std::memcpy(b, &v, 4);
    params.insert(params.end(), b, b + 4);
  }
  const std::vector<std::uint8_t> out = run_functional(c, m, n, k, x, w, params, m * n);
  for (std::uint64_t e = 0; e < m * n; ++e) {
    INFO("output " << e << ": y " << y[e] << ", s_y " << s_y);
    CHECK(static_cast<std::int8_t>(out[e]) == quantize_symmetric(y[e], s_y, 8));
  }
}

TEST_CASE("figlut W4 functional: LUT reads of bit-planes equal the dequantised GEMV") {
  within_fp16(functional(arch("figlut"), odd));
}

TEST_CASE("figlut W2 functional: two MPUs per plane along K") {
  within_fp16(functional(arch("figlut", {"formats.weight_bits=2"}), odd));
}

TEST_CASE("figlut W3 functional: planes that do not divide the MPUs") {
  within_fp16(functional(arch("figlut", {"formats.weight_bits=3"}), odd));
}

TEST_CASE("figlut W8 functional: more planes than MPUs, two passes per tile") {
  within_fp16(functional(arch("figlut", {"formats.weight_bits=8"}), odd));
}

// Tiles of (2 x 8) outputs x (16 x 4 x MPUs per plane) activations, taken in
// ceil(planes / 4) passes, each M + 2 + 16 + 4 cycles (artifact figlut.py).
void figlut_cycles(int bits) {
  const std::vector<GemmShape> shapes = {{1, 4096, 4096}, {5, 100, 200}};
  const ArchConfig c = arch("figlut", {"dram.bandwidth_gbps=1e6", "formats.weight_bits=" + std::to_string(bits)});
  const Report r = simulate_gemms(c, shapes);
  const std::uint64_t share = cdiv(4, static_cast<std::uint64_t>(bits)),
                      passes = cdiv(static_cast<std::uint64_t>(bits), 4);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const GemmShape& s = shapes[i];
    INFO("W" << bits << " M=" << s.m << " N=" << s.n << " K=" << s.k);
    const std::uint64_t tiles = cdiv(s.k, 64 * share) * cdiv(s.n, 16) * passes;
    CHECK(r.ops[i].compute_cycles == tiles * (s.m + 2 + 16 + 4));
    CHECK(r.ops[i].cycles >= r.ops[i].compute_cycles);
    CHECK(r.ops[i].cycles <= r.ops[i].compute_cycles + 2);  // memory barely matters at 1e6 GB/s
  }
}
TEST_CASE("figlut W2 cycles") { figlut_cycles(2); }
TEST_CASE("figlut W4 cycles") { figlut_cycles(4); }
TEST_CASE("figlut W8 cycles") { figlut_cycles(8); }

TEST_CASE("figlut reads q bit-planes per weight, plus FP16 alphas and offsets") {
  const Report r = simulate_gemm(arch("figlut", {"dram.bandwidth_gbps=1e6"}), GemmShape{1, 4096, 4096});
  CHECK(r.dram_bytes_read == 4096ull * 4096 * 4 / 8 + 4096 * 2 + 4096 * 2 * (4 + 1));
  CHECK(r.dram_bytes_written == 4096 * 2);
}

// Per input row and tile, every PE holding one of the tile's 16 slices (2 PE
// rows, one MPU per plane) writes its 8 FP32 entries, and each of the tile's
// 16 outputs reads one entry per slice and plane: one bank per PE, 8 ports for
// its 8 RACs, so no conflict.
TEST_CASE("figlut's LUT SRAM: generation and RAC reads counted from the lanes, no conflicts") {
  const GemmShape s{3, 160, 256};  // K: 4 tiles of 64; N: 10 tiles of 16
  const Report r = simulate_gemm(arch("figlut", {"dram.bandwidth_gbps=1e6"}), s);
  const auto& lut = r.stats["lut"];
  INFO(lut.dump());
  const double tiles = (256 / 64) * (160 / 16), planes = 4, slices = 16;
  CHECK(lut["bytes_written"]["value"].get<double>() == s.m * tiles * planes * slices * 2 * 8 * 4);
  CHECK(lut["bytes_read"]["value"].get<double>() == s.m * 160.0 * (256 / 4) * planes * 4);
  CHECK(lut["bank_conflict_cycles"]["value"].get<double>() == 0);
}

TEST_CASE("ant A4W4: each 8-bit PE splits 2 x 2, tiles of 64 x 64") {
  const Report r = simulate_gemm(
      arch("ant", {"dram.bandwidth_gbps=1e6", "formats.act_bits=4", "formats.weight_bits=4"}), GemmShape{1, 1000, 700});
  CHECK(r.ops[0].compute_cycles == cdiv(700, 64) * cdiv(1000, 64) * (1 + 64 + 2));
}

TEST_CASE("Energy: block power splits into leakage over the run and dynamic power while busy") {
  const ArchConfig c = arch("sa", {"dram.latency_ns=2000"});  // the array idles while the first data comes
  const Report r = simulate_gemm(c, GemmShape{1, 256, 256});
  const double cycle = 1.0 / 500e6;
  const double busy = r.stats["systolic"]["busy_cycles"]["value"].get<double>() * cycle;
  REQUIRE(busy < 0.9 * r.seconds);
  const EnergyConfig& e = c.energy;
  CHECK(r.energy_breakdown_j.at("array") ==
        Approx(e.pe_w * 32 * 32 * (e.leakage_fraction * r.seconds + (1 - e.leakage_fraction) * busy)));
  const double bits = static_cast<double>(r.dram_bytes_read + r.dram_bytes_written) * 8;
  CHECK(r.energy_breakdown_j.at("dram") == Approx(bits * 12.23e-12 + 2.00616 * r.seconds));
  // Each buffer module counts its bytes; each is priced at its energy.config,
  // and leaks in proportion to its area (three buffers of 128 banks x 2 B).
  const AreaConfig& a = c.area;
  const double sram_mm2 = 512 * a.sram_mm2_per_kib + 3 * 256 * a.sram_mm2_per_port_byte;
  CHECK(r.area_breakdown_mm2.at("buffers") == Approx(sram_mm2));
  double buffers = sram_mm2 * e.sram_leakage_w_per_mm2 * r.seconds;
  for (const auto& [name, be] :
       {std::pair{"weight_buffer", e.weight}, std::pair{"input_buffer", e.input}, std::pair{"output_buffer", e.output}})
    buffers += r.stats[name]["bytes_read"]["value"].get<double>() * 8 * be.read_pj_per_bit * 1e-12 +
               r.stats[name]["bytes_written"]["value"].get<double>() * 8 * be.write_pj_per_bit * 1e-12;
  CHECK(r.energy_breakdown_j.at("buffers") == Approx(buffers));
  // Every weight byte lands in the weight buffer once and is read once.
  CHECK(r.stats["weight_buffer"]["bytes_written"]["value"].get<double>() == 256.0 * 256);
  CHECK(r.stats["weight_buffer"]["bytes_read"]["value"].get<double>() == 256.0 * 256);
}
