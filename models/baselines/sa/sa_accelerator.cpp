#include "baselines/sa/sa_accelerator.hpp"

#include "common/error.hpp"

namespace eva {

SaAccelerator::SaAccelerator(const sc_core::sc_module_name& name, const SaConfig& config)
    : Accelerator(name),
      dma("dma", config.dma),
      array("array", config.systolic, config.clock_mhz),
      m_config(config),
      m_gemm(dma, array, WsGemmConfig{config.systolic, config.buffers, config.formats, config.tiling}),
      m_weights(config.formats.weight_bits) {}

OperandBytes SaAccelerator::operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
  OperandBytes b;
  b.activations = packed_bytes(m * k, m_config.formats.act_bits);
  b.weights = packed_bytes(k * n, m_config.formats.weight_bits);
  b.outputs = packed_bytes(m * n, m_config.formats.out_bits);
  return b;
}

void SaAccelerator::check(const GemmDescriptor& op) const {
  if (op.functional) throw InputError("--arch sa: functional (data-carrying) runs are not modelled for sa yet");
  m_gemm.check(op, m_weights);
}

std::uint64_t SaAccelerator::execute(const GemmDescriptor& op) { return m_gemm.run(op, m_weights); }

}  // namespace eva
