#pragma once
// Host-side integer quantisation for functional problems: symmetric (sa,
// ant outputs) and asymmetric per output channel (figna, figlut weights).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/fp16.hpp"
#include "common/vq_math.hpp"

namespace eva {

// Sign-extends a `bits`-bit two's complement code.
inline std::int32_t sign_extend(std::uint32_t c, int bits) {
  if (bits >= 32) return static_cast<std::int32_t>(c);
  const std::uint32_t sign = 1u << (bits - 1);
  return static_cast<std::int32_t>((c ^ sign)) - static_cast<std::int32_t>(sign);
}

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

// Signed `bits`-bit integers packed LSB first (pack_index), times `scale`.
inline std::vector<double> int_bytes_to_doubles(const std::vector<std::uint8_t>& bytes, std::uint64_t count, int bits,
                                                double scale) {
  std::vector<double> y(count);
  for (std::uint64_t i = 0; i < count; ++i)
    y[i] = static_cast<double>(sign_extend(unpack_index(bytes.data(), i, bits), bits)) * scale;
  return y;
}

// Accumulators rounded to FP16 outputs, packed (FP16-output datapaths).
inline void doubles_to_fp16_bytes(const double* acc, std::uint64_t count, std::uint8_t* out) {
  for (std::uint64_t i = 0; i < count; ++i) {
    const half_bits h = float_to_half(static_cast<float>(acc[i]));
    std::memcpy(out + 2 * i, &h, 2);
  }
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
