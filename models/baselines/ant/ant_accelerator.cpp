#include "baselines/ant/ant_accelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "baselines/ant/ant_format.hpp"
#include "baselines/sa/int_datapath.hpp"
#include "common/error.hpp"
#include "pack/operand_layout.hpp"

namespace eva {

namespace {

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
          const ant::PeOperand& b = w[kk * t.n + nn];
          // The types are parameters in memory: one the encoder never picks
          // at this width (PoT at 8 bits: 2^254) shifts a product past
          // int64. Magnitudes are below 2^9, so up to 2^40 the PE's integer
          // product is exact; beyond, double holds it exactly.
          if (a.e + b.e <= 40) {
            std::int64_t product = 0;
            ant::pe_mac(product, a, b);
            acc[mm * t.n + nn] += static_cast<double>(product);
          } else {
            const double product = std::ldexp(static_cast<double>(a.i) * static_cast<double>(b.i), a.e + b.e);
            acc[mm * t.n + nn] += a.negative != b.negative ? -product : product;
          }
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
  const WsGeometry a = ant_geometry(c.systolic, c.formats);
  g.tile_k = a.tile_k;
  g.tile_n = a.tile_n;
  return g;
}

AntAccelerator::AntAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config)
    : WsAccelerator(name, config, gemm_config(config), kv_gemm_config(config), fp16_gemm_config(config)),
      m_geometry(gemm_config(config)) {
  install(std::make_unique<DenseWeights>(config.formats.weight_bits), std::make_unique<AntDatapath>(config.formats),
          std::make_unique<DenseWeights>(DenseWeights::kv_cache(config.formats)), std::make_unique<DenseWeights>(16));
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
  return encode_ant_gemm(m_config.formats, x, w, m, n, k, WsGeometry{m_geometry.tile_k, m_geometry.tile_n, 1});
}

}  // namespace eva
