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
  // EVA's codebook buffer and output-codebook SRAM (artifact eva.yaml
  // codebook_buf_* and cap_buf_*); also vq-conflict's codebook SRAM.
  BufferEnergy codebook{0.0142475, 0.0364498};
  BufferEnergy oc{0.0171028125, 0.025327875};

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
    v.section("oc", oc);
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

// A block synthesised at `power_w`: leakage for `total_s`, the rest while busy.
inline double block_energy_j(const EnergyConfig& e, double power_w, double busy_s, double total_s) {
  return power_w * (e.leakage_fraction * total_s + (1.0 - e.leakage_fraction) * busy_s);
}

// Bits read from and written to each on-chip buffer, counted by the control
// that moves them; priced by EnergyConfig.
class BufferTraffic {
 public:
  enum Buffer { weight, input, output, codebook, oc, count };

  BufferTraffic() {
    static const char* names[count] = {"weight", "input", "output", "codebook", "oc"};
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
    const BufferEnergy* per[count] = {&e.weight, &e.input, &e.output, &e.codebook, &e.oc};
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

}  // namespace eva
