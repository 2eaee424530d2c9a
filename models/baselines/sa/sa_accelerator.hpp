#pragma once
// The plain weight-stationary systolic-array accelerator (`sa`): a DMA, the
// array and on-chip weight, input and output buffers, run by the shared
// weight-stationary GEMM control (WsGemm) on dense A8W8 weights.
#include <cstdint>

#include <systemc>

#include "baselines/sa/sa_config.hpp"
#include "common/accelerator.hpp"
#include "common/op_descriptor.hpp"
#include "dma/dma.hpp"
#include "systolic/systolic_array.hpp"
#include "systolic/ws_gemm.hpp"

namespace eva {

class SaAccelerator : public Accelerator {
 public:
  Dma dma;
  SystolicArray array;

  SaAccelerator(const sc_core::sc_module_name& name, const SaConfig& config);
  SaAccelerator(const SaAccelerator&) = delete;
  SaAccelerator& operator=(const SaAccelerator&) = delete;

  tlm::tlm_initiator_socket<>& memory_socket() override { return dma.initiator_socket; }
  OperandBytes operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const override;
  // Throws InputError when the GEMM cannot be tiled into this accelerator's
  // buffers (a config that is too small for the shape).
  void check(const GemmDescriptor& op) const override;
  // Runs one GEMM (timing only); blocks the calling SystemC thread until its
  // outputs are in DRAM. Returns the array's cycles with memory never late.
  std::uint64_t execute(const GemmDescriptor& op) override;
  std::vector<const StatGroup*> stat_groups() override { return {&dma.stats(), &array.stats()}; }

 private:
  const SaConfig m_config;
  WsGemm m_gemm;
  DenseWeights m_weights;
};

}  // namespace eva
