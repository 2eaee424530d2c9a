#pragma once
// ANT (`ant`): adaptive numeric types on the shared weight-stationary
// skeleton. Each tensor is encoded in the type (int, flint or power of two)
// that fits it best (ant_format.hpp, the ANT paper's per-tensor search); the
// PEs decode every operand to sign x integer x 2^exponent and accumulate
// exact integer products (BASELINES.md 1.4).
//
// Precision: formats.act_bits and formats.weight_bits are 8 or 4. A PE is an
// 8-bit unit that splits into 2 x 2 4-bit units (BitFusion style), so each
// 4-bit operand doubles the tile along its dimension (BASELINES.md 1.5:
// speed-up 8 / max(p, 4) per operand). 8-bit ANT selects int, as the
// reference code forces int above 6 bits.
//
// Parameters in DRAM: 4 bytes (activation type, its signedness, weight type,
// its signedness), then float32 alpha_a, the output scale s_y and alpha_w per
// output channel. Outputs: signed integers of formats.out_bits with scale s_y.
// Conventions and sources: models/baselines/ant/README.md.
#include <systemc>

#include "systolic/ws_accelerator.hpp"

namespace eva {

class AntAccelerator : public WsAccelerator {
 public:
  AntAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config);

  void check(const GemmDescriptor& op) const override;
  EncodedGemm encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m, std::uint64_t n,
                          std::uint64_t k) const override;

  static WsGemmConfig gemm_config(const WsAcceleratorConfig& c);

 private:
  const WsGemmConfig m_geometry;
};

}  // namespace eva
