#include "baselines/figna/prealign.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace eva::figna {
namespace {

int bit_length(std::uint64_t v) {
  int n = 0;
  for (; v != 0; v >>= 1) ++n;
  return n;
}

void check_shape(const GroupedIntMatrix& w, std::size_t row, const PrealignConfig& config) {
  if (config.block == 0 || w.group == 0) throw std::invalid_argument("FIGNA: block and group sizes must be positive");
  if (w.q.size() != w.rows * w.cols || w.scales.size() != w.rows * w.groups() || w.zeros.size() != w.scales.size())
    throw std::invalid_argument("FIGNA: weight arrays do not match rows x cols and the group count");
  if (row >= w.rows) throw std::out_of_range("FIGNA: row " + std::to_string(row) + " out of range");
}

}  // namespace

Fp16Parts decode_fp16(half_bits h) {
  const int e = (h >> 10) & 0x1f;
  const std::uint32_t m = h & 0x3ffu;
  if (e == 0x1f) throw std::invalid_argument("FIGNA: infinity or NaN activation");
  const bool negative = (h & 0x8000u) != 0;
  if (e == 0) return {negative, -14, m};
  return {negative, e - 15, 1024 + m};
}

AlignedBlock align_block(const half_bits* a, std::size_t n, int guard) {
  if (guard < 0 || guard > 40) throw std::invalid_argument("FIGNA: guard bits must be in [0, 40]");
  std::vector<Fp16Parts> parts;
  parts.reserve(n);
  for (std::size_t i = 0; i < n; ++i) parts.push_back(decode_fp16(a[i]));
  AlignedBlock block;
  block.guard = guard;
  block.e_max = -14;  // the exponent of zero and subnormals, the smallest there is
  for (const Fp16Parts& p : parts) block.e_max = std::max(block.e_max, p.exponent);
  block.mantissas.reserve(n);
  for (const Fp16Parts& p : parts) {
    const std::int64_t magnitude = (static_cast<std::int64_t>(p.significand) << guard) >> (block.e_max - p.exponent);
    block.mantissas.push_back(p.negative ? -magnitude : magnitude);
  }
  return block;
}

std::int64_t int_dot(const AlignedBlock& block, const std::int32_t* w) {
  const std::size_t n = block.mantissas.size();
  std::uint64_t max_w = 0;
  for (std::size_t i = 0; i < n; ++i)
    max_w = std::max<std::uint64_t>(max_w, static_cast<std::uint64_t>(std::abs(w[i])));
  // 2.1 step 6: |acc| < 2^(W_a + bits(w) + ceil(log2 n)), W_a = 11 + G.
  const int width = 11 + block.guard + bit_length(max_w) + bit_length(n > 1 ? n - 1 : 0);
  if (width > 63) throw std::overflow_error("FIGNA: the block accumulator needs " + std::to_string(width) + " bits");
  std::int64_t acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc += block.mantissas[i] * w[i];
  return acc;
}

double block_value(std::int64_t acc, int e_max, int guard) {
  return std::ldexp(static_cast<double>(acc), e_max - 10 - guard);
}

float figna_dot(const half_bits* a, const GroupedIntMatrix& w, std::size_t row, const PrealignConfig& config) {
  check_shape(w, row, config);
  const std::uint8_t* q = w.q.data() + row * w.cols;
  std::vector<std::int32_t> signed_w;
  float y = 0.0f;
  for (std::size_t g = 0; g < w.groups(); ++g) {
    const std::size_t group_end = std::min(w.cols, (g + 1) * w.group);
    const float scale = w.scales[row * w.groups() + g];
    const std::int32_t zero = w.zeros[row * w.groups() + g];
    for (std::size_t start = g * w.group; start < group_end; start += config.block) {
      const std::size_t n = std::min(config.block, group_end - start);
      signed_w.assign(q + start, q + start + n);
      for (std::int32_t& v : signed_w) v -= zero;
      const AlignedBlock block = align_block(a + start, n, config.guard);
      const auto block_fp32 =
          static_cast<float>(block_value(int_dot(block, signed_w.data()), block.e_max, block.guard));
      y += block_fp32 * scale;
    }
  }
  return y;
}

std::vector<float> figna_gemv(const std::vector<half_bits>& a, const GroupedIntMatrix& w,
                              const PrealignConfig& config) {
  if (a.size() != w.cols) throw std::invalid_argument("FIGNA: activation length differs from the weights' columns");
  std::vector<float> y(w.rows);
  for (std::size_t r = 0; r < w.rows; ++r) y[r] = figna_dot(a.data(), w, r, config);
  return y;
}

}  // namespace eva::figna
