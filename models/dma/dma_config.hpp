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
  // 100 us: on every timed preset a burst waits at most 0.9 us at full load
  // with 512 x 256 B in flight (eva-sim dram-bench --pattern random
  // --outstanding 512 --request-bytes 256: latency_ns_max 763 on DDR4-3200,
  // 895 on LPDDR5-6400, 597 on HBM2), so only a memory that stopped answering
  // reaches it. Queueing grows with max_outstanding x burst_bytes / bandwidth:
  // raise this with them. 0: no timeout.
  double response_timeout_ns = 100000.0;

  template <class V>
  void visit(V& v) {
    v.field("burst_bytes", burst_bytes, between(1, 1 << 20), "bytes per DRAM request");
    v.field("max_outstanding", max_outstanding, between(1, 1 << 16), "requests in flight");
    v.field("response_timeout_ns", response_timeout_ns, between(0.0, 1e12),
            "a burst without a response this long failed, ns (0: never)");
  }
};

}  // namespace eva
