#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "baselines/figlut/lut.hpp"

using namespace eva::figlut;

namespace {

// The worked example of 3.3: one row of INT3 weights q = [5, 2, 7, 0], s = 0.1, z = 3.
BcqMatrix example_row() { return bcq_from_uniform({5, 2, 7, 0}, {0.1f}, {3.0f}, 1, 4, 3, 4); }

std::vector<float> random_vector(std::mt19937& rng, std::size_t n) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

double relative_l2(const std::vector<float>& y, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    num += (double(y[i]) - ref[i]) * (double(y[i]) - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

std::vector<double> reference_gemv(const BcqMatrix& w, const std::vector<float>& x) {
  std::vector<double> y(w.rows, 0.0);
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t k = 0; k < w.cols; ++k) y[m] += w.weight(m, k) * double(x[k]);
  return y;
}

}  // namespace

TEST_CASE("FIGLUT: the mu = 4 LUT of 3.3", "[figlut]") {
  const float x[4] = {1.5f, -2.0f, 0.5f, 3.0f};
  CHECK(build_lut(x, 4) == std::vector<float>{-3, 0, -7, -4, -2, 1, -6, -3, 3, 6, -1, 2, 4, 7, 0, 3});
}

TEST_CASE("FIGLUT: the half LUT and key decoder of 3.4", "[figlut]") {
  const float x[4] = {1.5f, -2.0f, 0.5f, 3.0f};
  const std::vector<float> h = build_half_lut(x, 4);
  CHECK(h == std::vector<float>{3, 6, -1, 2, 4, 7, 0, 3});
  CHECK(read_half_lut(h.data(), 0b0100, 4) == -2.0f);
  CHECK(read_half_lut(h.data(), 0b1101, 4) == 7.0f);
}

TEST_CASE("FIGLUT: the half LUT equals the full LUT for every key", "[figlut]") {
  std::mt19937 rng(1);
  for (int mu = 1; mu <= 8; ++mu) {
    const std::vector<float> x = random_vector(rng, std::size_t(mu));
    const std::vector<float> full = build_lut(x.data(), mu), half = build_half_lut(x.data(), mu);
    REQUIRE(full.size() == std::size_t{1} << mu);
    REQUIRE(half.size() == full.size() / 2);
    const std::uint32_t all = (1u << mu) - 1;
    for (std::uint32_t key = 0; key <= all; ++key) {
      CHECK(read_half_lut(half.data(), key, mu) == full[key]);  // bit for bit
      CHECK(full[key ^ all] == -full[key]);
      double direct = 0;
      for (int j = 0; j < mu; ++j) direct += ((key >> j) & 1u) ? x[std::size_t(j)] : -x[std::size_t(j)];
      CHECK(full[key] == Approx(direct).margin(1e-6));
    }
  }
}

TEST_CASE("FIGLUT: uniform INT to BCQ, the example of 3.2", "[figlut]") {
  const BcqMatrix w = example_row();
  CHECK(w.alpha[0] == Approx(0.05));
  CHECK(w.alpha[1] == Approx(0.1));
  CHECK(w.alpha[2] == Approx(0.2));
  CHECK(w.offset[0] == Approx(0.05));
  // q = 5 = 101b: b = [+1, -1, +1].
  CHECK((w.bit(0, 0, 0) && !w.bit(1, 0, 0) && w.bit(2, 0, 0)));
  const double q[4] = {5, 2, 7, 0};
  for (std::size_t k = 0; k < 4; ++k) CHECK(w.weight(0, k) == Approx(0.1 * (q[k] - 3)));
  CHECK_THROWS_AS(bcq_from_uniform({8}, {0.1f}, {3.0f}, 1, 1, 3, 4), std::invalid_argument);
}

TEST_CASE("FIGLUT: the bit-serial GEMV worked example of 3.3", "[figlut]") {
  const BcqMatrix w = example_row();
  CHECK(lut_key(w, 0, 0, 0, 4) == 0b0101);
  CHECK(lut_key(w, 1, 0, 0, 4) == 0b0110);
  CHECK(lut_key(w, 2, 0, 0, 4) == 0b0101);
  const std::vector<float> y = lut_gemv(w, {1.5f, -2.0f, 0.5f, 3.0f}, 4);
  REQUIRE(y.size() == 1);
  CHECK(y[0] == Approx(-0.2).margin(1e-6));
}

TEST_CASE("FIGLUT: a random GEMV matches the dequantized float64 reference", "[figlut]") {
  std::mt19937 rng(2);
  const std::size_t rows = 24, cols = 301, group = 64;  // a short last group and a padded last slice
  const int planes = 3;
  std::uniform_int_distribution<int> qd(0, 7);
  std::uniform_real_distribution<float> sd(0.01f, 0.1f), zd(2.0f, 5.0f);
  std::vector<std::uint8_t> q(rows * cols);
  for (auto& v : q) v = static_cast<std::uint8_t>(qd(rng));
  const std::size_t groups = (cols + group - 1) / group;
  std::vector<float> s(rows * groups), z(rows * groups);
  for (auto& v : s) v = sd(rng);
  for (auto& v : z) v = zd(rng);
  const BcqMatrix uniform = bcq_from_uniform(q, s, z, rows, cols, planes, group);

  // A general BCQ matrix: free alphas and offsets, random bits.
  BcqMatrix general = uniform;
  std::bernoulli_distribution bit(0.5);
  for (auto& b : general.bits) b = bit(rng) ? 1 : 0;
  for (auto& a : general.alpha) a = sd(rng);
  for (auto& o : general.offset) o = sd(rng) - 0.05f;

  const std::vector<float> x = random_vector(rng, cols);
  for (const BcqMatrix* w : {&uniform, static_cast<const BcqMatrix*>(&general)})
    for (const int mu : {4, 8}) {
      const std::vector<double> ref = reference_gemv(*w, x);
      CHECK(relative_l2(lut_gemv(*w, x, mu), ref) < 1e-5);
    }
  // The uniform matrix dequantizes to s(q - z).
  for (std::size_t k = 0; k < cols; ++k)
    CHECK(uniform.weight(5, k) ==
          Approx(double(s[5 * groups + k / group]) * (q[5 * cols + k] - z[5 * groups + k / group])).margin(1e-6));
  CHECK_THROWS_AS(lut_gemv(uniform, x, 5), std::invalid_argument);  // 64 is not a multiple of 5
}
