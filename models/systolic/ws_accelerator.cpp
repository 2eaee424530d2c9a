#include "systolic/ws_accelerator.hpp"

#include "common/error.hpp"
#include "vector/vector_op.hpp"

namespace eva {

WsAccelerator::WsAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config,
                             const WsGemmConfig& gemm, const WsGemmConfig& kv_gemm, const WsGemmConfig& fp16_gemm,
                             std::uint64_t pes)
    : Accelerator(name),
      dma("dma", config.dma),
      array("array", config.systolic, config.clock_mhz,
            array_power(config.energy, config.area,
                        pes ? pes
                            : static_cast<std::uint64_t>(config.systolic.rows) *
                                  static_cast<std::uint64_t>(config.systolic.cols))),
      vector("vector", config.vector, config.clock_mhz,
             vector_power(config.energy, config.area, static_cast<std::uint64_t>(config.vector.lanes))),
      input_buffer("input_buffer", buffer_sram(config, config.buffers.input_kib, config.energy.input),
                   config.clock_mhz),
      weight_buffer("weight_buffer", buffer_sram(config, config.buffers.weight_kib, config.energy.weight),
                    config.clock_mhz),
      output_buffer("output_buffer", buffer_sram(config, config.buffers.output_kib, config.energy.output),
                    config.clock_mhz),
      bus("bus", config.check_protocol),
      m_config(config),
      m_clock(config.clock_mhz),
      m_gemm(dma, array, buffer_map(config.buffers), gemm),
      m_kv_gemm(dma, array, buffer_map(config.buffers), kv_gemm),
      m_fp16_gemm(dma, array, buffer_map(config.buffers), fp16_gemm) {
  const WsBuffers map = buffer_map(config.buffers);
  bus.attach(input_buffer.target_socket, map.input, input_buffer.size());
  bus.attach(weight_buffer.target_socket, map.weight, weight_buffer.size());
  bus.attach(output_buffer.target_socket, map.output, output_buffer.size());
  dma.sram_socket.bind(bus.target_socket);
  array.buffer_port.bind(bus.target_socket);
  vector.buffer_port.bind(bus.target_socket);
}

WsBuffers WsAccelerator::buffer_map(const BufferConfig& b) {
  const std::uint64_t in = static_cast<std::uint64_t>(b.input_kib) * 1024;
  const std::uint64_t w = static_cast<std::uint64_t>(b.weight_kib) * 1024;
  return WsBuffers{0, in, in + w};
}

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
  if (op.operand == GemmOperand::fp16_weights) {
    if (op.functional) throw InputError(std::string(basename()) + ": FP16 weights are modelled in timing mode only");
    m_fp16_gemm.check(op, *m_fp16);
    return;
  }
  m_gemm.check(op, *m_weights);
}

std::uint64_t WsAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand == GemmOperand::kv_cache) return m_kv_gemm.run(op, *m_kv, nullptr, m_kv_storage.get());
  if (op.operand == GemmOperand::fp16_weights) return m_fp16_gemm.run(op, *m_fp16, nullptr, m_fp16_storage.get());
  return m_gemm.run(op, *m_weights, m_datapath.get(), m_storage.get());
}

std::uint64_t WsAccelerator::execute_vector(const VectorDescriptor& op) {
  const WsBuffers map = buffer_map(m_config.buffers);
  return run_vector_op(dma, vector, VectorBuffers{map.input, input_buffer.size(), map.output, output_buffer.size()},
                       op);
}

std::vector<const StatGroup*> WsAccelerator::stat_groups() {
  std::vector<const StatGroup*> g = {&dma.stats(), &array.stats(), &vector.stats()};
  for (Sram* b : {&input_buffer, &weight_buffer, &output_buffer}) {
    b->flush_stats();
    g.push_back(&b->stats());
  }
  return g;
}

}  // namespace eva
