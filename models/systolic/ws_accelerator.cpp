#include "systolic/ws_accelerator.hpp"

#include "common/error.hpp"
#include "vector/vector_op.hpp"

namespace eva {

WsGemmConfig WsAccelerator::kv_gemm_config(const WsAcceleratorConfig& c) {
  return WsGemmConfig{c.systolic, c.buffers, c.formats.kv_formats(), c.tiling};
}

WsAccelerator::WsAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config,
                             const WsGemmConfig& gemm, const WsGemmConfig& kv_gemm)
    : Accelerator(name),
      dma("dma", config.dma),
      array("array", config.systolic, config.clock_mhz),
      vector("vector", config.vector, config.clock_mhz),
      m_config(config),
      m_clock(config.clock_mhz),
      m_gemm(dma, array, m_traffic, gemm),
      m_kv_gemm(dma, array, m_traffic, kv_gemm) {}

std::uint64_t WsAccelerator::weight_bytes(std::uint64_t n, std::uint64_t k) const {
  return packed_bytes(k * n, m_config.formats.weight_bits);
}

OperandBytes WsAccelerator::operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
  OperandBytes b;
  b.activations = packed_bytes(m * k, m_config.formats.act_bits);
  b.weights = weight_bytes(n, k);
  GemmDescriptor op;
  op.m = m;
  op.n = n;
  op.k = k;
  b.codebooks = m_datapath->parameter_bytes(op);
  b.outputs = packed_bytes(m * n, m_config.formats.out_bits);
  return b;
}

void WsAccelerator::check(const GemmDescriptor& op) const {
  if (op.operand == GemmOperand::kv_cache) {
    if (op.functional) throw InputError(std::string(basename()) + ": attention is modelled in timing mode only");
    m_kv_gemm.check(op, *m_kv);
    return;
  }
  m_gemm.check(op, *m_weights);
}

std::uint64_t WsAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand == GemmOperand::kv_cache) return m_kv_gemm.run(op, *m_kv);
  return m_gemm.run(op, *m_weights, m_datapath.get());
}

std::uint64_t WsAccelerator::execute_vector(const VectorDescriptor& op) {
  return run_vector_op(dma, vector, m_traffic, op);
}

std::vector<const StatGroup*> WsAccelerator::stat_groups() {
  return {&dma.stats(), &array.stats(), &vector.stats(), &m_traffic.stats()};
}

double WsAccelerator::array_busy_cycles() const { return array.stats().get("busy_cycles"); }

Breakdown WsAccelerator::energy_breakdown_j(double seconds) const {
  const EnergyConfig& e = m_config.energy;
  const double cycle_s = 1e-6 / m_config.clock_mhz;
  Breakdown b;
  b["array"] = block_energy_j(e, e.array_w, array_busy_cycles() * cycle_s, seconds);
  b["vector"] = block_energy_j(e, e.vector_w, vector.stats().get("busy_cycles") * cycle_s, seconds);
  b["buffers"] = m_traffic.energy_j(e) + e.sram_leakage_w * seconds;
  return b;
}

Breakdown WsAccelerator::area_breakdown_mm2() const {
  return {
      {"array", m_config.area.array_mm2}, {"vector", m_config.area.vector_mm2}, {"buffers", m_config.area.buffer_mm2}};
}

}  // namespace eva
