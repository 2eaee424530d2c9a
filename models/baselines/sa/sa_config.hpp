#pragma once
#include "common/accel_config.hpp"
#include "dma/dma_config.hpp"
#include "systolic/systolic_config.hpp"

namespace eva {

// What the plain systolic-array accelerator needs of an architecture config.
struct SaConfig {
  double clock_mhz = 500.0;  // EVA paper and artifact FREQ_HZ (BRIEF section 3)
  SystolicConfig systolic;
  DmaConfig dma;
  BufferConfig buffers;
  FormatConfig formats;
  TilingConfig tiling;
};

}  // namespace eva
