#pragma once
#include "common/config.hpp"

namespace eva {

struct DmaConfig {
  // 64 B: one BL8 burst of a 64-bit DDR4 channel, the line size SoC
  // interconnects move (and the random-access unit of dram-bench).
  int burst_bytes = 64;
  // Bursts in flight: 128 x 64 B covers 64 GB/s x 128 ns of latency, enough to
  // keep a real DRAM busy; against `ideal` any value >= 1 reaches the peak.
  int max_outstanding = 128;

  template <class V>
  void visit(V& v) {
    v.field("burst_bytes", burst_bytes, between(1, 1 << 20), "bytes per DRAM request");
    v.field("max_outstanding", max_outstanding, between(1, 1 << 16), "requests in flight");
  }
};

}  // namespace eva
