#include "baselines/figna/figna_accelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "baselines/figna/prealign.hpp"
#include "common/error.hpp"
#include "common/int_quant.hpp"
#include "pack/operand_layout.hpp"

namespace eva {

namespace {

class FignaDatapath : public WsDatapath {
 public:
  FignaDatapath(const FormatConfig& f, const FignaConfig& c) : m_f(f), m_c(c) {}

  std::uint64_t parameter_bytes(const GemmDescriptor& op) const override { return 8 * op.n; }
  void set_parameters(const GemmDescriptor& op, const std::vector<std::uint8_t>& bytes) override {
    m_scale.resize(op.n);
    m_zero.resize(op.n);
    std::memcpy(m_scale.data(), bytes.data(), op.n * 4);
    std::memcpy(m_zero.data(), bytes.data() + op.n * 4, op.n * 4);
  }
  void tile(const WsTile& t, const std::uint8_t* input, std::uint64_t first, std::uint64_t row_elems,
            const std::uint8_t* weights, double* acc) override {
    std::vector<half_bits> a(t.k);
    std::vector<std::int32_t> w(t.k);
    // Data the pre-alignment cannot take makes its outputs NaN, as in a float
    // datapath, rather than stop the simulation: an infinite or NaN
    // activation (its block has no exponent to align to), a zero point that
    // is no INT32, or weights beyond the block accumulator's 63 bits.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::uint64_t mm = 0; mm < t.m; ++mm) {
      std::memcpy(a.data(), input + 2 * (first + mm * row_elems), t.k * 2);
      const bool finite = std::none_of(a.begin(), a.end(), [](half_bits h) { return (h & 0x7c00u) == 0x7c00u; });
      const figna::AlignedBlock block =
          finite ? figna::align_block(a.data(), t.k, m_c.guard_bits) : figna::AlignedBlock{};
      for (std::uint64_t nn = 0; nn < t.n; ++nn) {
        const float zero = m_zero[t.n0 + nn];
        float part = nan;
        if (finite && std::fabs(zero) < 0x1p30f) {
          const auto z = static_cast<std::int32_t>(zero);
          for (std::uint64_t kk = 0; kk < t.k; ++kk)
            w[kk] = static_cast<std::int32_t>(unpack_index(weights, kk * t.n + nn, m_f.weight_bits)) - z;
          try {
            part = static_cast<float>(figna::block_value(figna::int_dot(block, w.data()), block.e_max, block.guard));
          } catch (const std::overflow_error&) {
          }
        }
        float y = static_cast<float>(acc[mm * t.n + nn]);
        y += part * m_scale[t.n0 + nn];
        acc[mm * t.n + nn] = y;
      }
    }
  }
  void finish(const WsTile& t, const double* acc, std::uint8_t* out) override {
    doubles_to_fp16_bytes(acc, t.m * t.n, out);
  }

 private:
  FormatConfig m_f;
  FignaConfig m_c;
  std::vector<float> m_scale, m_zero;
};

}  // namespace

FignaAccelerator::FignaAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config,
                                   const FignaConfig& figna)
    : WsAccelerator(name, config, WsGemmConfig{config.systolic, config.buffers, config.formats, config.tiling},
                    kv_gemm_config(config), fp16_gemm_config(config)) {
  install(std::make_unique<DenseWeights>(config.formats.weight_bits),
          std::make_unique<FignaDatapath>(config.formats, figna),
          std::make_unique<DenseWeights>(DenseWeights::kv_cache(config.formats)), std::make_unique<DenseWeights>(16));
}

void FignaAccelerator::check(const GemmDescriptor& op) const {
  if (m_config.formats.act_bits != 16 || m_config.formats.out_bits != 16)
    throw InputError("figna: formats.act_bits and formats.out_bits must be 16 (FP16 activations and outputs)");
  if (m_config.formats.weight_bits > 8)
    throw InputError(
        fmt::format("formats.weight_bits: {}; figna takes 1- to 8-bit integer weights", m_config.formats.weight_bits));
  WsAccelerator::check(op);
}

EncodedGemm FignaAccelerator::encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                                          std::uint64_t n, std::uint64_t k) const {
  return encode_figna_gemm(m_config.formats, m_config.systolic, x, w, m, n, k);
}

}  // namespace eva
