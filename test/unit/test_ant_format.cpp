#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "baselines/ant/ant_format.hpp"

using namespace eva::ant;

namespace {

const AntFormat flint_u4{AntType::flint, 4, false};
const AntFormat flint_s4{AntType::flint, 4, true};

// An independent score: the least MSE over p of fake quantization through
// grid() and nearest(), per channel (summed) or over the whole tensor.
double reference_score(const std::vector<float>& x, std::size_t per_channel, const AntFormat& format) {
  const std::vector<double> g = grid(format);
  double total = 0;
  for (std::size_t start = 0; start < x.size(); start += per_channel) {
    double max_abs = 0;
    for (std::size_t i = start; i < start + per_channel; ++i) max_abs = std::max(max_abs, std::fabs(double(x[i])));
    double best = 1e300;
    for (int p = 75; p < 150; ++p) {
      const double alpha = max_abs * p / 100.0, s = g.back() / alpha;
      double sse = 0;
      for (std::size_t i = start; i < start + per_channel; ++i) {
        const double d = nearest(g, x[i] * s) / s - x[i];
        sse += d * d;
      }
      best = std::min(best, sse / double(per_channel));
    }
    total += best;
  }
  return total;
}

void check_selection(const std::vector<float>& x, std::size_t channels, TensorKind kind, const AntChoice& choice) {
  const std::size_t per_channel = kind == TensorKind::weight ? x.size() / channels : x.size();
  for (const auto& [type, score] : choice.scores) {
    CHECK(score == Approx(reference_score(x, per_channel, {type, choice.format.bits, choice.format.is_signed})));
    CHECK(choice.mse <= score);
  }
  // The returned codes and alphas reproduce the winner's score.
  const AntQuantizer q(choice.format);
  double total = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = q.dequantize(choice.codes[i], choice.alphas[i / per_channel]) - x[i];
    total += d * d / double(per_channel);
  }
  CHECK(total == Approx(choice.mse));
}

}  // namespace

TEST_CASE("ANT: 4-bit unsigned flint codes follow the table of 1.2", "[ant]") {
  const double table[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 24, 32, 64};
  for (std::uint32_t c = 0; c < 16; ++c) {
    CHECK(decode(flint_u4, c) == table[c]);
    CHECK(encode(flint_u4, table[c]) == c);
  }
  CHECK(grid_max(flint_u4) == 64);
  CHECK_THROWS_AS(encode(flint_u4, 9), std::invalid_argument);
}

TEST_CASE("ANT: 4-bit signed flint is a sign bit over 3-bit flint", "[ant]") {
  const double magnitude[8] = {0, 1, 2, 3, 4, 6, 8, 16};
  for (std::uint32_t c = 0; c < 8; ++c) {
    CHECK(decode(flint_s4, c) == magnitude[c]);
    CHECK(decode(flint_s4, 8 | c) == -magnitude[c]);
  }
  CHECK(encode(flint_s4, -6) == 0b1101);
  CHECK(encode(flint_s4, 0) == 0);  // +0, not the padding -0
  CHECK(grid_max(flint_s4) == 16);
  CHECK(grid(flint_s4).size() == 15);
}

TEST_CASE("ANT: int and PoT grids and maxima of 1.1", "[ant]") {
  CHECK(grid({AntType::int_type, 4, false}) ==
        std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  const std::vector<double> s4 = grid({AntType::int_type, 4, true});
  CHECK(s4.front() == -8);
  CHECK(s4.back() == 7);
  CHECK(s4.size() == 16);
  CHECK(encode({AntType::int_type, 4, true}, -8) == 0b1000);  // two's complement
  CHECK(encode({AntType::int_type, 4, true}, -1) == 0b1111);
  CHECK(grid_max({AntType::pot, 4, false}) == std::ldexp(1, 14));
  CHECK(grid_max({AntType::pot, 4, true}) == 64);
  CHECK(decode({AntType::pot, 4, false}, 0) == 0);
  CHECK(decode({AntType::pot, 4, false}, 1) == 1);
  CHECK(decode({AntType::pot, 4, true}, 0b1011) == -4);
  CHECK(grid({AntType::pot, 3, true}) == std::vector<double>{-4, -2, -1, 0, 1, 2, 4});
  // 8-bit flint: 0..127 plain, maximum 2^14.
  CHECK(decode({AntType::flint, 8, false}, 127) == 127);
  CHECK(grid_max({AntType::flint, 8, false}) == std::ldexp(1, 14));
}

TEST_CASE("ANT: the quantizer snaps to the nearest grid value, ties up", "[ant]") {
  const std::vector<double> g = grid(flint_u4);
  CHECK(nearest(g, 20) == 24);  // halfway between 16 and 24
  CHECK(nearest(g, 19.9) == 16);
  CHECK(nearest(g, 1000) == 64);
  CHECK(nearest(g, -3) == 0);
  CHECK(nearest(grid({AntType::int_type, 4, true}), -2.5) == -2);
  const AntQuantizer q(flint_u4);
  CHECK(q.quantize(0.375, 1.0) == 0b1101);  // 0.375·64 = 24
  CHECK(q.dequantize(0b1101, 2.0) == 0.75);
  CHECK(q.quantize(5.0, 1.0) == 0b1111);     // clipped to alpha
  CHECK(q.fake_quantize(0.3, 1.0) == 0.25);  // 19.2 -> 16
  CHECK(q.quantize(0.3, 0.0) == 0);
}

TEST_CASE("ANT: the PE decoder's worked example of 1.4", "[ant]") {
  const PeOperand a = pe_decode(flint_u4, 0b1101);
  CHECK((!a.negative && a.i == 3 && a.e == 3));
  const PeOperand w = pe_decode(flint_s4, 0b1101);
  CHECK((w.negative && w.i == 3 && w.e == 1));
  std::int64_t acc = 0;
  pe_mac(acc, a, w);
  CHECK(acc == -144);
  CHECK(pe_scale(flint_u4, 2.0, flint_s4, 0.5) == 2.0 / 64 * (0.5 / 16));
}

TEST_CASE("ANT: decoded operands match the grid and the ranges of 1.4", "[ant]") {
  for (const AntType type : {AntType::int_type, AntType::flint, AntType::pot})
    for (const bool is_signed : {false, true})
      for (int bits = 2; bits <= 6; ++bits) {
        const AntFormat f{type, bits, is_signed};
        for (std::uint32_t c = 0; c < (1u << bits); ++c) {
          const PeOperand op = pe_decode(f, c);
          const double v = std::ldexp(double(op.i), op.e);
          CHECK((op.negative && op.i != 0 ? -v : v) == decode(f, c));
        }
      }
  for (std::uint32_t c = 0; c < 16; ++c) {
    CHECK(pe_decode(flint_u4, c).i <= 7);
    CHECK(pe_decode(flint_u4, c).e <= 6);
    CHECK(pe_decode(flint_s4, c).i <= 3);
    CHECK(pe_decode(flint_s4, c).e <= 4);
  }
  CHECK_THROWS_AS(pe_decode(flint_u4, 16), std::invalid_argument);
}

TEST_CASE("ANT: a PE column's integer dot product is exact", "[ant]") {
  std::mt19937 rng(7);
  const std::pair<AntFormat, AntFormat> pairs[] = {
      {flint_u4, flint_s4},
      {{AntType::int_type, 4, false}, {AntType::int_type, 4, true}},
      {{AntType::pot, 4, false}, {AntType::pot, 4, true}},
      {flint_s4, {AntType::int_type, 4, true}},
      {{AntType::int_type, 8, true}, {AntType::int_type, 8, true}},
  };
  for (const auto& [af, wf] : pairs) {
    std::uniform_int_distribution<std::uint32_t> a_code(0, (1u << af.bits) - 1), w_code(0, (1u << wf.bits) - 1);
    std::vector<std::uint32_t> a(256), w(256);
    for (auto& c : a) c = a_code(rng);
    for (auto& c : w) c = w_code(rng);
    double reference = 0;
    for (std::size_t t = 0; t < a.size(); ++t) reference += decode(af, a[t]) * decode(wf, w[t]);
    CHECK(double(pe_dot(af, a.data(), wf, w.data(), a.size())) == reference);
  }
  const AntFormat pot8{AntType::pot, 8, false};
  const std::vector<std::uint32_t> big(2, 255);
  CHECK_THROWS_AS(pe_dot(pot8, big.data(), pot8, big.data(), 2), std::overflow_error);
}

TEST_CASE("ANT: type selection picks int for uniform weights", "[ant]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> w(8 * 256);
  for (auto& v : w) v = u(rng);
  const AntChoice choice = select_type(w, 8, 4, TensorKind::weight);
  CHECK(choice.format.type == AntType::int_type);
  CHECK(choice.format.is_signed);
  CHECK(choice.alphas.size() == 8);
  CHECK(choice.scores.size() == 3);
  check_selection(w, 8, TensorKind::weight, choice);
}

TEST_CASE("ANT: type selection picks a non-int type for heavy-tailed data", "[ant]") {
  std::mt19937 rng(13);
  std::exponential_distribution<float> expo(1.0f);
  std::bernoulli_distribution coin(0.5);
  std::vector<float> w(8 * 512);  // Laplace
  for (auto& v : w) v = coin(rng) ? expo(rng) : -expo(rng);
  const AntChoice wc = select_type(w, 8, 4, TensorKind::weight);
  CHECK(wc.format.type != AntType::int_type);
  check_selection(w, 8, TensorKind::weight, wc);

  std::lognormal_distribution<float> lognormal(0.0f, 1.0f);
  std::vector<float> a(4096);
  for (auto& v : a) v = lognormal(rng);
  const AntChoice ac = select_type(a, 1, 4, TensorKind::activation);
  CHECK(ac.format.type != AntType::int_type);
  CHECK_FALSE(ac.format.is_signed);  // min(x) >= 0
  CHECK(ac.alphas.size() == 1);
  check_selection(a, 1, TensorKind::activation, ac);
}

TEST_CASE("ANT: above 6 bits only int is tried, with p from 95", "[ant]") {
  // Many values on the INT8 grid of alpha = 0.8 and one outlier at 1: p = 80
  // would fit best, but above 6 bits the search starts at p = 95.
  std::vector<float> a;
  for (int copy = 0; copy < 100; ++copy)
    for (int k = -127; k <= 127; ++k) a.push_back(static_cast<float>(0.8 * k / 127));
  a.push_back(1.0f);
  const AntChoice choice = select_type(a, 1, 8, TensorKind::activation);
  CHECK(choice.format.type == AntType::int_type);
  CHECK(choice.format.is_signed);  // min(x) < 0
  CHECK(choice.scores.size() == 1);
  CHECK(choice.alphas[0] >= 0.95 * (1 - 1e-12));
  SearchOptions from_75;
  from_75.low = 75;
  CHECK(select_type(a, 1, 8, TensorKind::activation, from_75).alphas[0] == Approx(0.8));
}
