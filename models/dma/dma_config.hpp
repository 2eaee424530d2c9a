#pragma once
#include "common/config.hpp"

namespace eva {

struct DmaConfig {
  // 256 B: an AXI4 burst of 16 beats on a 128-bit bus. A timed DRAM splits it
  // into device bursts (64 B on DDR4) and answers when all have moved.
  int burst_bytes = 256;
  // Requests in flight: 128 x 256 B covers 64 GB/s x 512 ns of latency, enough
  // to keep a real DRAM busy; against `ideal` any value >= 1 reaches the peak.
  int max_outstanding = 128;

  template <class V>
  void visit(V& v) {
    v.field("burst_bytes", burst_bytes, between(1, 1 << 20), "bytes per DRAM request");
    v.field("max_outstanding", max_outstanding, between(1, 1 << 16), "requests in flight");
  }
};

}  // namespace eva
