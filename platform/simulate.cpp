#include "simulate.hpp"

#include <chrono>

#include <fmt/format.h>

#include "common/error.hpp"
#include "platform.hpp"

namespace eva {

namespace {

// Operands are placed one after the other, page aligned.
class AddressAllocator {
 public:
  explicit AddressAllocator(double capacity) : m_capacity(capacity) {}
  std::uint64_t take(std::uint64_t bytes, const char* what) {
    const std::uint64_t at = m_next;
    m_next += (bytes + 4095) / 4096 * 4096;
    if (static_cast<double>(m_next) > m_capacity)
      throw InputError(fmt::format("{}: operands need {:.2f} GiB, more than dram.capacity_gib ({:.2f})", what,
                                   static_cast<double>(m_next) / (1 << 30), m_capacity / (1 << 30)));
    return at;
  }

 private:
  double m_capacity;
  std::uint64_t m_next = 0;
};

}  // namespace

Report simulate_gemms(const ArchConfig& config, const std::vector<GemmShape>& shapes) {
  const auto wall0 = std::chrono::steady_clock::now();
  require_simulated(config);
  Platform platform("vp", config);
  AddressAllocator alloc(config.dram.capacity_bytes());
  for (const GemmShape& shape : shapes) {
    GemmDescriptor op;
    op.name = "gemm";
    op.m = shape.m;
    op.n = shape.n;
    op.k = shape.k;
    op.act_addr = alloc.take(platform.act_bytes(shape.m, shape.k), "gemm");
    op.weight_addr = alloc.take(platform.weight_bytes(shape.k, shape.n), "gemm");
    op.out_addr = alloc.take(platform.out_bytes(shape.m, shape.n), "gemm");
    platform.add(op);
  }
  sc_core::sc_start();
  Report r = platform.report();
  r.model = "-";
  r.phase = "gemm";
  r.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

nlohmann::json simulate_dram_bench(const DramConfig& dram, const TrafficConfig& traffic) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (static_cast<double>(traffic.span) > dram.capacity_bytes())
    throw InputError(fmt::format("dram-bench: the address span ({} B) exceeds the DRAM's capacity ({:.0f} B)",
                                 traffic.span, dram.capacity_bytes()));
  std::unique_ptr<DramTarget> target = make_dram("dram", dram);
  TrafficGenerator gen("traffic", traffic);
  gen.initiator_socket.bind(target->target_socket);
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double seconds = gen.last_response().to_seconds();
  const double bandwidth = seconds > 0 ? static_cast<double>(gen.bytes_done()) / seconds : 0.0;
  const double peak = target->peak_bytes_per_second();
  target->flush_stats();
  nlohmann::json commands = nlohmann::json::object();
  for (const Stat& s : target->stats().stats()) commands[s.name] = s.value;
  const double energy = target->energy_j(gen.last_response());
  static const char* patterns[] = {"seq", "random", "strided", "mix"};
  return {{"dram", dram.preset},
          {"standard", dram.standard},
          {"pattern", patterns[static_cast<int>(traffic.pattern)]},
          {"bytes", gen.bytes_done()},
          {"requests", gen.requests_done()},
          {"request_bytes", traffic.request_bytes},
          {"outstanding", traffic.outstanding},
          {"seconds", seconds},
          {"bandwidth_gbps", bandwidth * 1e-9},
          {"peak_gbps", peak * 1e-9},
          {"efficiency", peak > 0 ? bandwidth / peak : 0.0},
          {"latency_ns_mean", gen.latency_ns_mean()},
          {"latency_ns_p99", gen.latency_ns_quantile(0.99)},
          {"latency_ns_max", gen.latency_ns_max()},
          {"energy_j", energy},
          {"energy_pj_per_bit", gen.bytes_done() ? energy * 1e12 / (8.0 * static_cast<double>(gen.bytes_done())) : 0.0},
          {"stats", commands},
          {"sim_wall_s", wall},
          {"transactions_per_wall_s", wall > 0 ? static_cast<double>(gen.requests_done()) / wall : 0.0}};
}

}  // namespace eva
