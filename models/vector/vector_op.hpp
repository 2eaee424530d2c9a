#pragma once
// One vector operation as every accelerator runs it: the DMA brings the FP16
// operands into the input buffer, the vector unit works, the result goes back
// to DRAM. Timing only: the vector unit models time, not values.
#include <cstdint>

#include "common/energy.hpp"
#include "common/op_descriptor.hpp"
#include "common/timeline.hpp"
#include "dma/dma.hpp"
#include "vector/vector_unit.hpp"

namespace eva {

inline std::uint64_t run_vector_op(Dma& dma, VectorUnit& vector, BufferTraffic& traffic, const VectorDescriptor& op) {
  const std::uint64_t bytes = op.rows * op.cols * 2;  // FP16
  const int operands = vector_op_binary(op.op) ? 2 : 1;
  const Dma::Transfer a = dma.start_read(op.in_addr, bytes, 1, bytes, nullptr);
  if (operands == 2) dma.read(op.in2_addr, bytes, nullptr);
  Dma::wait_for(a);
  traffic.write(BufferTraffic::input, static_cast<double>(operands * bytes * 8));
  traffic.read(BufferTraffic::input, static_cast<double>(operands * bytes * 8));
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  const std::uint64_t cycles = vector.run(op.op, op.rows, op.cols);
  if (Timeline* t = Timeline::of(vector)) t->span("vector", op.name, start, sc_core::sc_time_stamp());
  traffic.write(BufferTraffic::output, static_cast<double>(bytes * 8));
  traffic.read(BufferTraffic::output, static_cast<double>(bytes * 8));
  dma.write(op.out_addr, bytes, nullptr);
  return cycles;
}

}  // namespace eva
