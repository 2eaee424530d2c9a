#include "baselines/figlut/figlut_accelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "baselines/figlut/lut.hpp"
#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/int_quant.hpp"

namespace eva {

namespace {

std::uint64_t bytes_for_bits(std::uint64_t bits) { return (bits + 7) / 8; }

// Bit-planes in the layout of figlut_accelerator.hpp.
class BitPlaneWeights : public WeightSource {
 public:
  BitPlaneWeights(int planes, int mpus)
      : m_planes(static_cast<std::uint64_t>(planes)), m_mpus(static_cast<std::uint64_t>(mpus)) {}

  std::uint64_t planes_in(std::uint64_t pass) const { return std::min(m_mpus, m_planes - pass * m_mpus); }
  std::uint64_t offset(const WsTile& t, std::uint64_t k) const {
    return t.n0 * m_planes * bytes_for_bits(k) + m_planes * t.n * (t.k0 / 8) +
           t.pass * m_mpus * t.n * bytes_for_bits(t.k);
  }
  Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& t, const BufferSlot& slot) override {
    const std::uint64_t bytes = tile_bytes(t);
    return dma.start_load(op.weight_addr + offset(t, op.k), bytes, 1, bytes, slot.at, !slot.data);
  }
  std::uint64_t tile_bytes(const WsTile& t) const override { return planes_in(t.pass) * t.n * bytes_for_bits(t.k); }
  std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const override {
    return std::min(m_planes, m_mpus) * cols * bytes_for_bits(rows);
  }

 private:
  std::uint64_t m_planes, m_mpus;
};

// The RAC arithmetic (FIGLUT-F: FP32 LUT entries and accumulators). Per tile
// and input row, each mu-slice of activations gets its half-size LUT; each
// plane's read-accumulate sum over the tile is scaled by its alpha and added
// into the FP32 output accumulator; the first pass adds offset x sum(x).
class LutDatapath : public WsDatapath {
 public:
  LutDatapath(int planes, int mpus, int mu)
      : m_planes(static_cast<std::uint64_t>(planes)), m_mpus(static_cast<std::uint64_t>(mpus)), m_mu(mu) {}

  std::uint64_t parameter_bytes(const GemmDescriptor& op) const override { return 2 * op.n * (m_planes + 1); }
  void set_parameters(const GemmDescriptor& op, const std::vector<std::uint8_t>& bytes) override {
    std::vector<half_bits> h(op.n * (m_planes + 1));
    std::memcpy(h.data(), bytes.data(), h.size() * 2);
    m_alpha.resize(op.n * m_planes);
    m_offset.resize(op.n);
    for (std::uint64_t i = 0; i < m_alpha.size(); ++i) m_alpha[i] = half_to_float(h[i]);
    for (std::uint64_t j = 0; j < op.n; ++j) m_offset[j] = half_to_float(h[op.n * m_planes + j]);
  }
  void tile(const WsTile& t, const std::uint8_t* input, std::uint64_t first, std::uint64_t row_elems,
            const std::uint8_t* weights, double* acc) override {
    const auto mu = static_cast<std::uint64_t>(m_mu);
    const std::uint64_t slices = (t.k + mu - 1) / mu, row_bytes = bytes_for_bits(t.k);
    const std::uint64_t p0 = t.pass * m_mpus, planes = std::min(m_mpus, m_planes - p0);
    const std::uint64_t half = 1ull << (m_mu - 1);
    std::vector<float> luts(slices * half), x(mu);
    for (std::uint64_t mm = 0; mm < t.m; ++mm) {
      float sum_x = 0.0f;  // sum of the tile's activations: LUT[all ones] per slice
      for (std::uint64_t s = 0; s < slices; ++s) {
        for (std::uint64_t j = 0; j < mu; ++j) {
          const std::uint64_t kk = s * mu + j;
          half_bits h = 0;
          if (kk < t.k) std::memcpy(&h, input + 2 * (first + mm * row_elems + kk), 2);
          x[j] = half_to_float(h);
        }
        const std::vector<float> lut = build_half_lut_of(x);
        std::copy(lut.begin(), lut.end(), luts.begin() + static_cast<std::ptrdiff_t>(s * half));
        sum_x += figlut::read_half_lut(lut.data(), static_cast<std::uint32_t>((1ull << m_mu) - 1), m_mu);
      }
      for (std::uint64_t nn = 0; nn < t.n; ++nn) {
        float y = static_cast<float>(acc[mm * t.n + nn]);
        for (std::uint64_t p = 0; p < planes; ++p) {
          const std::uint8_t* bits = weights + (p * t.n + nn) * row_bytes;
          float plane_sum = 0.0f;
          for (std::uint64_t s = 0; s < slices; ++s) {
            std::uint32_t key = 0;
            for (std::uint64_t j = 0; j < mu && s * mu + j < t.k; ++j) {
              const std::uint64_t kk = s * mu + j;
              key |= static_cast<std::uint32_t>((bits[kk / 8] >> (kk % 8)) & 1u) << j;
            }
            plane_sum += figlut::read_half_lut(luts.data() + s * half, key, m_mu);
          }
          y += m_alpha[(t.n0 + nn) * m_planes + p0 + p] * plane_sum;
        }
        if (t.pass == 0) y += m_offset[t.n0 + nn] * sum_x;
        acc[mm * t.n + nn] = y;
      }
    }
  }
  void finish(const WsTile& t, const double* acc, std::uint8_t* out) override {
    doubles_to_fp16_bytes(acc, t.m * t.n, out);
  }

 private:
  std::vector<float> build_half_lut_of(const std::vector<float>& x) const {
    return figlut::build_half_lut(x.data(), m_mu);
  }

  std::uint64_t m_planes, m_mpus;
  int m_mu;
  std::vector<float> m_alpha, m_offset;
};

}  // namespace

WsGemmConfig FiglutAccelerator::gemm_config(const WsAcceleratorConfig& c, const FiglutConfig& f, bool kv) {
  // Attention: the KV cache's kv_bits taken as bit-planes, FP16 in and out.
  const FormatConfig formats = kv ? c.formats.kv_formats() : c.formats;
  WsGemmConfig g{c.systolic, c.buffers, formats, c.tiling};
  const auto planes = static_cast<std::uint64_t>(formats.weight_bits);
  const auto mpus = static_cast<std::uint64_t>(f.mpus);
  const std::uint64_t share = (mpus + planes - 1) / planes;  // MPUs per plane along K
  g.tile_k = static_cast<std::uint64_t>(c.systolic.cols) * static_cast<std::uint64_t>(f.mu) * share;
  g.tile_n = static_cast<std::uint64_t>(c.systolic.rows) * static_cast<std::uint64_t>(f.racs_per_pe);
  g.passes = (planes + mpus - 1) / mpus;
  return g;
}

FiglutAccelerator::FiglutAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config,
                                     const FiglutConfig& figlut)
    : WsAccelerator(name, config, gemm_config(config, figlut), gemm_config(config, figlut, true)),
      m_figlut(figlut),
      m_geometry(gemm_config(config, figlut)) {
  install(std::make_unique<BitPlaneWeights>(config.formats.weight_bits, figlut.mpus),
          std::make_unique<LutDatapath>(config.formats.weight_bits, figlut.mpus, figlut.mu),
          std::make_unique<BitPlaneWeights>(config.formats.kv_bits, figlut.mpus));
  m_lut_builds = m_stats.add("lut_builds", "LUTs",
                             "half-size LUTs generated (one per mu activations per input row per tile pass)");
  m_rac_reads = m_stats.add("rac_reads", "reads", "LUT reads accumulated (one per mu weights of one bit-plane)");
}

std::vector<const StatGroup*> FiglutAccelerator::stat_groups() {
  std::vector<const StatGroup*> g = WsAccelerator::stat_groups();
  g.push_back(&m_stats);
  return g;
}

std::uint64_t FiglutAccelerator::weight_bytes(std::uint64_t n, std::uint64_t k) const {
  return n * static_cast<std::uint64_t>(m_config.formats.weight_bits) * bytes_for_bits(k);
}

void FiglutAccelerator::check(const GemmDescriptor& op) const {
  if (m_geometry.tile_k % 8 != 0)
    throw InputError(
        fmt::format("figlut: a weight tile of systolic.cols x figlut.mu x MPUs per plane = {} "
                    "activations must be a multiple of 8 (whole bytes of bit-planes)",
                    m_geometry.tile_k));
  if (m_config.formats.act_bits != 16 || m_config.formats.out_bits != 16)
    throw InputError("figlut: formats.act_bits and formats.out_bits must be 16 (FP16 activations and outputs)");
  if (m_config.formats.weight_bits > 8)
    throw InputError(
        fmt::format("formats.weight_bits: {} bit-planes; figlut takes 1 to 8", m_config.formats.weight_bits));
  WsAccelerator::check(op);
}

std::uint64_t FiglutAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand == GemmOperand::kv_cache) return WsAccelerator::execute(op);
  const auto mu = static_cast<std::uint64_t>(m_figlut.mu);
  const std::uint64_t slices = (op.k + mu - 1) / mu;
  const std::uint64_t n_tiles = (op.n + m_geometry.tile_n - 1) / m_geometry.tile_n;
  m_stats.inc(m_lut_builds, static_cast<double>(op.m * slices * n_tiles * m_geometry.passes));
  m_stats.inc(m_rac_reads,
              static_cast<double>(op.m * slices * op.n * static_cast<std::uint64_t>(m_config.formats.weight_bits)));
  return WsAccelerator::execute(op);
}

EncodedGemm FiglutAccelerator::encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                                           std::uint64_t n, std::uint64_t k) const {
  const int q = m_config.formats.weight_bits;
  const auto planes = static_cast<std::uint64_t>(q);
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
  const BitPlaneWeights layout(q, m_figlut.mpus);
  e.weights.assign(weight_bytes(n, k), 0);
  const WsTiler tiler(1, k, n, m_geometry.tile_k, m_geometry.tile_n, 1, m_geometry.passes);
  for (std::uint64_t i = 0; i < tiler.tiles_per_block(); ++i) {
    const WsTile t = tiler.at(i);
    std::uint8_t* tile = e.weights.data() + layout.offset(t, k);
    const std::uint64_t p0 = t.pass * static_cast<std::uint64_t>(m_figlut.mpus);
    for (std::uint64_t p = 0; p < layout.planes_in(t.pass); ++p)
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

}  // namespace eva
