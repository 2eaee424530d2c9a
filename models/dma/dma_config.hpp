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
  // A burst whose response has not come this long after its request failed
  // (its transfer ends, failed, at that moment; a late response is dropped).
  // 0: no timeout, the default. No fixed value is safe for every run: the
  // timed controllers favour reads and can hold a write burst for more than
  // 100 us (FIGLUT's q_proj in `validate` met that), although dram-bench's
  // random reads wait at most 0.9 us. Set it for fault studies
  // (docs/FAULTS.md); the register-file tests use 100 us.
  double response_timeout_ns = 0.0;

  template <class V>
  void visit(V& v) {
    v.field("burst_bytes", burst_bytes, between(1, 1 << 20), "bytes per DRAM request");
    v.field("max_outstanding", max_outstanding, between(1, 1 << 16), "requests in flight");
    v.field("response_timeout_ns", response_timeout_ns, between(0.0, 1e12),
            "a burst without a response this long failed, ns (0: never)");
  }
};

}  // namespace eva
