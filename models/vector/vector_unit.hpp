#pragma once
// The vector/special-function unit as a timed resource: an operation over
// rows x cols elements takes passes x rows x ceil(cols / lanes) cycles plus the
// pipeline depth (passes: 1 for elementwise operations, vector.norm_passes for
// normalisations, vector.softmax_passes for softmax).
#include <cstdint>

#include <systemc>

#include "common/clock.hpp"
#include "common/op_descriptor.hpp"
#include "common/stats.hpp"
#include "vector/vector_config.hpp"

namespace eva {

class VectorUnit : public sc_core::sc_module {
 public:
  VectorUnit(const sc_core::sc_module_name& name, const VectorConfig& config, double clock_mhz)
      : sc_module(name), m_config(config), m_clock(clock_mhz) {
    m_ops = m_stats.add("ops", "ops", "operations run");
    m_elements = m_stats.add("elements", "elements", "elements produced");
    m_busy = m_stats.add("busy_cycles", "cycles", "cycles the unit worked");
  }

  std::uint64_t cycles(VectorOp op, std::uint64_t rows, std::uint64_t cols) const {
    std::uint64_t passes = 1;
    if (op == VectorOp::rmsnorm || op == VectorOp::layernorm) passes = static_cast<std::uint64_t>(m_config.norm_passes);
    if (op == VectorOp::softmax) passes = static_cast<std::uint64_t>(m_config.softmax_passes);
    const auto lanes = static_cast<std::uint64_t>(m_config.lanes);
    return passes * rows * ((cols + lanes - 1) / lanes) + static_cast<std::uint64_t>(m_config.pipeline_cycles);
  }
  // Blocks the calling thread for the operation's cycles.
  std::uint64_t run(VectorOp op, std::uint64_t rows, std::uint64_t cols) {
    const std::uint64_t c = cycles(op, rows, cols);
    m_stats.inc(m_ops);
    m_stats.inc(m_elements, static_cast<double>(rows * cols));
    m_stats.inc(m_busy, static_cast<double>(c));
    wait(m_clock.cycles(c));
    return c;
  }
  const StatGroup& stats() const { return m_stats; }

 private:
  const VectorConfig m_config;
  const ClockDomain m_clock;
  StatGroup m_stats{"vector"};
  std::size_t m_ops, m_elements, m_busy;
};

}  // namespace eva
