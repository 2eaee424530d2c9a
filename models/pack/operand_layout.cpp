#include "pack/operand_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "baselines/ant/ant_format.hpp"
#include "baselines/figlut/lut.hpp"
#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/int_quant.hpp"
#include "systolic/tile_layout.hpp"

namespace eva {

namespace {

float max_abs(const float* v, std::uint64_t count, std::uint64_t stride) {
  float m = 0.0f;
  for (std::uint64_t i = 0; i < count; ++i) m = std::max(m, std::fabs(v[i * stride]));
  return m;
}

// Tile growth of a BitFusion-style PE for an operand of `bits`.
std::uint64_t split(int bits) { return static_cast<std::uint64_t>(8 / std::max(bits, 4)); }

}  // namespace

WsGeometry ws_geometry(const SystolicConfig& s) {
  return {static_cast<std::uint64_t>(s.rows), static_cast<std::uint64_t>(s.cols), 1};
}

WsGeometry ant_geometry(const SystolicConfig& s, const FormatConfig& f) {
  return {static_cast<std::uint64_t>(s.rows) * split(f.act_bits),
          static_cast<std::uint64_t>(s.cols) * split(f.weight_bits), 1};
}

WsGeometry figlut_geometry(const SystolicConfig& s, const FiglutConfig& c, const FormatConfig& f) {
  const auto planes = static_cast<std::uint64_t>(f.weight_bits);
  const auto mpus = static_cast<std::uint64_t>(c.mpus);
  const std::uint64_t share = (mpus + planes - 1) / planes;  // MPUs per plane along K
  return {static_cast<std::uint64_t>(s.cols) * static_cast<std::uint64_t>(c.mu) * share,
          static_cast<std::uint64_t>(s.rows) * static_cast<std::uint64_t>(c.racs_per_pe), (planes + mpus - 1) / mpus};
}

std::uint64_t bytes_for_bits(std::uint64_t bits) { return (bits + 7) / 8; }

std::uint64_t figlut_planes_in(std::uint64_t planes, std::uint64_t mpus, std::uint64_t pass) {
  return std::min(mpus, planes - pass * mpus);
}

std::uint64_t figlut_tile_offset(std::uint64_t planes, std::uint64_t mpus, const WsTile& t, std::uint64_t k) {
  return t.n0 * planes * bytes_for_bits(k) + planes * t.n * (t.k0 / 8) + t.pass * mpus * t.n * bytes_for_bits(t.k);
}

std::uint64_t figlut_weight_bytes(int planes, std::uint64_t n, std::uint64_t k) {
  return n * static_cast<std::uint64_t>(planes) * bytes_for_bits(k);
}

EncodedGemm encode_int_gemm(const FormatConfig& f, const std::vector<float>& x, const std::vector<float>& w,
                            std::uint64_t m, std::uint64_t n, std::uint64_t k, const WsGeometry& g) {
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
  e.weights = pack_tile_major(codes, k, n, g.tile_k, g.tile_n, f.weight_bits);
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

EncodedGemm encode_ant_gemm(const FormatConfig& f, const std::vector<float>& x, const std::vector<float>& w,
                            std::uint64_t m, std::uint64_t n, std::uint64_t k, const WsGeometry& g) {
  // Weights are searched per output channel: channel-major copy of W.
  std::vector<float> wt(n * k);
  for (std::uint64_t kk = 0; kk < k; ++kk)
    for (std::uint64_t j = 0; j < n; ++j) wt[j * k + kk] = w[kk * n + j];
  const ant::AntChoice a = ant::select_type(x, 1, f.act_bits, ant::TensorKind::activation);
  const ant::AntChoice b = ant::select_type(wt, n, f.weight_bits, ant::TensorKind::weight);
  const ant::AntQuantizer qa(a.format), qb(b.format);

  EncodedGemm e;
  e.activations.assign(packed_bytes(m * k, f.act_bits), 0);
  for (std::uint64_t i = 0; i < m * k; ++i) pack_index(e.activations.data(), i, f.act_bits, a.codes[i]);
  std::vector<std::uint32_t> codes(k * n);
  for (std::uint64_t kk = 0; kk < k; ++kk)
    for (std::uint64_t j = 0; j < n; ++j) codes[kk * n + j] = b.codes[j * k + kk];
  e.weights = pack_tile_major(codes, k, n, g.tile_k, g.tile_n, f.weight_bits);

  // Reference: the decoded operands' products in float64, with the alphas as
  // stored (float32), as the PEs use them.
  e.reference.assign(m * n, 0.0);
  double out_max = 0.0;
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      double y = 0.0;
      for (std::uint64_t kk = 0; kk < k; ++kk)
        y += qa.dequantize(a.codes[i * k + kk], static_cast<float>(a.alphas[0])) *
             qb.dequantize(b.codes[j * k + kk], static_cast<float>(b.alphas[j]));
      e.reference[i * n + j] = y;
      out_max = std::max(out_max, std::fabs(y));
    }
  const float out_scale = out_max > 0 ? static_cast<float>(out_max / static_cast<double>(int_max(f.out_bits))) : 1.0f;
  e.parameters = {static_cast<std::uint8_t>(a.format.type), static_cast<std::uint8_t>(a.format.is_signed),
                  static_cast<std::uint8_t>(b.format.type), static_cast<std::uint8_t>(b.format.is_signed)};
  std::vector<float> p = {static_cast<float>(a.alphas[0]), out_scale};
  for (double alpha : b.alphas) p.push_back(static_cast<float>(alpha));
  e.parameters.resize(4 + p.size() * 4);
  std::memcpy(e.parameters.data() + 4, p.data(), p.size() * 4);
  const int out_bits = f.out_bits;
  e.decode_output = [out_bits, out_scale, count = m * n](const std::vector<std::uint8_t>& bytes) {
    return int_bytes_to_doubles(bytes, count, out_bits, out_scale);
  };

  e.format = fmt::format("activations {}{} {}-bit, weights {}{} {}-bit", a.format.is_signed ? "signed " : "unsigned ",
                         ant::type_name(a.format.type), f.act_bits, b.format.is_signed ? "signed " : "unsigned ",
                         ant::type_name(b.format.type), f.weight_bits);
  return e;
}

EncodedGemm encode_figna_gemm(const FormatConfig& f, const SystolicConfig& s, const std::vector<float>& x,
                              const std::vector<float>& w, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  const int q = f.weight_bits;
  const AsymmetricColumns aq = quantize_asymmetric_columns(w, k, n, q);
  const std::vector<std::uint32_t>& codes = aq.codes;
  const std::vector<float>& scale = aq.scale;
  const std::vector<float>& zero = aq.zero;
  EncodedGemm e;
  const WsGeometry g = ws_geometry(s);
  e.weights = pack_tile_major(codes, k, n, g.tile_k, g.tile_n, q);
  e.parameters.resize(8 * n);
  std::memcpy(e.parameters.data(), scale.data(), 4 * n);
  std::memcpy(e.parameters.data() + 4 * n, zero.data(), 4 * n);
  std::vector<half_bits> xh(m * k);
  for (std::uint64_t i = 0; i < m * k; ++i) xh[i] = float_to_half(x[i]);
  e.activations.resize(2 * m * k);
  std::memcpy(e.activations.data(), xh.data(), e.activations.size());
  e.reference.assign(m * n, 0.0);
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      double y = 0.0;
      for (std::uint64_t kk = 0; kk < k; ++kk)
        y += static_cast<double>(half_to_float(xh[i * k + kk])) * static_cast<double>(scale[j]) *
             (static_cast<double>(codes[kk * n + j]) - static_cast<double>(zero[j]));
      e.reference[i * n + j] = y;
    }
  e.decode_output = [count = m * n](const std::vector<std::uint8_t>& bytes) {
    return fp16_bytes_to_doubles(bytes, count);
  };
  e.format =
      fmt::format("FP16 pre-aligned per {}-activation block, INT{} weights (per-channel scale and zero)", s.rows, q);
  return e;
}

EncodedGemm encode_figlut_gemm(const FormatConfig& f, const FiglutConfig& c, const WsGeometry& g,
                               const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                               std::uint64_t n, std::uint64_t k) {
  const int q = f.weight_bits;
  const auto planes = static_cast<std::uint64_t>(q);
  const auto mpus = static_cast<std::uint64_t>(c.mpus);
  // Uniform asymmetric INT-q per output row (min/max), then BCQ (3.2).
  const AsymmetricColumns aq = quantize_asymmetric_columns(w, k, n, q);
  std::vector<std::uint8_t> codes(n * k);
  for (std::uint64_t kk = 0; kk < k; ++kk)
    for (std::uint64_t j = 0; j < n; ++j) codes[j * k + kk] = static_cast<std::uint8_t>(aq.codes[kk * n + j]);
  const std::vector<float>& scales = aq.scale;
  const std::vector<float>& zeros = aq.zero;
  figlut::BcqMatrix b = figlut::bcq_from_uniform(codes, scales, zeros, n, k, q, k);
  // The parameters travel as FP16: the reference uses them as rounded.
  EncodedGemm e;
  std::vector<half_bits> params(n * (planes + 1));
  for (std::uint64_t i = 0; i < n * planes; ++i) {
    params[i] = float_to_half(b.alpha[i]);
    b.alpha[i] = half_to_float(params[i]);
  }
  for (std::uint64_t j = 0; j < n; ++j) {
    params[n * planes + j] = float_to_half(b.offset[j]);
    b.offset[j] = half_to_float(params[n * planes + j]);
  }
  e.parameters.resize(params.size() * 2);
  std::memcpy(e.parameters.data(), params.data(), e.parameters.size());
  std::vector<half_bits> xh(m * k);
  for (std::uint64_t i = 0; i < m * k; ++i) xh[i] = float_to_half(x[i]);
  e.activations.resize(xh.size() * 2);
  std::memcpy(e.activations.data(), xh.data(), e.activations.size());
  // Bit-planes in the tile layout.
  e.weights.assign(figlut_weight_bytes(q, n, k), 0);
  const WsTiler tiler(1, k, n, g.tile_k, g.tile_n, 1, g.passes);
  for (std::uint64_t i = 0; i < tiler.tiles_per_block(); ++i) {
    const WsTile t = tiler.at(i);
    std::uint8_t* tile = e.weights.data() + figlut_tile_offset(planes, mpus, t, k);
    const std::uint64_t p0 = t.pass * mpus;
    for (std::uint64_t p = 0; p < figlut_planes_in(planes, mpus, t.pass); ++p)
      for (std::uint64_t nn = 0; nn < t.n; ++nn)
        for (std::uint64_t kk = 0; kk < t.k; ++kk)
          if (b.bit(static_cast<int>(p0 + p), t.n0 + nn, t.k0 + kk)) {
            std::uint8_t& byte = tile[(p * t.n + nn) * bytes_for_bits(t.k) + kk / 8];
            byte = static_cast<std::uint8_t>(byte | (1u << (kk % 8)));
          }
  }
  e.reference.assign(m * n, 0.0);
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      double y = 0.0;
      for (std::uint64_t kk = 0; kk < k; ++kk)
        y += static_cast<double>(half_to_float(xh[i * k + kk])) * b.weight(j, kk);
      e.reference[i * n + j] = y;
    }
  e.decode_output = [count = m * n](const std::vector<std::uint8_t>& bytes) {
    return fp16_bytes_to_doubles(bytes, count);
  };
  e.format = fmt::format("FP16 x BCQ-{} (uniform INT{} per row, FP16 alpha and offset), FP32 LUT", q, q);
  return e;
}

EvaTiler eva_tiler(const VqFormat& f, const EpilogueConfig& e, const SramConfig& oc, std::uint64_t m, std::uint64_t k,
                   std::uint64_t n) {
  return EvaTiler(m, k, n, f, eva_lookups(e), eva_oc_depth(oc));
}

std::vector<std::uint8_t> eva_index_image(const EvaTiler& t, const VqMatrix& w) {
  std::vector<std::uint8_t> packed(t.index_bytes(), 0);
  for (int c = 0; c < w.codebooks; ++c)
    for (std::uint64_t v = 0; v < w.subvectors(); ++v)
      for (std::uint64_t j = 0; j < w.n; ++j)
        pack_index(packed.data() + t.run_offset(c, v, j / EvaTiler::tile_cols), j % EvaTiler::tile_cols, w.index_bits,
                   w.at(c, v, j));
  return packed;
}

std::vector<std::uint8_t> vq_conflict_index_image(const VqMatrix& w) {
  const std::uint64_t row = packed_index_bytes(w.n, w.index_bits);
  std::vector<std::uint8_t> image(static_cast<std::uint64_t>(w.codebooks) * w.subvectors() * row, 0);
  for (int c = 0; c < w.codebooks; ++c)
    for (std::uint64_t v = 0; v < w.subvectors(); ++v)
      for (std::uint64_t j = 0; j < w.n; ++j)
        pack_index(image.data() + (static_cast<std::uint64_t>(c) * w.subvectors() + v) * row, j, w.index_bits,
                   w.at(c, v, j));
  return image;
}

EncodedGemm encode_gemm(const ArchConfig& c, const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                        std::uint64_t n, std::uint64_t k) {
  switch (c.kind) {
    case ArchKind::sa:
      return encode_int_gemm(c.formats, x, w, m, n, k, ws_geometry(c.systolic));
    case ArchKind::ant:
      return encode_ant_gemm(c.formats, x, w, m, n, k, ant_geometry(c.systolic, c.formats));
    case ArchKind::figna:
      return encode_figna_gemm(c.formats, c.systolic, x, w, m, n, k);
    case ArchKind::figlut:
      return encode_figlut_gemm(c.formats, c.figlut, figlut_geometry(c.systolic, c.figlut, c.formats), x, w, m, n, k);
    case ArchKind::eva:
    case ArchKind::vq_conflict:
      break;
  }
  throw InputError(fmt::format("{}: VQ weights: dense weights are not encoded (give codebooks and indices)", c.name));
}

std::vector<std::uint8_t> vq_index_image(const ArchConfig& c, const VqMatrix& w, std::uint64_t m) {
  if (c.kind == ArchKind::eva) return eva_index_image(eva_tiler(c.vq, c.epilogue, c.oc, m, w.k, w.n), w);
  if (c.kind == ArchKind::vq_conflict) return vq_conflict_index_image(w);
  throw InputError(fmt::format("{}: holds no VQ weights (eva, vq-conflict do)", c.name));
}

}  // namespace eva
