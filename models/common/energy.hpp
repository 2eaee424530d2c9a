#pragma once
// Energy and area of an accelerator, from the events its modules count.
//
// Compute blocks (array, epilogue units, vector unit, LUT datapath) are
// characterised by their synthesised power at full activity, the only figure
// the EVA artifact publishes for them. A block draws a leakage share of that
// power for the whole run and the rest only in the cycles it works (its busy
// cycles: the cycles the unit's timing charges, fill and drain included).
// SRAM buffers cost energy per bit read and written, per buffer (CACTI-style
// figures from the artifact), plus one leakage power for all of them. DRAM
// energy comes from the DRAM model (models/dram).
//
// Units: config in W, pJ/bit and mm2; results in J.
#include <map>
#include <string>

#include "common/config.hpp"
#include "common/stats.hpp"

namespace eva {

struct BufferEnergy {
  double read_pj_per_bit = 0.0;
  double write_pj_per_bit = 0.0;

  template <class V>
  void visit(V& v) {
    v.field("read_pj_per_bit", read_pj_per_bit, between(0.0, 1e6), "energy per bit read, pJ");
    v.field("write_pj_per_bit", write_pj_per_bit, between(0.0, 1e6), "energy per bit written, pJ");
  }
};

// Defaults: the EVA artifact's SA figures at 28 nm, 500 MHz
// (simulator/configs/methods/baselines.yaml `systolic_array`; the artifact
// gives nJ per bit and nJ per cycle, converted here to pJ per bit and W).
// Each architecture preset sets its own.
struct EnergyConfig {
  double array_w = 0.627625461;  // SA core_power
  // EVA's epilogue units, each (artifact eva.yaml epilogue_power_per_unit).
  double epilogue_unit_w = 0.0599838;
  // The vector/special-function unit (artifact eva.yaml sfu_power; the same
  // SFU sits beside every architecture, artifact hardware.yaml).
  double vector_w = 0.1847423889;
  // Share of a block's power drawn whatever it does. The artifact charges the
  // whole core power every cycle (core_dynamic_energy 0); ANT's PE synthesis
  // (BASELINES.md 1.5: 64.3 uW leakage, 280 uW dynamic) gives 0.187.
  double leakage_fraction = 0.187;
  // All buffers' leakage: artifact sram_leak_energy 2.02948448 nJ per cycle
  // at 500 MHz.
  double sram_leakage_w = 1.01474224;
  // Artifact wbuf/ibuf/obuf read and write energies (nJ/bit x 1000).
  BufferEnergy weight{0.01850515625, 0.040707421875};
  BufferEnergy input{0.119577734375, 0.133059765625};
  BufferEnergy output{0.119577734375, 0.133059765625};
  // EVA's codebook buffer (artifact eva.yaml codebook_buf_*); also
  // vq-conflict's codebook SRAM. EVA's output-codebook SRAM is an Sram module
  // priced by its own config (oc.read_pj_per_bit, oc.write_pj_per_bit).
  BufferEnergy codebook{0.0142475, 0.0364498};

  template <class V>
  void visit(V& v) {
    v.field("array_w", array_w, between(0.0, 1e4), "compute array power at full activity, W");
    v.field("epilogue_unit_w", epilogue_unit_w, between(0.0, 1e4), "one epilogue unit at full activity, W");
    v.field("vector_w", vector_w, between(0.0, 1e4), "vector unit at full activity, W");
    v.field("leakage_fraction", leakage_fraction, between(0.0, 1.0), "share of block power drawn when idle");
    v.field("sram_leakage_w", sram_leakage_w, between(0.0, 1e4), "leakage of all buffers, W");
    v.section("weight", weight);
    v.section("input", input);
    v.section("output", output);
    v.section("codebook", codebook);
  }
};

// Defaults: the EVA artifact's SA areas at 28 nm (configs/hardware.yaml).
struct AreaConfig {
  double array_mm2 = 0.330688512;
  double epilogue_unit_mm2 = 0.012602772;  // EVA's, each (artifact eva.yaml)
  double vector_mm2 = 0.063380772;         // the SFU, every architecture
  double buffer_mm2 = 0.861716551149;      // all on-chip buffers

  template <class V>
  void visit(V& v) {
    v.field("array_mm2", array_mm2, between(0.0, 1e6), "compute array, mm2");
    v.field("epilogue_unit_mm2", epilogue_unit_mm2, between(0.0, 1e6), "one epilogue unit, mm2");
    v.field("vector_mm2", vector_mm2, between(0.0, 1e6), "vector unit, mm2");
    v.field("buffer_mm2", buffer_mm2, between(0.0, 1e6), "on-chip buffers, mm2");
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

// The on-chip buffers that BufferTraffic counts, priced as one part: every
// bit at its buffer's energy, all buffers' leakage (EnergyConfig::
// sram_leakage_w), and their area (AreaConfig::buffer_mm2).
class PricedBuffers : public PricedUnit {
 public:
  PricedBuffers(const BufferTraffic& traffic, const EnergyConfig& energy, double area_mm2)
      : m_traffic(traffic), m_energy(energy), m_area(area_mm2) {}
  const char* energy_group() const override { return "buffers"; }
  double energy_j(double seconds) const override {
    return m_traffic.energy_j(m_energy) + m_energy.sram_leakage_w * seconds;
  }
  double area_mm2() const override { return m_area; }

 private:
  const BufferTraffic& m_traffic;
  const EnergyConfig m_energy;
  const double m_area;
};

// The buffers' leakage (EnergyConfig::sram_leakage_w, the artifact's figure
// for all of them) and area (AreaConfig::buffer_mm2), where each buffer is an
// Sram module pricing its own accesses.
class PricedLeakage : public PricedUnit {
 public:
  PricedLeakage(const EnergyConfig& energy, double area_mm2) : m_watts(energy.sram_leakage_w), m_area(area_mm2) {}
  PricedLeakage(double watts, double area_mm2) : m_watts(watts), m_area(area_mm2) {}
  const char* energy_group() const override { return "buffers"; }
  double energy_j(double seconds) const override { return m_watts * seconds; }
  double area_mm2() const override { return m_area; }

 private:
  double m_watts, m_area;
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
