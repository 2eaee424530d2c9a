#pragma once
// The plain weight-stationary systolic-array accelerator (`sa`): a DMA, the
// array and on-chip weight, input and output buffers, run by a control that
// executes GEMM descriptors.
//
// Control per GEMM: three threads overlap as double-buffered hardware does.
// `fetch` streams each weight tile (and the input rows it needs) from DRAM into
// a free buffer slot; `compute` hands ready tiles to the array; `store` writes
// each finished block of outputs back once the array has produced it. Buffer
// capacity bounds how far fetch runs ahead; the array's cycle convention
// (systolic.weight_load) bounds compute; the DRAM model bounds the DMA.
#include <cstdint>

#include <systemc>

#include "baselines/sa/sa_config.hpp"
#include "common/accelerator.hpp"
#include "common/op_descriptor.hpp"
#include "dma/dma.hpp"
#include "systolic/systolic_array.hpp"
#include "systolic/ws_tiler.hpp"

namespace eva {

struct GemmPlan;

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
  void fetch(GemmPlan& plan);
  void compute(GemmPlan& plan);
  void store(GemmPlan& plan);

  const SaConfig m_config;
};

}  // namespace eva
