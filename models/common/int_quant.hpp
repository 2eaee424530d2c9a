#pragma once
// Host-side integer quantisation for functional problems: symmetric (sa,
// ant outputs) and asymmetric per output channel (figna, figlut weights).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/fp16.hpp"

namespace eva {

inline std::int64_t int_max(int bits) { return (std::int64_t{1} << (bits - 1)) - 1; }

// Round half away from zero and saturate to a symmetric `bits`-bit range.
inline std::int64_t quantize_symmetric(double v, double scale, int bits) {
  const double q = scale > 0 ? std::round(v / scale) : 0.0;
  const double hi = static_cast<double>(int_max(bits));
  return static_cast<std::int64_t>(std::max(-hi, std::min(hi, q)));
}

// W (K x N, row-major) as unsigned INT-`bits` codes per output column n:
// W ~ scale[n] (code - zero[n]), scale and zero from the column's min and max.
struct AsymmetricColumns {
  std::vector<std::uint32_t> codes;  // K x N, row-major
  std::vector<float> scale, zero;    // per column
};

inline AsymmetricColumns quantize_asymmetric_columns(const std::vector<float>& w, std::uint64_t k, std::uint64_t n,
                                                     int bits) {
  const float levels = static_cast<float>((1u << bits) - 1);
  AsymmetricColumns q;
  q.codes.resize(k * n);
  q.scale.resize(n);
  q.zero.resize(n);
  for (std::uint64_t j = 0; j < n; ++j) {
    float lo = w[j], hi = w[j];
    for (std::uint64_t kk = 0; kk < k; ++kk) {
      lo = std::min(lo, w[kk * n + j]);
      hi = std::max(hi, w[kk * n + j]);
    }
    q.scale[j] = hi > lo ? (hi - lo) / levels : 1.0f;
    q.zero[j] = std::round(-lo / q.scale[j]);
    for (std::uint64_t kk = 0; kk < k; ++kk)
      q.codes[kk * n + j] =
          static_cast<std::uint32_t>(std::clamp(std::round(w[kk * n + j] / q.scale[j] + q.zero[j]), 0.0f, levels));
  }
  return q;
}

// FP16 values packed in bytes, as doubles (reading FP16 outputs back).
inline std::vector<double> fp16_bytes_to_doubles(const std::vector<std::uint8_t>& bytes, std::uint64_t count) {
  std::vector<double> y(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    half_bits h;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    y[i] = half_to_float(h);
  }
  return y;
}

}  // namespace eva
