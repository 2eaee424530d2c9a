#pragma once
// Runs simulations: builds the virtual platform for an architecture, places
// the operands in DRAM, runs the kernel and returns the report. SystemC
// elaborates once per process, so each function here is called at most once
// per process.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/op_descriptor.hpp"
#include "common/vq_math.hpp"
#include "config/load_arch.hpp"
#include "dram/traffic_generator.hpp"
#include "report/report.hpp"

namespace eva {

struct GemmShape {
  std::uint64_t m = 1, n = 1, k = 1;
};

// Throws InputError before simulating if the arch or a shape cannot run.
// Several shapes run one after the other; the report has one op per shape.
Report simulate_gemms(const ArchConfig& config, const std::vector<GemmShape>& shapes);
inline Report simulate_gemm(const ArchConfig& config, const GemmShape& shape) {
  return simulate_gemms(config, {shape});
}

// Functional VQ GEMV/GEMM on EVA: x, codebooks and indices (as read from .npy
// files) go into DRAM, the accelerator computes y, which comes back out.
struct VqGemvResult {
  Report report;
  std::vector<float> y;  // M x N
};
VqGemvResult simulate_vq_gemv(const ArchConfig& config, const VqMatrix& w, const std::vector<half_bits>& x,
                              std::uint64_t m);
// Functional dense GEMM on a dense accelerator (sa, ant, figna, figlut):
// seeded random x (uniform) and W (Laplace, heavy-tailed like trained
// weights) are encoded in the accelerator's formats, placed in DRAM and run;
// the report's `functional` section compares the outputs read back with the
// float64 reference of the operands as encoded, and with x W unquantised.
Report simulate_dense_functional(const ArchConfig& config, const GemmShape& shape, std::uint64_t seed);

class Platform;
// Writes x, the codebooks and the indices into the platform's DRAM in the EVA
// accelerator's layouts; returns the functional operation that uses them.
GemmDescriptor place_vq_operands(Platform& platform, const ArchConfig& config, const VqMatrix& w,
                                 const std::vector<half_bits>& x, std::uint64_t m);

// Drives a DRAM model with a traffic pattern and reports bandwidth,
// efficiency, latency (mean, p99, max), commands and energy.
nlohmann::json simulate_dram_bench(const DramConfig& dram, const TrafficConfig& traffic, const SimConfig& sim = {});

}  // namespace eva
