#include "baselines/sa/sa_accelerator.hpp"

#include "baselines/sa/int_datapath.hpp"
#include "pack/operand_layout.hpp"

namespace eva {

SaAccelerator::SaAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config)
    : WsAccelerator(name, config, WsGemmConfig{config.systolic, config.buffers, config.formats, config.tiling},
                    kv_gemm_config(config), fp16_gemm_config(config)) {
  install(std::make_unique<DenseWeights>(config.formats.weight_bits), std::make_unique<IntDatapath>(config.formats),
          std::make_unique<DenseWeights>(DenseWeights::kv_cache(config.formats)), std::make_unique<DenseWeights>(16));
}

EncodedGemm SaAccelerator::encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                                       std::uint64_t n, std::uint64_t k) const {
  return encode_int_gemm(m_config.formats, x, w, m, n, k, ws_geometry(m_config.systolic));
}

}  // namespace eva
