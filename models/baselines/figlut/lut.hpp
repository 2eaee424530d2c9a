#pragma once
// LUT-GEMM / FIGLUT arithmetic: binary-coded (BCQ) weights, the table of all
// signed sums of mu activations, its half-size form with the key decoder, and
// the bit-serial GEMV of FIGLUT's read-accumulate (RAC) array
// (BASELINES.md section 3). LUT entries and accumulators are FP32, as in
// FIGLUT-F's FP LUT. Plain C++.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace eva::figlut {

// W[m][k] = sum_i alpha[m][g][i]·b[i][m][k] + offset[m][g], b in {-1, +1},
// g = k / group.
struct BcqMatrix {
  std::size_t rows = 0, cols = 0;  // N outputs x K inputs
  int planes = 0;                  // q
  std::size_t group = 0;           // g: columns per group; the last may be short
  std::vector<std::uint8_t> bits;  // [plane][row][col]: 1 is +1, 0 is -1
  std::vector<float> alpha;        // [row][group][plane]
  std::vector<float> offset;       // [row][group]

  std::size_t groups() const { return (cols + group - 1) / group; }
  bool bit(int plane, std::size_t row, std::size_t col) const {
    return bits[(static_cast<std::size_t>(plane) * rows + row) * cols + col] != 0;
  }
  // The dequantized weight, in double for references.
  double weight(std::size_t row, std::size_t col) const;
};

// Uniform INT to BCQ (3.2): W = s(q - z) with q = sum 2^i·bit_i gives
// alpha_i = s·2^(i-1), b_i = 2·bit_i - 1, offset = s(2^planes - 1)/2 - s·z.
// q is rows x cols; scales and zeros are rows x groups.
BcqMatrix bcq_from_uniform(const std::vector<std::uint8_t>& q, const std::vector<float>& scales,
                           const std::vector<float>& zeros, std::size_t rows, std::size_t cols, int planes,
                           std::size_t group);

// LUT[key] = sum_j (2·key_j - 1)·x_j over mu activations, key bit j <-> x_j
// (LSB first). Each entry is summed in the order x_0, x_1, ... (a generator
// reusing the partial sums of the first j activations does exactly this), so
// LUT[~key] = -LUT[key] holds bit for bit.
std::vector<float> build_lut(const float* x, int mu);

// The half-size table (3.4): h[j] = LUT[j | 2^(mu-1)], 2^(mu-1) entries.
std::vector<float> build_half_lut(const float* x, int mu);
// The key decoder: MSB 1 reads h[key & mask], MSB 0 reads -h[~key & mask].
float read_half_lut(const float* h, std::uint32_t key, int mu);

// The mu-bit key of one plane of one row over columns [start, start+mu);
// columns past the end read as bit 0 (their activations are padded with 0).
std::uint32_t lut_key(const BcqMatrix& w, int plane, std::size_t row, std::size_t start, int mu);

// y = W·x as the RAC array computes it: per group and plane,
// acc = sum over the group's mu-slices of h[key] (FP32), y += alpha·acc; then
// y += offset·sum(x of the group), that sum read as LUT[all ones] per slice.
// group must be a multiple of mu; cols need not be.
std::vector<float> lut_gemv(const BcqMatrix& w, const std::vector<float>& x, int mu = 4);

}  // namespace eva::figlut
