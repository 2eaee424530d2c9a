#pragma once
// The arithmetic of EVA's VQ decode, shared by the hardware models (which
// call it on the data they hold) and by the reference the tests check them
// against. Plain C++.
//
//   OC_c[r][e] = sum_t x_r[t] * WC_c[e][t]      (r: a sub-vector of d inputs of one row)
//   y[j]      += sum_r sum_c OC_c[r][ WI_c[r][j] ]
//
// The array forms each product exactly (fp16_mul_int8x4), accumulates in FP32
// and stores OC in FP16; the epilogue accumulates FP16 lookups in FP32.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/fp16.hpp"

namespace eva {

// One OC row: the dot products of a d-element FP16 input sub-vector with all
// E centroids of a codebook (E x d, FP16, row-major). Writes E FP16 values.
inline void oc_row(const half_bits* x, const half_bits* codebook, int entries, int d, half_bits* out) {
  for (int e = 0; e < entries; ++e) {
    float acc = 0.0f;
    const half_bits* c = codebook + static_cast<std::size_t>(e) * static_cast<std::size_t>(d);
    for (int t = 0; t < d; ++t) acc += fp16_mul_int8x4(x[t], c[t]);
    out[e] = float_to_half(acc);
  }
}

// n-bit indices packed LSB first into bytes.
inline std::uint32_t unpack_index(const std::uint8_t* bytes, std::uint64_t i, int bits) {
  const std::uint64_t bit = i * static_cast<std::uint64_t>(bits);
  std::uint32_t v = 0;
  for (int b = 0; b < bits; ++b) {
    const std::uint64_t at = bit + static_cast<std::uint64_t>(b);
    v |= static_cast<std::uint32_t>((bytes[at / 8] >> (at % 8)) & 1u) << b;
  }
  return v;
}
inline void pack_index(std::uint8_t* bytes, std::uint64_t i, int bits, std::uint32_t v) {
  const std::uint64_t bit = i * static_cast<std::uint64_t>(bits);
  for (int b = 0; b < bits; ++b) {
    const std::uint64_t at = bit + static_cast<std::uint64_t>(b);
    const std::uint8_t mask = static_cast<std::uint8_t>(1u << (at % 8));
    if ((v >> b) & 1u)
      bytes[at / 8] = static_cast<std::uint8_t>(bytes[at / 8] | mask);
    else
      bytes[at / 8] = static_cast<std::uint8_t>(bytes[at / 8] & ~mask);
  }
}
inline std::uint64_t packed_index_bytes(std::uint64_t count, int bits) {
  return (count * static_cast<std::uint64_t>(bits) + 7) / 8;
}

// A VQ-quantised weight matrix in memory-independent form, for references and
// for loading into DRAM: K x N weights, C codebooks of E = 2^n centroids of d
// elements; with groups, one codebook set per group_k x group_n block.
struct VqMatrix {
  std::uint64_t k = 0, n = 0;
  int codebooks = 1, index_bits = 8, d = 8;
  std::uint64_t group_k = 0, group_n = 0;  // 0: no groups
  // codebook[g][c][e][t], g = (row group) * groups_n + column group
  std::vector<half_bits> centroids;
  // index[c][v][j], v = sub-vector (K / d of them), j = column
  std::vector<std::uint32_t> index;

  std::uint64_t entries() const { return 1ull << index_bits; }
  std::uint64_t subvectors() const { return k / static_cast<std::uint64_t>(d); }
  std::uint64_t groups_k() const { return group_k ? (k + group_k - 1) / group_k : 1; }
  std::uint64_t groups_n() const { return group_n ? (n + group_n - 1) / group_n : 1; }
  std::uint64_t group_of(std::uint64_t row, std::uint64_t col) const {
    return (group_k ? row / group_k : 0) * groups_n() + (group_n ? col / group_n : 0);
  }
  const half_bits* codebook(std::uint64_t group, int c) const {
    return centroids.data() +
           ((group * static_cast<std::uint64_t>(codebooks) + static_cast<std::uint64_t>(c)) * entries()) *
               static_cast<std::uint64_t>(d);
  }
  std::uint32_t at(int c, std::uint64_t v, std::uint64_t j) const {
    return index[(static_cast<std::uint64_t>(c) * subvectors() + v) * n + j];
  }
};

// y = x W in double precision, W dequantised from its codebooks: the reference.
inline std::vector<double> vq_reference(const VqMatrix& w, const std::vector<half_bits>& x, std::uint64_t m) {
  std::vector<double> y(m * w.n, 0.0);
  const auto d = static_cast<std::uint64_t>(w.d);
  for (std::uint64_t v = 0; v < w.subvectors(); ++v)
    for (std::uint64_t j = 0; j < w.n; ++j) {
      const std::uint64_t g = w.group_of(v * d, j);
      for (std::uint64_t t = 0; t < d; ++t) {
        double weight = 0.0;
        for (int c = 0; c < w.codebooks; ++c)
          weight += static_cast<double>(half_to_float(w.codebook(g, c)[w.at(c, v, j) * d + t]));
        for (std::uint64_t r = 0; r < m; ++r)
          y[r * w.n + j] += static_cast<double>(half_to_float(x[r * w.k + v * d + t])) * weight;
      }
    }
  return y;
}

// A seeded random problem: FP16 activations ~ N(0, 1), centroids ~ N(0, 0.1),
// indices uniform, or piled toward 0 as u^(1 + skew) with skew > 0. The same
// seed gives the same problem.
struct VqProblem {
  VqMatrix w;
  std::vector<half_bits> x;  // m x k
  std::uint64_t m = 1;
};

inline VqProblem random_vq_problem(std::uint64_t m, std::uint64_t k, std::uint64_t n, int codebooks, int bits, int d,
                                   std::uint64_t group_k, std::uint64_t group_n, double skew, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  VqProblem p;
  p.m = m;
  p.w.k = k;
  p.w.n = n;
  p.w.codebooks = codebooks;
  p.w.index_bits = bits;
  p.w.d = d;
  p.w.group_k = group_k;
  p.w.group_n = group_n;
  for (std::uint64_t i = 0; i < m * k; ++i) p.x.push_back(float_to_half(normal(rng)));
  const std::uint64_t centroids = p.w.groups_k() * p.w.groups_n() * static_cast<std::uint64_t>(codebooks) *
                                  p.w.entries() * static_cast<std::uint64_t>(d);
  for (std::uint64_t i = 0; i < centroids; ++i) p.w.centroids.push_back(float_to_half(0.1f * normal(rng)));
  const std::uint64_t count = static_cast<std::uint64_t>(codebooks) * (k / static_cast<std::uint64_t>(d)) * n;
  for (std::uint64_t i = 0; i < count; ++i) {
    const double u = uniform(rng);
    const double r = skew > 0 ? std::pow(u, 1.0 + skew) : u;
    p.w.index.push_back(static_cast<std::uint32_t>(r * static_cast<double>(p.w.entries())) %
                        static_cast<std::uint32_t>(p.w.entries()));
  }
  return p;
}

inline double relative_l2_error(const std::vector<float>& y, const std::vector<double>& reference) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    err += (y[i] - reference[i]) * (y[i] - reference[i]);
    norm += reference[i] * reference[i];
  }
  return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

}  // namespace eva
