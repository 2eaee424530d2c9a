#include "baselines/figlut/lut.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace eva::figlut {
namespace {

void check_mu(int mu) {
  if (mu < 1 || mu > 16) throw std::invalid_argument("FIGLUT: mu must be in [1, 16], got " + std::to_string(mu));
}

void check_shape(const BcqMatrix& w) {
  if (w.planes < 1 || w.group == 0) throw std::invalid_argument("FIGLUT: need at least one plane and a group size");
  const std::size_t planes = static_cast<std::size_t>(w.planes);
  if (w.bits.size() != planes * w.rows * w.cols || w.alpha.size() != w.rows * w.groups() * planes ||
      w.offset.size() != w.rows * w.groups())
    throw std::invalid_argument("FIGLUT: BCQ arrays do not match rows, cols, planes and groups");
}

}  // namespace

double BcqMatrix::weight(std::size_t row, std::size_t col) const {
  const std::size_t g = col / group;
  double v = offset[row * groups() + g];
  for (int i = 0; i < planes; ++i) {
    const double a = alpha[(row * groups() + g) * static_cast<std::size_t>(planes) + static_cast<std::size_t>(i)];
    v += bit(i, row, col) ? a : -a;
  }
  return v;
}

BcqMatrix bcq_from_uniform(const std::vector<std::uint8_t>& q, const std::vector<float>& scales,
                           const std::vector<float>& zeros, std::size_t rows, std::size_t cols, int planes,
                           std::size_t group) {
  if (planes < 1 || planes > 8 || group == 0) throw std::invalid_argument("FIGLUT: planes in [1, 8] and group > 0");
  BcqMatrix w;
  w.rows = rows;
  w.cols = cols;
  w.planes = planes;
  w.group = group;
  if (q.size() != rows * cols || scales.size() != rows * w.groups() || zeros.size() != scales.size())
    throw std::invalid_argument("FIGLUT: q, scales and zeros do not match rows x cols and the group count");
  const std::size_t n_planes = static_cast<std::size_t>(planes);
  w.bits.resize(n_planes * rows * cols);
  for (std::size_t i = 0; i < n_planes; ++i)
    for (std::size_t k = 0; k < rows * cols; ++k) {
      if (q[k] >> planes)
        throw std::invalid_argument("FIGLUT: a q value has more than " + std::to_string(planes) + " bits");
      w.bits[i * rows * cols + k] = static_cast<std::uint8_t>((q[k] >> i) & 1u);
    }
  for (std::size_t m = 0; m < rows; ++m)
    for (std::size_t g = 0; g < w.groups(); ++g) {
      const double s = scales[m * w.groups() + g], z = zeros[m * w.groups() + g];
      for (int i = 0; i < planes; ++i) w.alpha.push_back(static_cast<float>(std::ldexp(s, i - 1)));
      // sum_i alpha_i·(2·bit_i - 1) = s·q - sum_i alpha_i, so the offset restores
      // sum_i alpha_i = s(2^planes - 1)/2 and removes s·z.
      w.offset.push_back(static_cast<float>(s * (std::ldexp(1.0, planes) - 1) / 2 - s * z));
    }
  return w;
}

std::vector<float> build_lut(const float* x, int mu) {
  check_mu(mu);
  std::vector<float> lut{-x[0], x[0]};
  for (int j = 1; j < mu; ++j) {  // extend the table of x_0..x_{j-1} by bit j
    const std::size_t half = lut.size();
    lut.resize(2 * half);
    for (std::size_t k = 0; k < half; ++k) {
      lut[k + half] = lut[k] + x[j];
      lut[k] = lut[k] - x[j];
    }
  }
  return lut;
}

std::vector<float> build_half_lut(const float* x, int mu) {
  check_mu(mu);
  if (mu == 1) return {x[0]};
  std::vector<float> h = build_lut(x, mu - 1);
  for (float& v : h) v = v + x[mu - 1];  // the last step of build_lut, MSB = 1 only
  return h;
}

float read_half_lut(const float* h, std::uint32_t key, int mu) {
  const std::uint32_t msb = 1u << (mu - 1), mask = msb - 1;
  return (key & msb) != 0 ? h[key & mask] : -h[~key & mask];
}

std::uint32_t lut_key(const BcqMatrix& w, int plane, std::size_t row, std::size_t start, int mu) {
  std::uint32_t key = 0;
  const std::size_t end = std::min(w.cols, start + static_cast<std::size_t>(mu));
  for (std::size_t k = start; k < end; ++k)
    if (w.bit(plane, row, k)) key |= 1u << (k - start);
  return key;
}

std::vector<float> lut_gemv(const BcqMatrix& w, const std::vector<float>& x, int mu) {
  check_mu(mu);
  check_shape(w);
  const std::size_t width = static_cast<std::size_t>(mu);
  if (x.size() != w.cols) throw std::invalid_argument("FIGLUT: activation length differs from the weights' columns");
  if (w.group % width != 0) throw std::invalid_argument("FIGLUT: the group size must be a multiple of mu");

  // One half LUT per mu-slice of x, shared by every row (the FFLUT's readers).
  const std::size_t slices = (w.cols + width - 1) / width, entries = std::size_t{1} << (mu - 1);
  std::vector<float> padded(x);
  padded.resize(slices * width, 0.0f);
  std::vector<float> luts;
  luts.reserve(slices * entries);
  for (std::size_t s = 0; s < slices; ++s) {
    const std::vector<float> h = build_half_lut(padded.data() + s * width, mu);
    luts.insert(luts.end(), h.begin(), h.end());
  }
  const std::size_t slices_per_group = w.group / width, all_ones = entries - 1;
  std::vector<float> group_sum(w.groups(), 0.0f);
  for (std::size_t s = 0; s < slices; ++s) group_sum[s / slices_per_group] += luts[s * entries + all_ones];

  std::vector<float> y(w.rows, 0.0f);
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t g = 0; g < w.groups(); ++g) {
      const std::size_t first = g * slices_per_group, last = std::min(slices, first + slices_per_group);
      for (int i = 0; i < w.planes; ++i) {
        float acc = 0.0f;  // bit-serial: one plane over the group, then one multiply by alpha
        for (std::size_t s = first; s < last; ++s)
          acc += read_half_lut(luts.data() + s * entries, lut_key(w, i, m, s * width, mu), mu);
        y[m] += w.alpha[(m * w.groups() + g) * static_cast<std::size_t>(w.planes) + static_cast<std::size_t>(i)] * acc;
      }
      y[m] += w.offset[m * w.groups() + g] * group_sum[g];
    }
  return y;
}

}  // namespace eva::figlut
