#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "baselines/figna/prealign.hpp"

using namespace eva;
using namespace eva::figna;

namespace {

std::vector<half_bits> to_half(const std::vector<float>& v) {
  std::vector<half_bits> h;
  for (float f : v) h.push_back(float_to_half(f));
  return h;
}

// The exact block dot product: FP16 x small-int products and their sums over
// a block fit a double's 53 bits (FP16 spans 2^-24..2^16).
double exact_dot(const std::vector<half_bits>& a, const std::vector<std::int32_t>& w) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += double(half_to_float(a[i])) * w[i];
  return s;
}

// Random FP16 values over a wide exponent range, subnormals and zero included.
std::vector<half_bits> random_block(std::mt19937& rng, std::size_t n, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> e(min_exp, max_exp);
  std::uniform_real_distribution<float> m(1.0f, 1.99f);  // below 2: 1.999·2^15 would round to infinity
  std::bernoulli_distribution neg(0.5);
  std::vector<float> v(n);
  for (auto& x : v) x = std::ldexp(m(rng), e(rng)) * (neg(rng) ? -1.0f : 1.0f);
  v[0] = 0.0f;
  v[1] = std::ldexp(1.0f, -24) * 37;  // subnormal
  return to_half(v);
}

std::vector<std::int32_t> random_weights(std::mt19937& rng, std::size_t n) {
  std::uniform_int_distribution<int> q(0, 15);
  std::vector<std::int32_t> w(n);
  for (auto& x : w) x = q(rng) - 8;
  return w;
}

// The largest exponent floor(log2|a|) of a block, -14 at least (subnormals).
int max_exponent(const std::vector<half_bits>& a) {
  int e_max = -14;
  for (half_bits h : a) {
    const float f = half_to_float(h);
    if (f != 0) e_max = std::max(e_max, std::ilogb(f));
  }
  return e_max;
}

// Step 7 with exact block sums (what lossless alignment gives): each block
// rounded once to FP32, scaled by s_g in FP32, added in FP32 in K order.
float fp32_model(const std::vector<half_bits>& a, const GroupedIntMatrix& w, std::size_t r, std::size_t block) {
  float y = 0.0f;
  for (std::size_t g = 0; g < w.groups(); ++g)
    for (std::size_t b = g * w.group; b < std::min(w.cols, (g + 1) * w.group); b += block) {
      const std::size_t end = std::min({w.cols, b + block, (g + 1) * w.group});
      const std::vector<half_bits> blk(a.begin() + long(b), a.begin() + long(end));
      std::vector<std::int32_t> wk;
      for (std::size_t k = b; k < end; ++k)
        wk.push_back(std::int32_t(w.q[r * w.cols + k]) - w.zeros[r * w.groups() + g]);
      const float exact = static_cast<float>(exact_dot(blk, wk));
      y += exact * w.scales[r * w.groups() + g];
    }
  return y;
}

}  // namespace

TEST_CASE("FIGNA: FP16 decodes to sign, exponent and significand", "[figna]") {
  const Fp16Parts a = decode_fp16(float_to_half(-0.375f));
  CHECK((a.negative && a.exponent == -2 && a.significand == 1536));
  const Fp16Parts b = decode_fp16(float_to_half(3.25f));
  CHECK((!b.negative && b.exponent == 1 && b.significand == 1664));
  const Fp16Parts sub = decode_fp16(0x0003);  // 3·2^-24
  CHECK((sub.exponent == -14 && sub.significand == 3));
  const Fp16Parts top = decode_fp16(0x7bff);  // 65504
  CHECK((top.exponent == 15 && top.significand == 2047));
  CHECK_THROWS_AS(decode_fp16(0x7c00), std::invalid_argument);
}

TEST_CASE("FIGNA: the pre-alignment worked example of 2.1", "[figna]") {
  const std::vector<half_bits> a = to_half({1.5f, -0.375f, 3.25f, std::ldexp(1.0f, -7)});
  const AlignedBlock block = align_block(a.data(), a.size(), 0);
  CHECK(block.e_max == 1);
  CHECK(block.mantissas == std::vector<std::int64_t>{768, -192, 1664, 4});
  const std::vector<std::int32_t> w = {9 - 8, 3 - 8, 12 - 8, 0 - 8};
  const std::int64_t acc = int_dot(block, w.data());
  CHECK(acc == 8352);
  CHECK(block_value(acc, block.e_max, block.guard) == 16.3125);
  CHECK(exact_dot(a, w) == 16.3125);
}

TEST_CASE("FIGNA: alignment truncates the magnitude and guard bits keep it", "[figna]") {
  const float small = std::ldexp(1.0009765625f, -5);  // S = 1025, E = -5
  const std::vector<half_bits> a = to_half({2.0f, small, -small});
  const AlignedBlock g0 = align_block(a.data(), a.size(), 0);
  CHECK(g0.mantissas[1] == 16);                                 // 1025 >> 6
  CHECK(g0.mantissas[2] == -16);                                // truncation is of the magnitude
  CHECK(block_value(g0.mantissas[1], g0.e_max, 0) == 0.03125);  // 2^-15 lost
  const AlignedBlock g6 = align_block(a.data(), a.size(), 6);
  CHECK(g6.mantissas[1] == 1025);
  CHECK(block_value(g6.mantissas[1], g6.e_max, 6) == double(small));
  CHECK_THROWS_AS(align_block(a.data(), a.size(), 41), std::invalid_argument);
  // 1087/64 = 16.98: truncated, not rounded.
  const std::vector<half_bits> b = to_half({2.0f, std::ldexp(1087.0f / 1024, -5)});
  CHECK(align_block(b.data(), b.size(), 0).mantissas[1] == 16);
}

TEST_CASE("FIGNA: truncation biases positive terms towards zero", "[figna]") {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> v(0.01f, 4.0f);
  bool lost = false;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> af(32);
    for (auto& x : af) x = v(rng);
    const std::vector<half_bits> a = to_half(af);
    const std::vector<std::int32_t> w(a.size(), 3);
    const AlignedBlock block = align_block(a.data(), a.size(), 2);
    const double error = block_value(int_dot(block, w.data()), block.e_max, 2) - exact_dot(a, w);
    CHECK(error <= 0);
    lost = lost || error < 0;
  }
  CHECK(lost);
}

TEST_CASE("FIGNA: with enough guard bits the block result is exact", "[figna]") {
  std::mt19937 rng(3);
  for (const int guard : {29, 40})
    for (int trial = 0; trial < 50; ++trial) {
      const std::vector<half_bits> a = random_block(rng, 128, -14, 15);
      const std::vector<std::int32_t> w = random_weights(rng, a.size());
      const AlignedBlock block = align_block(a.data(), a.size(), guard);
      CHECK(block_value(int_dot(block, w.data()), block.e_max, guard) == exact_dot(a, w));
    }
}

TEST_CASE("FIGNA: truncation error stays within the bound of 2.2", "[figna]") {
  std::mt19937 rng(5);
  double worst_ratio = 0;
  for (int guard = 0; guard <= 8; ++guard)
    for (int trial = 0; trial < 50; ++trial) {
      const std::vector<half_bits> a = random_block(rng, 64, -12, 4);
      const std::vector<std::int32_t> w = random_weights(rng, a.size());
      const AlignedBlock block = align_block(a.data(), a.size(), guard);
      CHECK(block.e_max == max_exponent(a));
      double sum_abs_w = 0;
      for (std::int32_t v : w) sum_abs_w += std::abs(v);
      const double bound = std::ldexp(sum_abs_w, block.e_max - 10 - guard);
      const double error = std::fabs(block_value(int_dot(block, w.data()), block.e_max, guard) - exact_dot(a, w));
      CHECK(error < bound);
      worst_ratio = std::max(worst_ratio, error / bound);
    }
  CHECK(worst_ratio > 0.01);  // truncation does lose bits at these exponent spreads
}

TEST_CASE("FIGNA: an FP16 x INT4 GEMV is close to a float64 reference", "[figna]") {
  std::mt19937 rng(9);
  GroupedIntMatrix w;
  w.rows = 16;
  w.cols = 520;  // the last group is short
  w.group = 128;
  std::uniform_int_distribution<int> q(0, 15), z(6, 9);
  std::uniform_real_distribution<float> s(0.001f, 0.02f);
  for (std::size_t i = 0; i < w.rows * w.cols; ++i) w.q.push_back(static_cast<std::uint8_t>(q(rng)));
  for (std::size_t i = 0; i < w.rows * w.groups(); ++i) {
    w.scales.push_back(s(rng));
    w.zeros.push_back(z(rng));
  }
  std::normal_distribution<float> n(0.0f, 2.0f);
  std::vector<float> af(w.cols);
  for (auto& v : af) v = n(rng);
  const std::vector<half_bits> a = to_half(af);

  for (const int guard : {0, 3, 29}) {
    const PrealignConfig config{64, guard};
    const std::vector<float> y = figna_gemv(a, w, config);
    for (std::size_t r = 0; r < w.rows; ++r) {
      // Tolerance: the truncation bound of 2.2 per block, plus FP32 rounding
      // of each block conversion, scale product and sum (relative 2^-24 each)
      // over at most 2·blocks + 1 roundings of partial sums below sum|terms|.
      double reference = 0, sum_abs = 0, truncation = 0;
      std::size_t blocks = 0;
      for (std::size_t g = 0; g < w.groups(); ++g) {
        const double scale = w.scales[r * w.groups() + g];
        const std::int32_t zero = w.zeros[r * w.groups() + g];
        for (std::size_t b = g * w.group; b < std::min(w.cols, (g + 1) * w.group); b += config.block, ++blocks) {
          const std::size_t end = std::min({w.cols, b + config.block, (g + 1) * w.group});
          double sum_abs_w = 0;
          for (std::size_t k = b; k < end; ++k) {
            const double wk = double(w.q[r * w.cols + k]) - zero;
            reference += scale * double(half_to_float(a[k])) * wk;
            sum_abs += std::fabs(scale * double(half_to_float(a[k])) * wk);
            sum_abs_w += std::fabs(wk);
          }
          const std::vector<half_bits> blk(a.begin() + long(b), a.begin() + long(end));
          truncation += scale * std::ldexp(sum_abs_w, max_exponent(blk) - 10 - guard);
        }
      }
      const double tolerance = truncation + double(2 * blocks + 1) * std::ldexp(sum_abs, -24);
      CHECK(std::fabs(double(y[r]) - reference) <= tolerance);
      if (guard == 29) CHECK(y[r] == fp32_model(a, w, r, config.block));
    }
  }
}
