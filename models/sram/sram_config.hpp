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
  }
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
