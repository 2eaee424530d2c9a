#pragma once
// Energy and area of an accelerator, from the events its modules count.
//
// Compute blocks (array, epilogue units, vector unit, LUT datapath) are
// characterised by their synthesised power at full activity, the only figure
// the EVA artifact publishes for them. A block draws a leakage share of that
// power for the whole run and the rest only in the cycles it works (its busy
// cycles: the cycles the unit's timing charges, fill and drain included).
// Each SRAM costs energy per bit read and written (CACTI-style figures from
// the artifact, scaled by its bank capacity), and area and leakage from its
// size, banks and width. Every figure is per unit of a size (a PE, an adder
// input, a lane, a KiB, a byte of bank port), so cost follows the design.
// DRAM energy comes from the DRAM model (models/dram).
//
// Units: config in W, pJ/bit and mm2; results in J.
#include <cstdint>
#include <map>
#include <string>

#include "common/config.hpp"
#include "common/stats.hpp"

namespace eva {

struct BufferEnergy {
  double read_pj_per_bit = 0.0;
  double write_pj_per_bit = 0.0;
  // The bank capacity the two figures describe, KiB. A buffer whose banks hold
  // more (or less) pays sqrt(its bank capacity / this) per bit: bitline and
  // wordline energy grow with a bank's side, the square root of its capacity
  // (the CACTI trend; an assumption of this model). The defaults are each
  // buffer's default size over its 128 banks (common/accel_config.hpp and
  // sram/sram_config.hpp buffer_sram), the geometry the figures are taken for.
  double bank_kib = 1.0;

  template <class V>
  void visit(V& v) {
    v.field("read_pj_per_bit", read_pj_per_bit, between(0.0, 1e6), "energy per bit read, pJ");
    v.field("write_pj_per_bit", write_pj_per_bit, between(0.0, 1e6), "energy per bit written, pJ");
    v.field("bank_kib", bank_kib, between(1e-6, 1e6), "bank capacity the per-bit energies describe, KiB");
  }
};

// Defaults: the EVA artifact's SA figures at 28 nm, 500 MHz
// (simulator/configs/methods/baselines.yaml `systolic_array`; the artifact
// gives nJ per bit and nJ per cycle, converted here to pJ per bit and W),
// divided by the units they describe, so that cost follows the sizes: the
// array per PE (32 x 32), the epilogue per adder input (4 units x 32 inputs),
// the vector unit per lane (32). Each architecture preset sets its own.
struct EnergyConfig {
  double pe_w = 0.627625461 / 1024;  // SA core_power over 32 x 32 PEs
  // EVA's epilogue, per adder input of a unit (artifact eva.yaml
  // epilogue_power_per_unit 0.0599838 W over a unit's 32 inputs).
  double epilogue_input_w = 0.0599838 / 32;
  // The vector/special-function unit, per lane (artifact eva.yaml sfu_power
  // 0.1847423889 W over 32 lanes; the same SFU sits beside every
  // architecture, artifact hardware.yaml).
  double vector_lane_w = 0.1847423889 / 32;
  // Share of a block's power drawn whatever it does. The artifact charges the
  // whole core power every cycle (core_dynamic_energy 0); ANT's PE synthesis
  // (BASELINES.md 1.5: 64.3 uW leakage, 280 uW dynamic) gives 0.187.
  double leakage_fraction = 0.187;
  // SRAM leakage per mm2 of SRAM: the artifact's leakage for all of SA's
  // buffers (sram_leak_energy 2.02948448 nJ per cycle at 500 MHz, 1.01474224 W)
  // over their area (area.sram_*: 0.861716551149 mm2). Leakage taken as
  // proportional to area is an assumption of this model.
  double sram_leakage_w_per_mm2 = 1.01474224 / 0.861716551149;
  // Artifact wbuf/ibuf/obuf read and write energies (nJ/bit x 1000).
  BufferEnergy weight{0.01850515625, 0.040707421875, 1.0};
  BufferEnergy input{0.119577734375, 0.133059765625, 2.0};
  BufferEnergy output{0.119577734375, 0.133059765625, 1.0};
  // EVA's codebook buffer (artifact eva.yaml codebook_buf_*); also
  // vq-conflict's codebook SRAM. EVA's output-codebook SRAM is an Sram module
  // priced by its own config (oc.read_pj_per_bit, oc.write_pj_per_bit).
  BufferEnergy codebook{0.0142475, 0.0364498, 0.25};

  template <class V>
  void visit(V& v) {
    v.field("pe_w", pe_w, between(0.0, 1e4), "power of one PE (vq-conflict: one lookup lane) at full activity, W");
    v.field("epilogue_input_w", epilogue_input_w, between(0.0, 1e4),
            "power of one adder input of an epilogue unit at full activity, W");
    v.field("vector_lane_w", vector_lane_w, between(0.0, 1e4), "power of one vector-unit lane at full activity, W");
    v.field("leakage_fraction", leakage_fraction, between(0.0, 1.0), "share of block power drawn when idle");
    v.field("sram_leakage_w_per_mm2", sram_leakage_w_per_mm2, between(0.0, 1e4), "SRAM leakage per mm2 of SRAM, W");
    v.section("weight", weight);
    v.section("input", input);
    v.section("output", output);
    v.section("codebook", codebook);
  }
};

// Defaults: the EVA artifact's SA areas at 28 nm (configs/hardware.yaml),
// per unit as EnergyConfig. SRAM area is a cell term per KiB and a periphery
// term per byte of bank port (decoders, sense amplifiers and drivers of each
// bank, per byte it reads a cycle), CACTI-style:
//   area = sram_mm2_per_kib x KiB + sram_mm2_per_port_byte x banks x regions x
//          bank width in bytes x ports.
// The cell term is a 28 nm high-density 6T bit cell of 0.127 um2 (8192 bits:
// 0.001040384 mm2 per KiB; a figure reported for 28 nm foundry processes, an
// assumption of this model); the periphery term is calibrated so that each
// preset's buffers at its default sizes take the artifact's buffer area.
struct AreaConfig {
  double pe_mm2 = 0.330688512 / 1024;            // SA array over 32 x 32 PEs
  double epilogue_input_mm2 = 0.012602772 / 32;  // EVA's epilogue unit (artifact eva.yaml) over 32 inputs
  double vector_lane_mm2 = 0.063380772 / 32;     // the SFU, every architecture, over 32 lanes
  double sram_mm2_per_kib = 8192 * 0.127e-6;     // the bit cells of one KiB
  // SA: (0.861716551149 mm2 - 512 KiB x 0.001040384) / (3 buffers x 128 banks
  // x 2 B).
  double sram_mm2_per_port_byte = (0.861716551149 - 512 * 8192 * 0.127e-6) / 768;

  template <class V>
  void visit(V& v) {
    v.field("pe_mm2", pe_mm2, between(0.0, 1e6), "one PE (vq-conflict: one lookup lane), mm2");
    v.field("epilogue_input_mm2", epilogue_input_mm2, between(0.0, 1e6), "one adder input of an epilogue unit, mm2");
    v.field("vector_lane_mm2", vector_lane_mm2, between(0.0, 1e6), "one vector-unit lane, mm2");
    v.field("sram_mm2_per_kib", sram_mm2_per_kib, between(0.0, 1e3), "SRAM cell area per KiB, mm2");
    v.field("sram_mm2_per_port_byte", sram_mm2_per_port_byte, between(0.0, 1e3),
            "SRAM periphery per byte of bank port, mm2");
  }
};

// What a compute unit is charged, from its accelerator's EnergyConfig and
// AreaConfig: power at full activity, the idle share, and area.
struct UnitPower {
  double watts = 0.0;
  double leakage_fraction = 0.0;
  double area_mm2 = 0.0;
  UnitPower() = default;
  UnitPower(double w, const EnergyConfig& e, double area)
      : watts(w), leakage_fraction(e.leakage_fraction), area_mm2(area) {}
  // `busy_s` of work within a run of `total_s`.
  double energy_j(double busy_s, double total_s) const {
    return watts * (leakage_fraction * total_s + (1.0 - leakage_fraction) * busy_s);
  }
};

// The compute units' figures from their sizes: an array of `pes` PEs (or
// vq-conflict's lookup lanes), an epilogue unit of `inputs` adder inputs, a
// vector unit of `lanes` lanes.
inline UnitPower array_power(const EnergyConfig& e, const AreaConfig& a, std::uint64_t pes) {
  const auto n = static_cast<double>(pes);
  return UnitPower(e.pe_w * n, e, a.pe_mm2 * n);
}
inline UnitPower epilogue_unit_power(const EnergyConfig& e, const AreaConfig& a, std::uint64_t inputs) {
  const auto n = static_cast<double>(inputs);
  return UnitPower(e.epilogue_input_w * n, e, a.epilogue_input_mm2 * n);
}
inline UnitPower vector_power(const EnergyConfig& e, const AreaConfig& a, std::uint64_t lanes) {
  const auto n = static_cast<double>(lanes);
  return UnitPower(e.vector_lane_w * n, e, a.vector_lane_mm2 * n);
}

// A unit that prices its own event counters. An accelerator's energy and area
// breakdowns are the sums of its units' figures per group (Accelerator::
// energy_breakdown_j walks its module tree), so each figure is priced once.
class PricedUnit {
 public:
  virtual ~PricedUnit() = default;
  // The breakdown entry this unit adds to ("array", "epilogue", "buffers", ...).
  virtual const char* energy_group() const = 0;
  // Energy over a run of `seconds` (leakage included), J.
  virtual double energy_j(double seconds) const = 0;
  virtual double area_mm2() const = 0;
};

// Bits read from and written to each on-chip buffer, counted by the control
// that moves them; priced by EnergyConfig.
class BufferTraffic {
 public:
  enum Buffer { weight, input, output, codebook, count };

  BufferTraffic() {
    static const char* names[count] = {"weight", "input", "output", "codebook"};
    for (int b = 0; b < count; ++b) {
      m_read[b] = m_stats.add(std::string(names[b]) + "_bits_read", "bit",
                              std::string("bits read from the ") + names[b] + " buffer");
      m_written[b] = m_stats.add(std::string(names[b]) + "_bits_written", "bit",
                                 std::string("bits written to the ") + names[b] + " buffer");
    }
  }
  void read(Buffer b, double bits) { m_stats.inc(m_read[b], bits); }
  void write(Buffer b, double bits) { m_stats.inc(m_written[b], bits); }
  double bits_read(Buffer b) const { return m_stats.get(m_read[b]); }
  double bits_written(Buffer b) const { return m_stats.get(m_written[b]); }

  // Dynamic energy of all accesses, J.
  double energy_j(const EnergyConfig& e) const {
    const BufferEnergy* per[count] = {&e.weight, &e.input, &e.output, &e.codebook};
    double pj = 0.0;
    for (int b = 0; b < count; ++b)
      pj += bits_read(static_cast<Buffer>(b)) * per[b]->read_pj_per_bit +
            bits_written(static_cast<Buffer>(b)) * per[b]->write_pj_per_bit;
    return pj * 1e-12;
  }
  const StatGroup& stats() const { return m_stats; }

 private:
  StatGroup m_stats{"buffers"};
  std::size_t m_read[count]{}, m_written[count]{};
};

// Energy (J) and area (mm2) per module, as the report breaks them down.
using Breakdown = std::map<std::string, double>;

// The bits BufferTraffic counts, each at its buffer's energy (EnergyConfig,
// scaled by each buffer's geometry where the owner says so). Area and leakage
// are the buffers' own (each Sram prices its own).
class PricedBuffers : public PricedUnit {
 public:
  PricedBuffers(const BufferTraffic& traffic, const EnergyConfig& energy) : m_traffic(traffic), m_energy(energy) {}
  const char* energy_group() const override { return "buffers"; }
  double energy_j(double) const override { return m_traffic.energy_j(m_energy); }
  double area_mm2() const override { return 0.0; }

 private:
  const BufferTraffic& m_traffic;
  const EnergyConfig m_energy;
};

// A datapath that is not a module of its own, priced by the busy cycles a
// statistic counts (vq-conflict's lookup lanes and their multiply-adds).
class PricedCounter : public PricedUnit {
 public:
  PricedCounter(const char* group, const UnitPower& power, const StatGroup& stats, std::size_t busy_cycles,
                double cycle_s)
      : m_group(group), m_power(power), m_stats(stats), m_busy(busy_cycles), m_cycle_s(cycle_s) {}
  const char* energy_group() const override { return m_group; }
  double energy_j(double seconds) const override { return m_power.energy_j(m_stats.get(m_busy) * m_cycle_s, seconds); }
  double area_mm2() const override { return m_power.area_mm2; }

 private:
  const char* m_group;
  const UnitPower m_power;
  const StatGroup& m_stats;
  std::size_t m_busy;
  double m_cycle_s;
};

}  // namespace eva
