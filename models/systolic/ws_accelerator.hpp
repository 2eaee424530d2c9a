#pragma once
// The skeleton of every accelerator built around a weight-stationary array
// (sa, ant, figna, figlut): a DMA toward memory, the array, the vector unit
// and the on-chip buffers, run by the shared GEMM control (WsGemm). Each
// baseline (models/baselines/<name>) brings its weight format (a
// WeightSource) and its processing elements' arithmetic (a WsDatapath).
#include <cstdint>
#include <memory>

#include <systemc>

#include "bus/local_bus.hpp"
#include "common/accel_config.hpp"
#include "common/accelerator.hpp"
#include "common/clock.hpp"
#include "common/energy.hpp"
#include "dma/dma.hpp"
#include "sram/sram.hpp"
#include "systolic/systolic_array.hpp"
#include "systolic/ws_gemm.hpp"
#include "vector/vector_config.hpp"
#include "vector/vector_unit.hpp"

namespace eva {

struct WsAcceleratorConfig {
  double clock_mhz = 500.0;  // EVA paper and artifact FREQ_HZ (BRIEF section 3)
  SystolicConfig systolic;
  DmaConfig dma;
  BufferConfig buffers;
  FormatConfig formats;
  TilingConfig tiling;
  VectorConfig vector;
  EnergyConfig energy;
  AreaConfig area;
  bool check_protocol = false;  // sim.check_protocol: a checker between the local bus and each buffer
};

class WsAccelerator : public Accelerator {
 public:
  Dma dma;
  SystolicArray array;
  VectorUnit vector;
  // The on-chip buffers (buffers.*_kib), filled by the DMA through the local bus.
  Sram input_buffer, weight_buffer, output_buffer;
  LocalBus bus;

  // `gemm`: the layers' GEMMs; `kv_gemm`: attention over the KV cache;
  // `fp16_gemm`: GEMMs over dense FP16 weights (GemmOperand::fp16_weights);
  // `pes`: the PEs the array is priced for (0: systolic.rows x cols).
  WsAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config, const WsGemmConfig& gemm,
                const WsGemmConfig& kv_gemm, const WsGemmConfig& fp16_gemm, std::uint64_t pes = 0);
  // Attention (the KV cache in formats.kv_bits) and dense FP16 weights on
  // the array's own tiles (dense_gemm_config).
  static WsGemmConfig kv_gemm_config(const WsAcceleratorConfig& c) {
    return dense_gemm_config(c.systolic, c.buffers, c.formats.kv_formats(), c.tiling);
  }
  static WsGemmConfig fp16_gemm_config(const WsAcceleratorConfig& c) {
    return dense_gemm_config(c.systolic, c.buffers, c.formats.fp16_formats(), c.tiling);
  }
  // The buffers' windows on the local bus: input, weight, output, in order.
  static WsBuffers buffer_map(const BufferConfig& b);
  WsAccelerator(const WsAccelerator&) = delete;
  WsAccelerator& operator=(const WsAccelerator&) = delete;

  tlm::tlm_initiator_socket<>& memory_socket() override { return dma.initiator_socket; }
  Dma& dma_engine() override { return dma; }
  // Activations, weights and outputs in the config's formats, plus the
  // datapath's per-operation parameters (scales) as `codebooks`.
  OperandBytes operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const override;
  // Throws InputError when the GEMM cannot be tiled into this accelerator's
  // buffers (a config that is too small for the shape).
  void check(const GemmDescriptor& op) const override;
  // Runs one GEMM; blocks the calling SystemC thread until its outputs are in
  // DRAM. Returns the array's cycles with memory never late.
  std::uint64_t execute(const GemmDescriptor& op) override;
  std::uint64_t execute_vector(const VectorDescriptor& op) override;
  void check(const VectorDescriptor&) const override {}
  std::vector<const StatGroup*> stat_groups() override;

  // The weight format and the PE arithmetic of this accelerator.
  WeightSource& weights() { return *m_weights; }
  WsDatapath& datapath() { return *m_datapath; }

 protected:
  // Derived constructors install their format and datapath.
  // `kv`, `fp16`: the KV cache's and the dense FP16 weights' formats.
  // `storage`, `kv_storage`, `fp16_storage`: the PEs' own storage for each,
  // if they have one.
  void install(std::unique_ptr<WeightSource> weights, std::unique_ptr<WsDatapath> datapath,
               std::unique_ptr<WeightSource> kv, std::unique_ptr<WeightSource> fp16,
               std::unique_ptr<PeStorage> storage = nullptr, std::unique_ptr<PeStorage> kv_storage = nullptr,
               std::unique_ptr<PeStorage> fp16_storage = nullptr) {
    m_weights = std::move(weights);
    m_datapath = std::move(datapath);
    m_kv = std::move(kv);
    m_fp16 = std::move(fp16);
    m_storage = std::move(storage);
    m_kv_storage = std::move(kv_storage);
    m_fp16_storage = std::move(fp16_storage);
  }
  virtual std::uint64_t weight_bytes(std::uint64_t n, std::uint64_t k) const;

  const WsAcceleratorConfig m_config;
  const ClockDomain m_clock;
  WsGemm m_gemm;
  WsGemm m_kv_gemm;
  WsGemm m_fp16_gemm;

 private:
  std::unique_ptr<WeightSource> m_weights;
  std::unique_ptr<WsDatapath> m_datapath;
  std::unique_ptr<WeightSource> m_kv, m_fp16;
  std::unique_ptr<PeStorage> m_storage, m_kv_storage, m_fp16_storage;
};

}  // namespace eva
