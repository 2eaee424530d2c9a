#pragma once
#include <cmath>

#include "common/config.hpp"
#include "common/energy.hpp"

namespace eva {

// What an SRAM costs per unit of its geometry (AreaConfig, EnergyConfig): the
// owner fills it from its architecture's figures.
struct SramCost {
  double mm2_per_kib = 0.0;
  double mm2_per_port_byte = 0.0;
  double leakage_w_per_mm2 = 0.0;
};

inline SramCost sram_cost(const AreaConfig& a, const EnergyConfig& e) {
  return SramCost{a.sram_mm2_per_kib, a.sram_mm2_per_port_byte, e.sram_leakage_w_per_mm2};
}

// One banked SRAM buffer. The defaults describe EVA's output-codebook (OC)
// SRAM: 32 banks x 4 (a group of 32 per epilogue unit), FP16 entries, 64 KB,
// 256 B/cycle (BRIEF section 3, from the EVA artifact's notebook). Each
// accelerator states the geometry of each of its buffers in its config.
struct SramConfig {
  int size_kib = 64;
  int banks = 128;           // 32 x 4
  int bank_width_bytes = 2;  // one FP16 entry: 128 x 2 B = 256 B/cycle
  int ports = 1;             // accesses per bank per cycle (single-ported)
  int latency_cycles = 1;    // read latency
  // Energy per bit accessed: the EVA artifact's OC ("cap") buffer,
  // simulator/configs/methods/eva.yaml energy.cap_buf_{read,write}_energy
  // (1.71028e-5 and 2.5327875e-5 nJ/bit), for banks of reference_bank_kib.
  double read_pj_per_bit = 0.0171028;
  double write_pj_per_bit = 0.025327875;
  // The bank capacity the per-bit figures describe: the published OC, 64 KB in
  // 128 banks. Banks that hold more (or less) pay sqrt(bank_kib() / this) per
  // bit (BufferEnergy::bank_kib).
  double reference_bank_kib = 0.5;
  // Regions written and read in turn, each size_kib / buffers in banks of its
  // own (a single-ported bank cannot be written by the array and read by the
  // epilogue in one cycle): EVA's OC has 2 or 1.
  int buffers = 1;
  // Area and leakage per unit, set by the owner (sram_cost); not a config key.
  SramCost cost;

  template <class V>
  void visit(V& v) {
    v.field("size_kib", size_kib, between(1, 1 << 20), "capacity, KiB");
    v.field("banks", banks, between(1, 4096), "banks (per region)");
    v.field("bank_width_bytes", bank_width_bytes, between(1, 4096), "bytes per bank access");
    v.field("ports", ports, between(1, 16), "accesses per bank per cycle");
    v.field("latency_cycles", latency_cycles, between(0, 1024), "read latency, cycles");
    v.field("read_pj_per_bit", read_pj_per_bit, between(0.0, 1e4), "read energy at reference_bank_kib, pJ/bit");
    v.field("write_pj_per_bit", write_pj_per_bit, between(0.0, 1e4), "write energy at reference_bank_kib, pJ/bit");
    v.field("reference_bank_kib", reference_bank_kib, between(1e-6, 1e6),
            "bank capacity the per-bit energies describe, KiB");
    v.field("buffers", buffers, between(1, 2), "regions written and read in turn (1 or 2)");
  }
  // One bank's capacity, KiB.
  double bank_kib() const {
    return static_cast<double>(size_kib) / static_cast<double>(buffers) / static_cast<double>(banks);
  }
  // The factor on the per-bit energies for this geometry.
  double bit_energy_scale() const { return std::sqrt(bank_kib() / reference_bank_kib); }
  double area_mm2() const {
    return cost.mm2_per_kib * static_cast<double>(size_kib) +
           cost.mm2_per_port_byte * static_cast<double>(banks) * static_cast<double>(buffers) *
               static_cast<double>(bank_width_bytes) * static_cast<double>(ports);
  }
  double leakage_w() const { return area_mm2() * cost.leakage_w_per_mm2; }
};

// An on-chip buffer of `kib` KiB at the given energies per bit. Its port has
// the OC SRAM's width (128 banks of 2 B, 256 B per cycle, BRIEF section 3, the
// only published port of EVA's SRAMs), an assumption for the buffers whose
// geometry is not published.
inline SramConfig buffer_sram(int kib, const BufferEnergy& energy, const SramCost& cost) {
  SramConfig s;
  s.size_kib = kib;
  s.read_pj_per_bit = energy.read_pj_per_bit;
  s.write_pj_per_bit = energy.write_pj_per_bit;
  s.reference_bank_kib = energy.bank_kib;
  s.cost = cost;
  return s;
}

// The same, priced by an architecture config's own area and energy figures
// (any config with `area` and `energy` members).
template <class ArchConfig>
SramConfig buffer_sram(const ArchConfig& config, int kib, const BufferEnergy& energy) {
  return buffer_sram(kib, energy, sram_cost(config.area, config.energy));
}

}  // namespace eva
