#pragma once
#include "common/config.hpp"

namespace eva {

// When the next operation descriptor's loads may start (dma.descriptor_overlap).
// `none`: once the current descriptor has finished, from an idle machine.
// `next`: as soon as the current one has taken the last of its streamed
// operands into its units (its weight, index and codebook buffers are free
// again, while it drains: the array's last tiles, the epilogue, the output
// write-back); the next one's weights, indices and codebooks then load into
// those buffers, its slots bounding how far, and its inputs wait for the
// current one's outputs (its compute waits with them).
enum class DescriptorOverlap { none, next };
template <>
struct EnumNames<DescriptorOverlap> {
  static const std::vector<std::pair<std::string_view, DescriptorOverlap>>& list() {
    static const std::vector<std::pair<std::string_view, DescriptorOverlap>> names = {
        {"none", DescriptorOverlap::none}, {"next", DescriptorOverlap::next}};
    return names;
  }
};

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
  // One descriptor at a time by default, as the authors' artifact times each
  // layer from an idle machine; the realistic setting overlaps them (`next`),
  // as a control with a descriptor queue and double-buffered operands would.
  DescriptorOverlap descriptor_overlap = DescriptorOverlap::none;

  template <class V>
  void visit(V& v) {
    v.field("burst_bytes", burst_bytes, between(1, 1 << 20), "bytes per DRAM request");
    v.field("max_outstanding", max_outstanding, between(1, 1 << 16), "requests in flight");
    v.field("response_timeout_ns", response_timeout_ns, between(0.0, 1e12),
            "a burst without a response this long failed, ns (0: never)");
    v.field("descriptor_overlap", descriptor_overlap,
            "none | next: the next descriptor's loads start while the current one drains");
  }
};

}  // namespace eva
