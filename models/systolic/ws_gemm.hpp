#pragma once
// One GEMM on a weight-stationary array fed by a DMA: the control shared by
// every accelerator that runs dense or dequantised weights on the array (the
// `sa` baseline; EVA in prefill mode).
//
// Three threads overlap as double-buffered hardware does: `fetch` starts DMA
// transfers of each weight tile (through a WeightSource, which knows the
// weight format) and of the input rows it needs into a free buffer slot;
// `compute` hands ready tiles to the array, which advances time by its cycle
// convention (systolic.weight_load); `store` writes each finished block of
// outputs back once the array has produced it. Buffer capacity bounds how far
// fetch runs ahead; the DRAM model bounds the DMA.
#include <cstdint>

#include "common/accel_config.hpp"
#include "common/op_descriptor.hpp"
#include "dma/dma.hpp"
#include "systolic/systolic_array.hpp"
#include "systolic/ws_tiler.hpp"

namespace eva {

struct WsGemmConfig {
  SystolicConfig systolic;
  BufferConfig buffers;
  FormatConfig formats;
  TilingConfig tiling;
};

// Where a weight tile comes from. fetch() starts what the tile needs from
// memory (nothing if it is on chip already) and returns that transfer.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  virtual Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& tile) = 0;
  // Bytes of one R x C tile in the weight buffer, for sizing its slots.
  virtual std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const = 0;
};

// Dense weights, `bits` each, stored tile-major (see WsTiler).
class DenseWeights : public WeightSource {
 public:
  explicit DenseWeights(int bits) : m_bits(bits) {}
  Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& t) override {
    const std::uint64_t bytes = packed_bytes(t.k * t.n, m_bits);
    return dma.start_read(op.weight_addr + packed_bytes(t.weight_offset, m_bits), bytes, 1, bytes, nullptr);
  }
  std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const override {
    return packed_bytes(rows * cols, m_bits);
  }

 private:
  int m_bits;
};

struct GemmPlan;

class WsGemm {
 public:
  WsGemm(Dma& dma, SystolicArray& array, const WsGemmConfig& config) : m_dma(dma), m_array(array), m_config(config) {}

  // Throws InputError when the GEMM cannot be tiled into the buffers.
  void check(const GemmDescriptor& op, const WeightSource& weights) const;
  // Runs one GEMM (timing only) from a SystemC thread; returns the array's
  // cycles with memory never late.
  std::uint64_t run(const GemmDescriptor& op, WeightSource& weights);

 private:
  void fetch(GemmPlan& plan);
  void compute(GemmPlan& plan);
  void store(GemmPlan& plan);

  Dma& m_dma;
  SystolicArray& m_array;
  const WsGemmConfig m_config;
};

}  // namespace eva
