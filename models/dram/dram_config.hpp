#pragma once
// DRAM configuration: the preset's values, overridable key by key (dram.*).
#include <string>

#include "common/config.hpp"

namespace eva {

enum class DramKind { ideal };
template <>
struct EnumNames<DramKind> {
  static const std::vector<std::pair<std::string_view, DramKind>>& list() {
    static const std::vector<std::pair<std::string_view, DramKind>> names = {{"ideal", DramKind::ideal}};
    return names;
  }
};

struct DramConfig {
  std::string preset = "ideal";  // the preset file these values started from
  DramKind kind = DramKind::ideal;
  // EVA artifact: mem_width 1024 bits/cycle at 500 MHz = 64 GB/s (BRIEF section 3).
  double bandwidth_gbps = 64.0;
  // The EVA artifact models DRAM by bandwidth alone, with no access latency.
  double latency_ns = 0.0;
  // Address space served. Storage is sparse, so only written pages cost memory;
  // 64 GiB holds LLaMA-70B at 8 bits per weight with room for the KV cache.
  double capacity_gib = 64.0;
  // EVA artifact DRAM access energy, reads and writes alike (BRIEF section 3).
  double energy_pj_per_bit = 12.23;

  template <class V>
  void visit(V& v) {
    v.field("preset", preset, "preset file name");
    v.field("kind", kind, "controller model");
    v.field("bandwidth_gbps", bandwidth_gbps, positive_up_to(1e6), "peak bandwidth, GB/s");
    v.field("latency_ns", latency_ns, between(0.0, 1e6), "fixed access latency, ns");
    v.field("capacity_gib", capacity_gib, positive_up_to(1 << 20), "address space, GiB");
    v.field("energy_pj_per_bit", energy_pj_per_bit, between(0.0, 1e4), "access energy, pJ/bit");
  }

  double capacity_bytes() const { return capacity_gib * 1024.0 * 1024.0 * 1024.0; }
};

}  // namespace eva
