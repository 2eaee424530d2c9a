#include "vp/simulate.hpp"

#include <chrono>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "arch/accelerators.hpp"
#include "common/error.hpp"
#include "vp/address_allocator.hpp"
#include "vp/platform.hpp"

namespace eva {

Report simulate_gemms(const ArchConfig& config, const std::vector<GemmShape>& shapes) {
  const auto wall0 = std::chrono::steady_clock::now();
  set_global_quantum(config.sim);
  Platform platform("vp", config);
  AddressAllocator alloc(config.dram.capacity_bytes());
  for (const GemmShape& shape : shapes) platform.add(platform.place_fc(alloc, "gemm", shape.m, shape.n, shape.k));
  sc_core::sc_start();
  Report r = platform.report();
  r.model = "-";
  r.phase = "gemm";
  for (const GemmShape& shape : shapes) r.tokens += shape.m;
  r.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

namespace {

// Deterministic across standard libraries: uniform doubles from raw 64-bit draws.
double uniform01(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }

}  // namespace

Report simulate_dense_functional(const ArchConfig& config, const GemmShape& shape, std::uint64_t seed) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (config.kind == ArchKind::eva || config.kind == ArchKind::vq_conflict)
    throw std::logic_error("simulate_dense_functional: VQ architectures run VQ problems");
  const std::uint64_t m = shape.m, n = shape.n, k = shape.k;
  std::mt19937_64 rng(seed);
  std::vector<float> x(m * k), w(k * n);
  for (float& v : x) v = static_cast<float>(2.0 * uniform01(rng) - 1.0);
  for (float& v : w) {
    const double u = uniform01(rng);
    v = static_cast<float>(u < 0.5 ? 0.05 * std::log(2.0 * u) : -0.05 * std::log(2.0 * (1.0 - u)));
  }
  set_global_quantum(config.sim);
  Platform platform("vp", config);
  const EncodedGemm e = platform.accelerator().encode_gemm(x, w, m, n, k);
  AddressAllocator alloc(config.dram.capacity_bytes());
  GemmDescriptor op = platform.place_fc(alloc, "gemm", m, n, k);
  op.functional = true;
  SparseStorage& mem = platform.dram().storage();
  mem.write(op.act_addr, e.activations.data(), e.activations.size());
  mem.write(op.weight_addr, e.weights.data(), e.weights.size());
  mem.write(op.codebook_addr, e.parameters.data(), e.parameters.size());
  platform.add(op);
  sc_core::sc_start();
  Report r = platform.report();
  r.model = "-";
  r.phase = "gemm";
  r.tokens = m;
  std::vector<std::uint8_t> out(platform.operand_bytes(m, n, k).outputs);
  mem.read(op.out_addr, out.data(), out.size());
  const std::vector<double> y = e.decode_output(out);
  std::vector<double> exact(m * n, 0.0);
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t kk = 0; kk < k; ++kk)
      for (std::uint64_t j = 0; j < n; ++j) exact[i * n + j] += static_cast<double>(x[i * k + kk]) * w[kk * n + j];
  const auto rel_l2 = [](const std::vector<double>& a, const std::vector<double>& ref) {
    double num = 0.0, den = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      num += (a[i] - ref[i]) * (a[i] - ref[i]);
      den += ref[i] * ref[i];
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  };
  double max_abs = 0.0, ref_max = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    max_abs = std::max(max_abs, std::fabs(y[i] - e.reference[i]));
    ref_max = std::max(ref_max, std::fabs(e.reference[i]));
  }
  r.functional = {{"seed", seed},
                  {"format", e.format},
                  {"reference", "float64 of the operands as encoded"},
                  {"relative_l2_error", rel_l2(y, e.reference)},
                  {"max_abs_error", max_abs},
                  {"reference_max_abs", ref_max},
                  {"relative_l2_error_vs_unquantised", rel_l2(y, exact)}};
  r.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

GemmDescriptor place_vq_operands(Platform& platform, const ArchConfig& config, const VqMatrix& w,
                                 const std::vector<half_bits>& x, std::uint64_t m) {
  AddressAllocator alloc(config.dram.capacity_bytes());
  GemmDescriptor op = platform.place_fc(alloc, "vq-gemv", m, w.n, w.k);
  op.functional = true;
  SparseStorage& mem = platform.dram().storage();
  mem.write(op.act_addr, reinterpret_cast<const std::uint8_t*>(x.data()), x.size() * 2);
  mem.write(op.codebook_addr, reinterpret_cast<const std::uint8_t*>(w.centroids.data()), w.centroids.size() * 2);
  const std::vector<std::uint8_t> packed = platform.accelerator().vq_index_image(w, m);
  mem.write(op.weight_addr, packed.data(), packed.size());
  return op;
}

VqGemvResult simulate_vq_gemv(const ArchConfig& config, const VqMatrix& w, const std::vector<half_bits>& x,
                              std::uint64_t m) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (config.kind != ArchKind::eva && config.kind != ArchKind::vq_conflict)
    throw InputError(fmt::format("vq-gemv --arch {}: the '{}' model holds no VQ weights (eva, vq-conflict do)",
                                 config.name, enum_name(config.kind)));
  set_global_quantum(config.sim);
  Platform platform("vp", config);
  const GemmDescriptor op = place_vq_operands(platform, config, w, x, m);
  platform.add(op);
  sc_core::sc_start();
  VqGemvResult out;
  out.report = platform.report();
  out.report.model = "-";
  out.report.phase = "vq-gemv";
  std::vector<half_bits> y(m * w.n);
  platform.dram().storage().read(op.out_addr, reinterpret_cast<std::uint8_t*>(y.data()), y.size() * 2);
  out.y.reserve(y.size());
  for (half_bits h : y) out.y.push_back(half_to_float(h));
  out.report.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

nlohmann::json simulate_dram_bench(const DramConfig& dram, const TrafficConfig& traffic, const SimConfig& sim) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (static_cast<double>(traffic.span) > dram.capacity_bytes())
    throw InputError(fmt::format("dram-bench: the address span ({} B) exceeds the DRAM's capacity ({:.0f} B)",
                                 traffic.span, dram.capacity_bytes()));
  std::unique_ptr<DramTarget> target = make_dram("dram", dram);
  TrafficGenerator gen("traffic", traffic);
  std::unique_ptr<ProtocolChecker> checker;
  if (sim.check_protocol) {
    checker = std::make_unique<ProtocolChecker>("traffic_dram_checker");
    gen.initiator_socket.bind(checker->target_socket);
    checker->initiator_socket.bind(target->target_socket);
  } else {
    gen.initiator_socket.bind(target->target_socket);
    // The generator is the memory's only initiator, with nothing between.
    if (sim.exclusive_dma) gen.set_run_ahead_target(target->run_ahead_target());
  }
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double seconds = gen.last_response().to_seconds();
  const double bandwidth = seconds > 0 ? static_cast<double>(gen.bytes_done()) / seconds : 0.0;
  const double peak = target->peak_bytes_per_second();
  target->flush_stats(gen.last_response());
  nlohmann::json commands = nlohmann::json::object();
  for (const Stat& s : target->stats().stats()) commands[s.name] = s.value;
  const DramTarget::Energy parts = target->energy_parts(gen.last_response());
  const double energy = parts.total();
  const double bits = 8.0 * static_cast<double>(gen.bytes_done());
  const auto per_bit = [bits](double j) { return bits > 0 ? j * 1e12 / bits : 0.0; };
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
          {"energy_pj_per_bit", per_bit(energy)},
          {"energy_parts_pj_per_bit",
           {{"core", per_bit(parts.core_j)}, {"io", per_bit(parts.io_j)}, {"background", per_bit(parts.background_j)}}},
          {"stats", commands},
          {"sim_wall_s", wall},
          {"transactions_per_wall_s", wall > 0 ? static_cast<double>(gen.requests_done()) / wall : 0.0}};
}

}  // namespace eva
