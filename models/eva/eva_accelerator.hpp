#pragma once
// The EVA accelerator. Decode mode (input rows <= vq.prefill_above_m): VQ
// layers as an input-codebook GEMM on the array reconfigured as 32 x 8 FP16
// and conflict-free lookups in the epilogue units, as below. Prefill mode
// (more rows): the 32 x 32 INT8 array runs weight-stationary tiles (WsGemm)
// of weights dequantised on chip from the indices (VqWeights), A8 in and out.
//
// Per pass (EvaTiler): the array computes the output codebook OC (sub-vectors
// x codebook entries, FP16) into one half of the OC SRAM, row r in bank r;
// the epilogue then reads, for each output column, one OC entry per row as
// the column's indices say, all in different banks, and adds them into the
// column's accumulator. The other OC half takes the next pass meanwhile.
// Five threads per operation: `fetch` (activations, codebooks), `indices`
// (index chunks streamed by the DMA), `array` (OC passes, written into the OC
// SRAM through the array's lane_socket), `epilogue` (hands each chunk of columns
// to the epilogue units, which look the entries up through their own sockets
// into the OC SRAM, and accumulates their sums) and `store` (outputs, FP16)
// at the end of each input-row tile.
// Functional mode moves and computes real data; timing mode runs the same
// control with time only.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "bus/local_bus.hpp"
#include "common/accelerator.hpp"
#include "common/clock.hpp"
#include "common/worker_pool.hpp"
#include "dma/dma.hpp"
#include "epilogue/epilogue_unit.hpp"
#include "eva/eva_config.hpp"
#include "eva/eva_mode.hpp"
#include "eva/eva_tiler.hpp"
#include "sram/buffer_port.hpp"
#include "sram/sram.hpp"
#include "systolic/systolic_array.hpp"
#include "systolic/ws_gemm.hpp"
#include "vector/vector_unit.hpp"

namespace eva {

struct EvaPlan;

class EvaAccelerator : public Accelerator {
 public:
  Dma dma;
  SystolicArray array;
  Sram oc;
  sc_core::sc_vector<EpilogueUnit> epilogue_units;
  VectorUnit vector;
  // The on-chip buffers the DMA fills through the local bus: activations,
  // codebooks, indices (buffers.weight_kib) and the outputs' accumulators.
  Sram input_buffer, codebook_buffer, index_buffer, output_buffer;
  LocalBus bus;
  // The epilogue's accumulate and write-back stage: index reads for the
  // units, accumulator updates, the outputs' drain.
  BufferPort buffer_port;

  EvaAccelerator(const sc_core::sc_module_name& name, const EvaConfig& config);

  tlm::tlm_initiator_socket<>& memory_socket() override { return dma.initiator_socket; }
  Dma& dma_engine() override { return dma; }
  OperandBytes operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const override;
  void check(const GemmDescriptor& op) const override;
  std::uint64_t execute(const GemmDescriptor& op) override;
  // Reads the operands (FP16), runs the vector unit, writes the result.
  std::uint64_t execute_vector(const VectorDescriptor& op) override;
  void check(const VectorDescriptor&) const override {}
  using Accelerator::check;
  std::vector<const StatGroup*> stat_groups() override;
  std::uint64_t bank_conflict_cycles() const override { return oc.conflict_cycles(); }
  std::vector<std::uint8_t> vq_index_image(const VqMatrix& w, std::uint64_t m) const override;

  EvaTiler tiler(std::uint64_t m, std::uint64_t k, std::uint64_t n) const;
  // The buffers' windows on the local bus: input, codebook, index, output.
  static std::vector<std::uint64_t> buffer_bases(const BufferConfig& b);
  // The OC SRAM as configured, priced at the architecture's SRAM figures.
  static SramConfig oc_sram(const EvaConfig& c);
  // Whether an FC layer of M x K by K x N runs in INT8 mode, by
  // eva.mode_policy. Functional layers always follow vq.prefill_above_m: INT8
  // mode has no functional model.
  bool int8_mode(std::uint64_t m, std::uint64_t k, std::uint64_t n, bool functional = false) const;
  // The two modes' estimates for such a layer (eva_mode.hpp).
  ModeCost vq_cost(std::uint64_t m, std::uint64_t k, std::uint64_t n) const;
  ModeCost int8_cost(std::uint64_t m, std::uint64_t k, std::uint64_t n) const;
  // Cycles the epilogue needs per column for `rows` lookups.
  std::uint64_t column_cycles(std::uint64_t rows) const;

 private:
  bool above_threshold(std::uint64_t m) const { return m > static_cast<std::uint64_t>(m_config.vq.prefill_above_m); }
  // VQ-lookup mode's passes, walked once: the largest activation and
  // codebook halves a pass needs, the cycles with memory never late, and the
  // bytes fetch, fetch_indices and store move.
  struct VqTotals {
    std::uint64_t activation_bytes = 0, codebook_bytes = 0, cycles = 0, dram_bytes = 0;
  };
  VqTotals vq_totals(const EvaTiler& t, std::uint64_t n) const;
  // The last layer int8_mode estimated (estimate policy only).
  struct ModeMemo {
    bool valid = false;
    std::uint64_t m = 0, k = 0, n = 0;
    bool int8 = false;
  };
  mutable ModeMemo m_mode_memo;
  // What keeps a layer from VQ-lookup mode's buffers ("" when it fits).
  std::string vq_misfit(const EvaTiler& t, const VqTotals& totals) const;
  // The codebooks' bytes for a K x N layer (every GPTVQ group's).
  std::uint64_t codebook_bytes(std::uint64_t k, std::uint64_t n) const;
  void fetch(EvaPlan& plan);
  void fetch_indices(EvaPlan& plan);
  void compute_oc(EvaPlan& plan);
  void epilogue(EvaPlan& plan);
  void store(EvaPlan& plan);

  const EvaConfig m_config;
  WorkerPool m_workers;  // an operation's pipeline stages
  const ClockDomain m_clock;
  const std::uint64_t m_lookups;   // epilogue.units x epilogue.adder_inputs
  const std::uint64_t m_depth;     // OC entries per bank in one half
  const std::uint64_t m_pipeline;  // adder-tree depth: log2(adder inputs) + 1
  // Local addresses of the buffers on the bus.
  std::uint64_t m_input_base, m_codebook_base, m_index_base, m_output_base;
  WsGemm m_gemm;       // prefill mode
  WsGemm m_attention;  // attention over the KV cache
  WsGemm m_fp16_gemm;  // GEMMs over dense FP16 weights (an FP16 LM head)
  DenseWeights m_kv, m_fp16;
};

}  // namespace eva
