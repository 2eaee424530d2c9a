#pragma once
// FIGNA (`figna`): FP16 activations pre-aligned to integers per block, INT4
// weights, an integer weight-stationary array, on the shared skeleton.
//
// Per tile and input row, the edge of the array aligns the tile's K-slice of
// activations to their largest exponent (figna::align_block, with
// figna.guard_bits); each PE multiplies integers, A_i x (q - z); the column's
// integer sum converts back exactly to FP32, is scaled by the output
// channel's s and added into the FP32 accumulator (BASELINES.md 2.1).
// Outputs are FP16.
//
// Weights in DRAM: unsigned INT-q codes (formats.weight_bits) tile-major.
// Parameters: float32 s per output channel, then float32 z per channel.
// Conventions and sources: models/baselines/figna/README.md.
#include <systemc>

#include "baselines/figna/figna_config.hpp"
#include "systolic/ws_accelerator.hpp"

namespace eva {

class FignaAccelerator : public WsAccelerator {
 public:
  FignaAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config, const FignaConfig& figna);

  void check(const GemmDescriptor& op) const override;
  EncodedGemm encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m, std::uint64_t n,
                          std::uint64_t k) const override;
};

}  // namespace eva
