#pragma once
#include "common/config.hpp"
#include "common/energy.hpp"

namespace eva {

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
  // (1.71028e-5 and 2.5327875e-5 nJ/bit). Other buffers set their own.
  double read_pj_per_bit = 0.0171028;
  double write_pj_per_bit = 0.025327875;
  // Leakage per KiB: the artifact's SRAM leakage for EVA decode,
  // 2.366926464 nJ per cycle at 500 MHz over its 528 KB of buffers, taken as
  // proportional to capacity (an assumption of this model).
  double leakage_mw_per_kib = 2.366926464 * 500.0 / 528.0;
  // Area per KiB: the artifact's buffer area for EVA decode (hardware.yaml
  // and eva.yaml, 0.8192560712 mm2, area.buffer_mm2) over the same 528 KB,
  // taken as proportional to capacity (an assumption of this model).
  double area_mm2_per_kib = 0.8192560712015196 / 528.0;
  // KiB of this SRAM already priced in the accelerator's lump figures
  // (area.buffer_mm2, energy.sram_leakage_w). Capacity beyond them (or short
  // of them) adds (or takes off) area_mm2_per_kib and leakage_mw_per_kib per
  // KiB. 0 for the generic buffers, which take part in the lump as they are.
  int priced_kib = 0;
  // Regions written and read in turn, each size_kib / buffers: EVA's OC has 2
  // (the array fills one while the epilogue reads the other) or 1.
  int buffers = 1;

  template <class V>
  void visit(V& v) {
    v.field("size_kib", size_kib, between(1, 1 << 20), "capacity, KiB");
    v.field("banks", banks, between(1, 4096), "banks");
    v.field("bank_width_bytes", bank_width_bytes, between(1, 4096), "bytes per bank access");
    v.field("ports", ports, between(1, 16), "accesses per bank per cycle");
    v.field("latency_cycles", latency_cycles, between(0, 1024), "read latency, cycles");
    v.field("read_pj_per_bit", read_pj_per_bit, between(0.0, 1e4), "read energy, pJ/bit");
    v.field("write_pj_per_bit", write_pj_per_bit, between(0.0, 1e4), "write energy, pJ/bit");
    v.field("leakage_mw_per_kib", leakage_mw_per_kib, between(0.0, 1e6), "leakage power per KiB, mW");
    v.field("area_mm2_per_kib", area_mm2_per_kib, between(0.0, 1e3), "area per KiB, mm2");
    v.field("priced_kib", priced_kib, between(0, 1 << 20), "KiB already priced in area.buffer_mm2 and sram_leakage_w");
    v.field("buffers", buffers, between(1, 2), "regions written and read in turn (1 or 2)");
  }
  // The area and leakage of the capacity beyond priced_kib (negative below it).
  double unpriced_kib() const { return static_cast<double>(size_kib) - static_cast<double>(priced_kib); }
};

// An on-chip buffer of `kib` KiB at the given energies per bit. Its port has
// the OC SRAM's width (256 B per cycle, BRIEF section 3, the only published
// port of EVA's SRAMs), an assumption for the buffers whose geometry is not
// published; leakage is the accelerator's (EnergyConfig::sram_leakage_w).
inline SramConfig buffer_sram(int kib, const BufferEnergy& energy) {
  SramConfig s;
  s.size_kib = kib;
  s.read_pj_per_bit = energy.read_pj_per_bit;
  s.write_pj_per_bit = energy.write_pj_per_bit;
  return s;
}

}  // namespace eva
