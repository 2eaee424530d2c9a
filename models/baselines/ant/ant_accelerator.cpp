#include "baselines/ant/ant_accelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "baselines/ant/ant_format.hpp"
#include "baselines/sa/int_datapath.hpp"
#include "common/error.hpp"
#include "systolic/tile_layout.hpp"

namespace eva {

namespace {

// Tile growth of a BitFusion-style PE for an operand of `bits`.
std::uint64_t split(int bits) { return static_cast<std::uint64_t>(8 / std::max(bits, 4)); }

class AntDatapath : public WsDatapath {
 public:
  explicit AntDatapath(const FormatConfig& f) : m_f(f) {}

  std::uint64_t parameter_bytes(const GemmDescriptor& op) const override { return 4 + 4 * (2 + op.n); }
  void set_parameters(const GemmDescriptor& op, const std::vector<std::uint8_t>& bytes) override {
    m_act = {static_cast<ant::AntType>(bytes[0]), m_f.act_bits, bytes[1] != 0};
    m_weight = {static_cast<ant::AntType>(bytes[2]), m_f.weight_bits, bytes[3] != 0};
    std::vector<float> p(2 + op.n);
    std::memcpy(p.data(), bytes.data() + 4, p.size() * 4);
    m_act_alpha = p[0];
    m_out_scale = p[1];
    m_weight_alpha.assign(p.begin() + 2, p.end());
  }
  void tile(const WsTile& t, const std::uint8_t* input, std::uint64_t first, std::uint64_t row_elems,
            const std::uint8_t* weights, double* acc) override {
    // The decoders at the array's edges: each operand once per tile.
    std::vector<ant::PeOperand> w(t.k * t.n);
    for (std::uint64_t i = 0; i < w.size(); ++i)
      w[i] = ant::pe_decode(m_weight, unpack_index(weights, i, m_f.weight_bits));
    for (std::uint64_t mm = 0; mm < t.m; ++mm)
      for (std::uint64_t kk = 0; kk < t.k; ++kk) {
        const ant::PeOperand a = ant::pe_decode(m_act, unpack_index(input, first + mm * row_elems + kk, m_f.act_bits));
        for (std::uint64_t nn = 0; nn < t.n; ++nn) {
          std::int64_t product = 0;
          ant::pe_mac(product, a, w[kk * t.n + nn]);
          acc[mm * t.n + nn] += static_cast<double>(product);
        }
      }
  }
  void finish(const WsTile& t, const double* acc, std::uint8_t* out) override {
    for (std::uint64_t mm = 0; mm < t.m; ++mm)
      for (std::uint64_t nn = 0; nn < t.n; ++nn) {
        const double scale = ant::pe_scale(m_act, m_act_alpha, m_weight, m_weight_alpha[t.n0 + nn]);
        const std::int64_t q = quantize_symmetric(acc[mm * t.n + nn] * scale, m_out_scale, m_f.out_bits);
        pack_index(out, mm * t.n + nn, m_f.out_bits, static_cast<std::uint32_t>(q));
      }
  }

 private:
  FormatConfig m_f;
  ant::AntFormat m_act, m_weight;
  double m_act_alpha = 0, m_out_scale = 0;
  std::vector<float> m_weight_alpha;
};

}  // namespace

WsGemmConfig AntAccelerator::gemm_config(const WsAcceleratorConfig& c) {
  WsGemmConfig g{c.systolic, c.buffers, c.formats, c.tiling};
  g.tile_k = static_cast<std::uint64_t>(c.systolic.rows) * split(c.formats.act_bits);
  g.tile_n = static_cast<std::uint64_t>(c.systolic.cols) * split(c.formats.weight_bits);
  return g;
}

AntAccelerator::AntAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config)
    : WsAccelerator(name, config, gemm_config(config), kv_gemm_config(config)), m_geometry(gemm_config(config)) {
  install(std::make_unique<DenseWeights>(config.formats.weight_bits), std::make_unique<AntDatapath>(config.formats),
          std::make_unique<DenseWeights>(config.formats.kv_bits));
}

void AntAccelerator::check(const GemmDescriptor& op) const {
  for (const auto& [key, bits] :
       {std::pair{"act_bits", m_config.formats.act_bits}, std::pair{"weight_bits", m_config.formats.weight_bits}})
    if (bits != 4 && bits != 8)
      throw InputError(fmt::format("formats.{}: {}; ant's PEs take 8-bit or 4-bit operands", key, bits));
  WsAccelerator::check(op);
}

EncodedGemm AntAccelerator::encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                                        std::uint64_t n, std::uint64_t k) const {
  const FormatConfig& f = m_config.formats;
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
  e.weights = pack_tile_major(codes, k, n, m_geometry.tile_k, m_geometry.tile_n, f.weight_bits);

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

}  // namespace eva
