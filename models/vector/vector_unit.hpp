#pragma once
// The vector/special-function unit as a timed resource: an operation over
// rows x cols elements takes passes x rows x ceil(cols / lanes) cycles plus the
// pipeline depth (passes: 1 for elementwise operations, vector.norm_passes for
// normalisations, vector.softmax_passes for softmax).
#include <cstdint>

#include <systemc>

#include "common/clock.hpp"
#include "common/energy.hpp"
#include "common/op_descriptor.hpp"
#include "common/stats.hpp"
#include "sram/buffer_port.hpp"
#include "vector/vector_config.hpp"

namespace eva {

class VectorUnit : public sc_core::sc_module, public PricedUnit {
 public:
  // Its operands' port into the on-chip buffers (through the local bus).
  BufferPort buffer_port;

  VectorUnit(const sc_core::sc_module_name& name, const VectorConfig& config, double clock_mhz, const UnitPower& power)
      : sc_module(name), buffer_port("buffer_port"), m_config(config), m_clock(clock_mhz), m_power(power) {
    m_stat[ops] = m_stats.add("ops", "ops", "operations run");
    m_stat[elements] = m_stats.add("elements", "elements", "elements produced");
    m_stat[busy_cycles] = m_stats.add("busy_cycles", "cycles", "cycles the unit worked");
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
    m_stats.inc(m_stat[ops]);
    m_stats.inc(m_stat[elements], static_cast<double>(rows * cols));
    m_stats.inc(m_stat[busy_cycles], static_cast<double>(c));
    wait(m_clock.cycles(c));
    return c;
  }
  enum Stat { ops, elements, busy_cycles, stat_count };
  double stat(Stat s) const { return m_stats.get(m_stat[s]); }
  const StatGroup& stats() const { return m_stats; }
  const char* energy_group() const override { return "vector"; }
  double energy_j(double seconds) const override {
    return m_power.energy_j(stat(busy_cycles) * m_clock.cycles(1).to_seconds(), seconds);
  }
  double area_mm2() const override { return m_power.area_mm2; }

 private:
  const VectorConfig m_config;
  const ClockDomain m_clock;
  const UnitPower m_power;
  StatGroup m_stats{"vector"};
  std::size_t m_stat[stat_count]{};
};

}  // namespace eva
