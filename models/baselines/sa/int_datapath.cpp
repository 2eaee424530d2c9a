#include "baselines/sa/int_datapath.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace eva {

namespace {
float max_abs(const float* v, std::uint64_t count, std::uint64_t stride) {
  float m = 0.0f;
  for (std::uint64_t i = 0; i < count; ++i) m = std::max(m, std::fabs(v[i * stride]));
  return m;
}
}  // namespace

EncodedGemm IntDatapath::encode(const FormatConfig& f, const std::vector<float>& x, const std::vector<float>& w,
                                std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t tile_k,
                                std::uint64_t tile_n) {
  const float act_scale = max_abs(x.data(), m * k, 1) / static_cast<float>(int_max(f.act_bits));
  std::vector<float> w_scale(n);
  for (std::uint64_t j = 0; j < n; ++j)
    w_scale[j] = max_abs(w.data() + j, k, n) / static_cast<float>(int_max(f.weight_bits));
  std::vector<std::int64_t> qa(m * k), qw(k * n);
  EncodedGemm e;
  e.activations.assign(packed_bytes(m * k, f.act_bits), 0);
  for (std::uint64_t i = 0; i < m * k; ++i) {
    qa[i] = quantize_symmetric(x[i], act_scale, f.act_bits);
    pack_index(e.activations.data(), i, f.act_bits, static_cast<std::uint32_t>(qa[i]));
  }
  std::vector<std::uint32_t> codes(k * n);
  for (std::uint64_t i = 0; i < k * n; ++i) {
    qw[i] = quantize_symmetric(w[i], w_scale[i % n], f.weight_bits);
    codes[i] = static_cast<std::uint32_t>(qw[i]);
  }
  e.weights = pack_tile_major(codes, k, n, tile_k, tile_n, f.weight_bits);
  e.reference.assign(m * n, 0.0);
  double out_max = 0.0;
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      std::int64_t acc = 0;
      for (std::uint64_t kk = 0; kk < k; ++kk) acc += qa[i * k + kk] * qw[kk * n + j];
      e.reference[i * n + j] = static_cast<double>(acc) * act_scale * w_scale[j];
      out_max = std::max(out_max, std::fabs(e.reference[i * n + j]));
    }
  const float out_scale = out_max > 0 ? static_cast<float>(out_max / static_cast<double>(int_max(f.out_bits))) : 1.0f;
  std::vector<float> p = {act_scale, out_scale};
  p.insert(p.end(), w_scale.begin(), w_scale.end());
  e.parameters.resize(p.size() * 4);
  std::memcpy(e.parameters.data(), p.data(), e.parameters.size());
  const int out_bits = f.out_bits;
  e.decode_output = [out_bits, out_scale, count = m * n](const std::vector<std::uint8_t>& bytes) {
    return int_bytes_to_doubles(bytes, count, out_bits, out_scale);
  };

  e.format = fmt::format("INT{} x INT{} -> INT{}, symmetric scales", f.act_bits, f.weight_bits, f.out_bits);
  return e;
}

}  // namespace eva
