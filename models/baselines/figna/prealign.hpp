#pragma once
// FIGNA's FP16-activation x INT-weight arithmetic on integer units: FP16
// significands of a block are pre-aligned to the block's largest exponent,
// multiplied by signed integer weights and accumulated in an integer, and the
// sum is converted back once per block (BASELINES.md 2.1). Plain C++.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/fp16.hpp"

namespace eva::figna {

// A finite FP16 value = (negative ? -1 : 1)·significand·2^(exponent-10).
// Normal: exponent = e-15, significand = 1024+m; subnormal: -14 and m.
struct Fp16Parts {
  bool negative = false;
  int exponent = 0;
  std::uint32_t significand = 0;
};
// Throws std::invalid_argument for infinity and NaN (not in the datapath).
Fp16Parts decode_fp16(half_bits h);

// A block of activations on the shared exponent: value_i ~ mantissa_i·2^(e_max-10-guard).
struct AlignedBlock {
  int e_max = 0;
  int guard = 0;
  std::vector<std::int64_t> mantissas;  // signed, 11+guard magnitude bits
};
// A_i = ±floor(S_i·2^G / 2^(E_max-E_i)): the right shift truncates the
// magnitude. guard in [0, 40]; G >= max(E_max-E_i) loses nothing.
AlignedBlock align_block(const half_bits* a, std::size_t n, int guard);

// acc = sum A_i·w_i in int64. Throws std::overflow_error when the
// accumulator width rule of 2.1 step 6 needs more than 63 magnitude bits.
std::int64_t int_dot(const AlignedBlock& block, const std::int32_t* w);

// acc·2^(e_max-10-guard) in double: exact while |acc| < 2^53, e.g. for any
// guard <= 29 (lossless for all FP16) with |w| < 16 and blocks of <= 512.
double block_value(std::int64_t acc, int e_max, int guard);

// INT weights with per-group scales and zero points: w = s_g·(q - z_g).
struct GroupedIntMatrix {
  std::size_t rows = 0, cols = 0;   // N outputs x K inputs
  std::size_t group = 128;          // columns per group; the last may be short
  std::vector<std::uint8_t> q;      // rows x cols, unsigned codes (INT4: 0..15)
  std::vector<float> scales;        // rows x groups()
  std::vector<std::int32_t> zeros;  // rows x groups()

  std::size_t groups() const { return (cols + group - 1) / group; }
};

struct PrealignConfig {
  std::size_t block = 128;  // activations sharing one exponent; clipped at group ends
  // G: bits kept below the largest significand's LSB; 3 as an FP adder's
  // guard, round and sticky bits would give (FIGNA's width is not known).
  int guard = 3;
};

// One output of FIGNA's GEMV: for each group, each block of at most `block`
// columns inside it is aligned, dotted with w = q - z in integers, converted
// to FP32 (round to nearest even), scaled by s_g and added to an FP32 sum.
float figna_dot(const half_bits* a, const GroupedIntMatrix& w, std::size_t row, const PrealignConfig& config);
std::vector<float> figna_gemv(const std::vector<half_bits>& a, const GroupedIntMatrix& w, const PrealignConfig& config);

}  // namespace eva::figna
