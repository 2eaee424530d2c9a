#pragma once
// One vector operation as every accelerator runs it: the DMA brings the FP16
// operands into the input buffer, the vector unit reads them through its
// buffer port and works, its result goes through the output buffer back to
// DRAM. Operands larger than a buffer stream through it in pieces. Timing
// only: the vector unit models time, not values.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/energy.hpp"
#include "common/op_descriptor.hpp"
#include "common/timeline.hpp"
#include "dma/dma.hpp"
#include "vector/vector_unit.hpp"

namespace eva {

// The windows of the input and output buffers on the accelerator's bus.
struct VectorBuffers {
  std::uint64_t input = 0, input_size = 0, output = 0, output_size = 0;
};

inline std::uint64_t run_vector_op(Dma& dma, VectorUnit& vector, const VectorBuffers& b, const VectorDescriptor& op) {
  const std::uint64_t bytes = op.rows * op.cols * 2;  // FP16
  const int operands = vector_op_binary(op.op) ? 2 : 1;
  std::vector<Dma::Transfer> loads;
  for (int o = 0; o < operands; ++o)
    for (std::uint64_t done = 0; done < bytes;) {
      const std::uint64_t piece = std::min(bytes - done, b.input_size);
      loads.push_back(dma.start_load((o ? op.in2_addr : op.in_addr) + done, piece, 1, piece, b.input, true));
      done += piece;
    }
  for (const Dma::Transfer& t : loads) Dma::wait_for(t);
  // Its operands are in the input buffer: the next descriptor's may load.
  dma.operands_consumed();
  vector.buffer_port.stream(tlm::TLM_READ_COMMAND, b.input, b.input_size, operands * bytes);
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  const std::uint64_t cycles = vector.run(op.op, op.rows, op.cols);
  if (Timeline* t = Timeline::of(vector)) t->span("vector", op.name, start, sc_core::sc_time_stamp());
  // The result through the output buffer: written by the unit, read as it drains.
  vector.buffer_port.stream(tlm::TLM_WRITE_COMMAND, b.output, b.output_size, bytes);
  vector.buffer_port.stream(tlm::TLM_READ_COMMAND, b.output, b.output_size, bytes);
  dma.write(op.out_addr, bytes, nullptr);
  return cycles;
}

}  // namespace eva
