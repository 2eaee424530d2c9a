#pragma once
// IEEE 754 binary16 (FP16): conversion to and from float, and the EVA array's
// FP16 multiply built from four INT8 partial products.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace eva {

using half_bits = std::uint16_t;

// Exact: every FP16 value is a float.
inline float half_to_float(half_bits h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);  // inf or NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while ((man & 0x400u) == 0);
    bits = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest, ties to even; overflow to infinity.
inline half_bits float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<half_bits>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<half_bits>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {                                       // below the smallest normal: subnormal or zero
    if (abs < 0x33000000u) return static_cast<half_bits>(sign);  // below half the smallest subnormal
    const std::uint32_t exp = abs >> 23;
    const std::uint32_t man = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - exp;  // 14..24
    std::uint32_t h = man >> shift;
    const std::uint32_t rest = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<half_bits>(sign | h);
  }
  std::uint32_t h = ((abs - 0x38000000u) >> 13);
  const std::uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<half_bits>(sign | h);
}

// The product of two FP16 values as the reconfigured INT8 array forms it:
// each 11-bit significand is split into a high and a low part of at most 8
// bits, the four partial products are formed by INT8 multipliers and summed
// with shifts, and the exponents are added. The 22-bit result fits a float's
// significand, so the product is exact (equal to (float)a * (float)b).
inline float fp16_mul_int8x4(half_bits a, half_bits b) {
  const auto parts = [](half_bits h, std::int32_t& sig, int& exp) {
    const int e = (h >> 10) & 0x1f;
    const std::int32_t m = h & 0x3ff;
    if (e == 0) {  // subnormal or zero
      sig = m;
      exp = -24;
    } else {
      sig = m | 0x400;
      exp = e - 25;
    }
  };
  if (((a >> 10) & 0x1f) == 0x1f || ((b >> 10) & 0x1f) == 0x1f)  // inf, NaN: not in the datapath
    return half_to_float(a) * half_to_float(b);
  std::int32_t sa, sb;
  int ea, eb;
  parts(a, sa, ea);
  parts(b, sb, eb);
  const std::int32_t a_hi = sa >> 6, a_lo = sa & 0x3f;  // 5 + 6 bits
  const std::int32_t b_hi = sb >> 6, b_lo = sb & 0x3f;
  const std::int64_t product = (static_cast<std::int64_t>(a_hi * b_hi) << 12) +
                               (static_cast<std::int64_t>(a_hi * b_lo + a_lo * b_hi) << 6) + a_lo * b_lo;
  const float magnitude = std::ldexp(static_cast<float>(product), ea + eb);
  return ((a ^ b) & 0x8000u) ? -magnitude : magnitude;
}

}  // namespace eva
