#pragma once
// FIGLUT (`figlut`): FP16 activations, weights as binary-coded bit-planes,
// LUT-based read-accumulate arrays, on the shared weight-stationary skeleton.
//
// One array step takes a weight tile of K_t = cols x mu x p activations by
// N_t = rows x racs_per_pe outputs, where p = ceil(mpus / planes) MPUs share
// the planes' work along K; with more planes than MPUs the tile is taken in
// ceil(planes / mpus) passes. Per tile the timing is the array's convention
// over the physical MPU (rows x cols) plus systolic.tile_overhead_cycles
// (LUT generation 2 + reduction 2 in the artifact's figlut.py).
//
// Weights in DRAM: uniform INT-q per output row (scale s, zero z) converted to
// BCQ (alpha_i = s 2^(i-1), offset per row). Column tile n0 starts at byte
// n0 * q * ceil(K/8); inside it, tile (k0, pass) at q * N_t * k0/8 plus
// pass * mpus * N_t * ceil(K_t/8); a tile is [plane][row][K_t bits, LSB
// first, padded to bytes]. Parameters: FP16 alpha[N][q], then FP16 offset[N].
// Conventions and sources: models/baselines/figlut/README.md.
#include <systemc>

#include "baselines/figlut/figlut_config.hpp"
#include "systolic/ws_accelerator.hpp"

namespace eva {

class FiglutAccelerator : public WsAccelerator {
 public:
  FiglutAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config, const FiglutConfig& figlut);

  // The PEs' half-size LUTs (FP32 entries), one bank per PE, read by its
  // RACs through the array's lane_socket.
  Sram lut;

  void check(const GemmDescriptor& op) const override;
  std::vector<const StatGroup*> stat_groups() override;
  EncodedGemm encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m, std::uint64_t n,
                          std::uint64_t k) const override;

  // The geometry for `operand`: the layers' weights, the KV cache (its bits
  // as planes) or dense FP16 weights (16 planes).
  using Operand = GemmOperand;
  static WsGemmConfig gemm_config(const WsAcceleratorConfig& c, const FiglutConfig& f,
                                  Operand operand = Operand::weights);
  static SramConfig lut_sram(const WsAcceleratorConfig& c, const FiglutConfig& f);

 protected:
  std::uint64_t weight_bytes(std::uint64_t n, std::uint64_t k) const override;

 private:
  const FiglutConfig m_figlut;
  const WsGemmConfig m_geometry;
};

}  // namespace eva
