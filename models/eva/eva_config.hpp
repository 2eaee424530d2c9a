#pragma once
#include "common/accel_config.hpp"
#include "common/energy.hpp"
#include "common/vq_format.hpp"
#include "dma/dma_config.hpp"
#include "epilogue/epilogue_config.hpp"
#include "eva/eva_mode.hpp"
#include "sram/sram_config.hpp"
#include "systolic/systolic_config.hpp"
#include "vector/vector_config.hpp"

namespace eva {

// What the EVA accelerator needs of an architecture config.
struct EvaConfig {
  double clock_mhz = 500.0;  // EVA paper and artifact FREQ_HZ (BRIEF section 3)
  SystolicConfig systolic;
  EpilogueConfig epilogue;
  VqFormat vq;
  EvaModeConfig mode;  // VQ-lookup or INT8 mode per layer
  DmaConfig dma;
  BufferConfig buffers;  // weight_kib holds the index buffer
  FormatConfig formats;
  TilingConfig tiling;  // prefill mode's input-row blocks
  SramConfig oc;        // the output-codebook SRAM, both halves
  VectorConfig vector;  // the vector/special-function unit
  EnergyConfig energy;
  AreaConfig area;
  bool check_protocol = false;  // sim.check_protocol: a checker between the local bus and each buffer
};

}  // namespace eva
