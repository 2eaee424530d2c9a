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

}  // namespace eva
