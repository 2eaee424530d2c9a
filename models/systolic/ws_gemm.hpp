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
//
// Functional runs move real bytes and hand each tile to a WsDatapath, the
// arithmetic of the accelerator's processing elements.
#include <cstdint>
#include <vector>

#include "common/accel_config.hpp"
#include "common/energy.hpp"
#include "common/op_descriptor.hpp"
#include "common/worker_pool.hpp"
#include "dma/dma.hpp"
#include "systolic/systolic_array.hpp"
#include "systolic/ws_tiler.hpp"

namespace eva {

struct WsGemmConfig {
  // The array's shape and cycle convention in this GEMM's mode (its FP16
  // mode has fewer columns).
  SystolicConfig systolic;
  BufferConfig buffers;
  FormatConfig formats;
  TilingConfig tiling;
  // The weight tile one array step takes, K x N: 0 means the array's rows x
  // cols. A LUT-based array covers more weights per step than it has PEs.
  std::uint64_t tile_k = 0, tile_n = 0;
  // Passes the array makes over each weight tile (bit-serial bit-plane groups).
  std::uint64_t passes = 1;
};

// A GEMM over a dense operand of `formats` (attention over the KV cache,
// dense FP16 weights) on the array's own tiles, FP16 activations and outputs:
// an FP16 operand in the array's FP16 mode (SystolicConfig::fp16_mode, unless
// systolic.dense_fp16 is the artifact's `int8_rate`), a
// quantised one at the native rate, its activations taken to the array's
// integer format on the way in (an assumption: none of the published designs
// modelled here describes its attention datapath).
inline WsGemmConfig dense_gemm_config(const SystolicConfig& systolic, const BufferConfig& buffers,
                                      const FormatConfig& formats, const TilingConfig& tiling) {
  const bool fp16 = formats.weight_bits == 16 && systolic.dense_fp16 == DenseFp16::fp16_mode;
  return WsGemmConfig{fp16 ? systolic.fp16_mode() : systolic, buffers, formats, tiling};
}

// Where an operand lands on chip: a slot of a buffer, at a local address of
// the accelerator's bus, `size` bytes; `data`: the load carries data
// (functional runs) or only time.
struct BufferSlot {
  std::uint64_t at = 0, size = 0;
  bool data = false;
};

// The local addresses of the buffers a WsGemm uses.
struct WsBuffers {
  std::uint64_t input = 0, weight = 0, output = 0;
};

// Where a weight tile comes from. fetch() starts what the tile needs from
// memory (nothing if it is on chip already) and returns that transfer.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // `slot`: the weight buffer slot the tile's bytes go to.
  virtual Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& tile, const BufferSlot& slot) = 0;
  // Bytes of one R x C tile in the weight buffer, for sizing its slots.
  virtual std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const = 0;
  // Bytes of one R x C tile as the array's load path moves it into the PEs'
  // shadow registers (the overlapped load time): the buffer's bytes unless the
  // weights are decoded on the way (EVA's dequantised INT8).
  virtual std::uint64_t array_tile_bytes(std::uint64_t rows, std::uint64_t cols) const {
    return tile_buffer_bytes(rows, cols);
  }
  // Bytes of the tile as fetched (functional runs size their buffers by it).
  virtual std::uint64_t tile_bytes(const WsTile& t) const = 0;
};

// The arithmetic of the processing elements, for functional runs. Accumulators
// are doubles wide enough for every datapath's exact integer sums; a datapath
// with floating-point accumulators rounds them itself.
class WsDatapath {
 public:
  virtual ~WsDatapath() = default;
  // Per-operation parameters (scales) that sit in DRAM at op.codebook_addr,
  // read before the first tile; `bytes` of them (0: none).
  virtual std::uint64_t parameter_bytes(const GemmDescriptor& op) const = 0;
  virtual void set_parameters(const GemmDescriptor& op, const std::vector<std::uint8_t>& bytes) = 0;
  // acc[mm * t.n + nn] += x[mm][kk] * W[kk][nn] over the tile, where x element
  // (mm, kk) is element `first + mm * row_elems + kk` of `input` (memory
  // format) and `weights` holds the tile as its WeightSource fetched it.
  virtual void tile(const WsTile& t, const std::uint8_t* input, std::uint64_t first, std::uint64_t row_elems,
                    const std::uint8_t* weights, double* acc) = 0;
  // The finished accumulators of a t.m x t.n output tile, written as outputs
  // (t.m rows of t.n elements, memory format, rows packed) into `out`.
  virtual void finish(const WsTile& t, const double* acc, std::uint8_t* out) = 0;
};

// Storage inside the processing elements that every tile uses (FIGLUT's
// LUTs), in its own banked SRAM. The compute thread hands it each tile just
// before the array runs it, in every mode, and it presents the tile's
// accesses to that SRAM (at the latest when the GEMM finishes). The array's cycle convention covers them: a PE
// storage is built so that its accesses never conflict, and its SRAM's bank
// model counts any conflict they would have.
class PeStorage {
 public:
  virtual ~PeStorage() = default;
  virtual void tile(const WsTile& t) = 0;
  // After a GEMM's last tile: anything still held is presented.
  virtual void finish() {}
};

// Dense weights, `bits` each, stored tile-major (see WsTiler); within a tile,
// row-major K x N.
class DenseWeights : public WeightSource {
 public:
  // Elements of `bits` each; in groups of `group` (0: none) that carry
  // `group_bytes` of parameters beside their elements (a quantised KV cache).
  explicit DenseWeights(int bits, int group = 0, int group_bytes = 0)
      : m_bits(bits), m_group(group), m_group_bytes(group_bytes) {}
  // The KV cache of `formats` (FormatConfig::kv_bytes).
  static DenseWeights kv_cache(const FormatConfig& formats) {
    return DenseWeights(formats.kv_bits, formats.kv_group, formats.kv_group_bytes);
  }
  Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& t, const BufferSlot& slot) override {
    const std::uint64_t bytes = bytes_of(t.k * t.n);
    return dma.start_load(op.weight_addr + bytes_of(t.weight_offset), bytes, 1, bytes, slot.at, !slot.data);
  }
  std::uint64_t tile_bytes(const WsTile& t) const override { return bytes_of(t.k * t.n); }
  std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const override {
    return bytes_of(rows * cols);
  }

 private:
  std::uint64_t bytes_of(std::uint64_t elements) const {
    return grouped_bytes(elements, m_bits, m_group, m_group_bytes);
  }
  int m_bits, m_group, m_group_bytes;
};

struct GemmPlan;

// The control reaches the buffers as the hardware does: the DMA loads inputs
// and weight tiles into buffer slots, the array reads them and reads and
// writes its partial sums through its buffer port (functional data by DMI);
// finished outputs leave through the DMA from the control's staging once
// their read from the output buffer is counted.
class WsGemm {
 public:
  WsGemm(Dma& dma, SystolicArray& array, const WsBuffers& buffers, const WsGemmConfig& config)
      : m_dma(dma), m_array(array), m_buffers(buffers), m_config(config) {}

  // Throws InputError when the GEMM cannot be tiled into the buffers.
  void check(const GemmDescriptor& op, const WeightSource& weights) const;
  // The schedule run() would take, before it runs: the array's cycles with
  // memory never late (run()'s result), how many input-row blocks read the
  // weights (each block reads all of them), and how many times the input is
  // read (1, or once per group of column tiles when it comes in slices).
  // Throws InputError as check() does.
  struct Schedule {
    std::uint64_t cycles = 0, weight_reads = 1, input_reads = 1;
  };
  Schedule schedule(const GemmDescriptor& op, const WeightSource& weights) const;
  // Runs one GEMM from a SystemC thread; returns the array's cycles with
  // memory never late. Functional operations need a datapath.
  // `storage`: the PEs' own storage, if they have one.
  std::uint64_t run(const GemmDescriptor& op, WeightSource& weights, WsDatapath* datapath = nullptr,
                    PeStorage* storage = nullptr);
  WsTiler tiler(const GemmDescriptor& op, std::uint64_t m_tile, std::uint64_t group = 1) const;

 private:
  void fetch(GemmPlan& plan);
  void compute(GemmPlan& plan);
  void store(GemmPlan& plan);

  Dma& m_dma;
  SystolicArray& m_array;
  const WsBuffers m_buffers;
  const WsGemmConfig m_config;
  WorkerPool m_workers;  // the fetch, compute and store stages
};

}  // namespace eva
