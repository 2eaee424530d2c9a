#include "arch/presets.hpp"

#include <map>

#include <fmt/format.h>

#include "common/error.hpp"

// The values below are those of the YAML presets in platform/configs/, with
// their sources; a unit test (test/unit/test_presets.cpp) checks that both
// give the same config, field by field.
namespace eva::presets {

namespace {

// DRAM presets (platform/configs/dram/*.yaml): each starts from the defaults.

// DDR4-3200AA (22-22-22), 8 Gb x8 devices, 8 per rank on a 64-bit channel:
// a dual-channel system, 2 x 25.6 = 51.2 GB/s peak.
// Timings: JEDEC JESD79-4 speed bin 3200AA, as in Ramulator 2
// (src/dram/impl/DDR4.cpp, preset DDR4_3200AA, organisation DDR4_8Gb_x8) and
// DRAMsim3 (configs/DDR4_8Gb_x8_3200.ini). Currents: DRAMsim3 DDR4_8Gb_x8_3200.ini.
DramConfig ddr4_3200() {
  DramConfig d;
  d.preset = "ddr4-3200";
  d.kind = DramKind::timed;
  d.standard = "DDR4-3200";
  d.channels = 2;     // a dual-channel system (the device is per channel)
  d.ranks = 2;        // 2 x 8 GB ranks per channel: 32 GB in all
  d.bank_groups = 4;  // x8: 4 bank groups x 4 banks
  d.banks_per_group = 4;
  d.rows = 65536;    // 8 Gb x8: 64 K rows
  d.columns = 1024;  // 1024 columns x 64 bits = 8 KiB row per rank
  d.width_bits = 64;
  d.burst_length = 8;  // BL8: 64 B per burst
  d.tck_ps = 625;      // 1600 MHz clock, 3200 MT/s
  d.timing.tRCD = 22;
  d.timing.tRP = 22;
  d.timing.tRAS = 52;
  d.timing.tRC = 74;  // tRAS + tRP
  d.timing.tCL = 22;
  d.timing.tCWL = 16;
  d.timing.tBURST = 4;  // BL8 / 2
  d.timing.tCCD_S = 4;
  d.timing.tCCD_L = 8;  // max(5 nCK, 5 ns)
  d.timing.tRRD_S = 4;  // x8 (1 KiB page)
  d.timing.tRRD_L = 8;
  d.timing.tFAW = 34;  // x8 (1 KiB page): 21 ns
  d.timing.tWTR_S = 4;
  d.timing.tWTR_L = 12;
  d.timing.tRTP = 12;
  d.timing.tWR = 24;       // 15 ns
  d.timing.tRFC = 560;     // 8 Gb: 350 ns
  d.timing.tREFI = 12480;  // 7.8 us
  d.timing.tCKE = 8;       // max(3 nCK, 5 ns)
  d.timing.tXP = 10;       // max(4 nCK, 6 ns)
  d.page_policy = PagePolicy::open;
  d.address_mapping = "ro,ra,ba,co,bg,ch";
  d.power.vdd = 1.2;
  d.power.idd0 = 57;
  d.power.idd2n = 37;
  d.power.idd3n = 52;
  d.power.idd4r = 168;
  d.power.idd4w = 150;
  d.power.idd5 = 250;  // IDD5AB
  d.power.idd2p = 25;
  d.power.idd3p = 43;
  d.power.devices_per_rank = 8;
  // I/O: POD termination only, 1.37 pJ/bit (derived, docs/ENERGY.md).
  d.power.io_read_pj_per_bit = 1.37;
  d.power.io_write_pj_per_bit = 1.37;
  return d;
}

// HBM2 at 2 Gb/s per pin, one stack in pseudo-channel mode: 8 channels x 2
// pseudo-channels of 64 bits, modelled as 16 independent channels:
// 16 x 16 GB/s = 256 GB/s peak. BL4 moves 32 B per pseudo-channel burst.
// Timings: DRAMSys configs/memspec/HBM2.json and gem5 dram_interfaces/hbm.py
// (HBM_2000_4H_1x64), which agree. tRCD is the read value (12; writes allow 6).
// Currents: DRAMsim3 configs/HBM2_8Gb_x128.ini gives them per 128-bit legacy
// channel; a 64-bit pseudo-channel is counted as half of one.
DramConfig hbm2() {
  DramConfig d;
  d.preset = "hbm2";
  d.kind = DramKind::timed;
  d.standard = "HBM2-2000";
  d.channels = 16;
  d.ranks = 1;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.rows = 32768;
  d.columns = 128;  // x 64 bits = 1 KiB row
  d.width_bits = 64;
  d.burst_length = 4;
  d.tck_ps = 1000;
  d.timing.tRCD = 12;
  d.timing.tRP = 14;
  d.timing.tRAS = 28;
  d.timing.tRC = 42;
  d.timing.tCL = 17;
  d.timing.tCWL = 7;
  d.timing.tBURST = 2;
  d.timing.tCCD_S = 2;
  d.timing.tCCD_L = 3;
  d.timing.tRRD_S = 4;
  d.timing.tRRD_L = 6;
  d.timing.tFAW = 16;
  d.timing.tWTR_S = 4;
  d.timing.tWTR_L = 9;
  d.timing.tRTP = 5;
  d.timing.tWR = 14;
  d.timing.tRFC = 220;
  d.timing.tREFI = 3900;
  d.timing.tRFCpb = 96;    // tRFCSB (DRAMSys HBM2.json)
  d.timing.tREFIpb = 244;  // tREFISB (DRAMSys HBM2.json)
  d.timing.tCKE = 8;       // DRAMsim3 HBM2_8Gb_x128.ini
  d.timing.tXP = 8;        // DRAMsim3, DRAMSys HBM2.json, gem5 hbm.py
  d.page_policy = PagePolicy::open;
  d.refresh = RefreshMode::per_bank;  // single-bank refresh
  d.address_mapping = "ro,ra,ba,co,bg,ch";
  d.power.vdd = 1.2;
  d.power.idd0 = 65;
  d.power.idd2n = 40;
  d.power.idd3n = 55;
  d.power.idd4r = 390;
  d.power.idd4w = 500;
  d.power.idd5 = 250;
  d.power.idd2p = 28;
  d.power.idd3p = 40;
  d.power.devices_per_rank = 0.5;  // half a 128-bit legacy channel
  // I/O: 0.80 pJ/bit, the I/O share of FGDRAM's HBM2 data path at 50%
  // toggling (O'Connor et al., MICRO 2017, Table 3; docs/ENERGY.md).
  d.power.io_read_pj_per_bit = 0.80;
  d.power.io_write_pj_per_bit = 0.80;
  return d;
}

// The `ideal` DRAM: one pipe of fixed bandwidth with a fixed latency, no banks,
// rows or refresh. The EVA paper's memory model; the real controller and the
// DDR4/LPDDR/HBM presets replace it for realistic studies.
DramConfig ideal() {
  DramConfig d;
  d.preset = "ideal";
  d.kind = DramKind::ideal;
  // EVA artifact: mem_width 1024 bits/cycle at 500 MHz = 64 GB/s (BRIEF section 3).
  d.bandwidth_gbps = 64;
  // The artifact charges no access latency (bytes / bandwidth only).
  d.latency_ns = 0;
  // Address space; storage is sparse, so only written pages cost host memory.
  d.capacity_gib = 64;
  // EVA artifact DRAM energy, reads and writes (BRIEF section 3).
  d.energy_pj_per_bit = 12.23;
  return d;
}

// LPDDR4-4266, 16 Gb per x16 channel, four channels (a 64-bit LPDDR4 system):
// 4 x 8.53 = 34.1 GB/s peak. BL32 so that one burst moves 64 B.
// Timings: DRAMSys configs/memspec/JEDEC_1Gbx16_LPDDR4-4266.json (JESD209-4).
// Currents: no 4266 currents are public in that memspec; these are LPDDR4-3200's
// VDD2 rail (DRAMSys configs/memspec/JEDEC_8Gb_LPDDR4-3200_16bit.json), a
// stand-in that underestimates energy at 4266.
DramConfig lpddr4_4266() {
  DramConfig d;
  d.preset = "lpddr4-4266";
  d.kind = DramKind::timed;
  d.standard = "LPDDR4-4266";
  d.channels = 4;
  d.ranks = 1;
  d.bank_groups = 1;  // LPDDR4 has no bank groups: _S and _L timings are equal
  d.banks_per_group = 8;
  d.rows = 131072;   // 16 Gb per channel
  d.columns = 1024;  // x 16 bits = 2 KiB row
  d.width_bits = 16;
  d.burst_length = 32;  // BL32: 64 B per burst
  d.tck_ps = 469;
  d.timing.tRCD = 39;
  d.timing.tRP = 39;  // tRPpb
  d.timing.tRAS = 90;
  d.timing.tRC = 129;    // tRCpb
  d.timing.tCL = 36;     // RL
  d.timing.tCWL = 18;    // WL
  d.timing.tBURST = 16;  // BL32 / 2
  d.timing.tCCD_S = 16;  // tCCD = BL / 2 at BL32
  d.timing.tCCD_L = 16;
  d.timing.tRRD_S = 22;
  d.timing.tRRD_L = 22;
  d.timing.tFAW = 86;
  d.timing.tWTR_S = 22;
  d.timing.tWTR_L = 22;
  d.timing.tRTP = 17;
  d.timing.tWR = 39;
  d.timing.tRFC = 812;      // tRFCab, 16 Gb per channel
  d.timing.tREFI = 8341;    // 3.9 us
  d.timing.tRFCpb = 406;    // DRAMSys memspec
  d.timing.tREFIpb = 1042;  // tREFI / 8 banks (DRAMSys memspec)
  d.timing.tCKE = 17;       // CKE (DRAMSys memspec)
  d.timing.tXP = 17;        // XP (DRAMSys memspec)
  d.page_policy = PagePolicy::open;
  d.refresh = RefreshMode::per_bank;  // REFpb, as LPDDR4 controllers use
  d.address_mapping = "ro,ra,ba,co,bg,ch";
  // power: VDD2 rail of LPDDR4-3200 (see above)
  d.power.vdd = 1.1;
  d.power.idd0 = 45;
  d.power.idd2n = 27;
  d.power.idd3n = 30;
  d.power.idd4r = 275;
  d.power.idd4w = 210;
  d.power.idd5 = 90;
  d.power.idd2p = 3;
  d.power.idd3p = 9;
  d.power.devices_per_rank = 1;
  // I/O: the same memspec's VDDQ rail in reads, (IDD4RQ 150 - IDD3NQ 0.75) mA
  // x 1.1 V / (16 x 3.2 Gb/s) = 3.2 pJ/bit; writes alike (docs/ENERGY.md).
  d.power.io_read_pj_per_bit = 3.2;
  d.power.io_write_pj_per_bit = 3.2;
  return d;
}

// LPDDR5-6400, x16 channels in bank-group mode, four channels (a 64-bit LPDDR5
// system): 4 x 12.8 = 51.2 GB/s peak. CK 800 MHz (tCK 1.25 ns) with WCK at 4:1,
// so 8 data beats per CK; BL32 moves 64 B in 4 CK.
// Timings: gem5 src/python/gem5/components/memory/dram_interfaces/lpddr5.py
// (LPDDR5_6400_1x16_BG_BL32, in ns, rounded up to CK) and Ramulator 2
// src/dram/impl/LPDDR5.cpp (LPDDR5_6400: nCWL 11, nRRD 4, nFAW 16).
// Currents: none are public for LPDDR5 in those sources; the LPDDR4-3200 VDD2
// values (DRAMSys) stand in, so energy is a rough figure for this preset.
DramConfig lpddr5_6400() {
  DramConfig d;
  d.preset = "lpddr5-6400";
  d.kind = DramKind::timed;
  d.standard = "LPDDR5-6400";
  d.channels = 4;
  d.ranks = 1;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.rows = 32768;
  d.columns = 1024;  // x 16 bits = 2 KiB row
  d.width_bits = 16;
  d.burst_length = 32;
  d.tck_ps = 1250;
  d.timing.tRCD = 15;  // 18 ns
  d.timing.tRP = 15;   // 18 ns
  d.timing.tRAS = 34;  // 42 ns
  d.timing.tRC = 49;   // tRAS + tRP
  d.timing.tCL = 17;   // base RL 17 CK (21.25 ns)
  d.timing.tCWL = 11;
  d.timing.tBURST = 4;  // 32 beats / 8 per CK
  d.timing.tCCD_S = 4;
  d.timing.tCCD_L = 8;  // 10 ns at BL32
  d.timing.tRRD_S = 4;  // 5 ns
  d.timing.tRRD_L = 4;
  d.timing.tFAW = 16;      // 20 ns
  d.timing.tWTR_S = 5;     // 6.25 ns
  d.timing.tWTR_L = 10;    // 12 ns
  d.timing.tRTP = 4;       // 4.59 ns
  d.timing.tWR = 28;       // 34 ns
  d.timing.tRFC = 168;     // tRFCab 210 ns (8 Gb)
  d.timing.tREFI = 3125;   // 3.906 us
  d.timing.tRFCpb = 96;    // tRFCpb 120 ns (Ramulator 2, 8 Gb)
  d.timing.tREFIpb = 195;  // tREFI / 16 banks: one bank per command (LPDDR5 pairs banks; approximated)
  d.timing.tXP = 6;        // 7 ns (gem5 lpddr5.py)
  d.timing.tCKE = 6;       // not in those sources: taken equal to tXP
  d.page_policy = PagePolicy::open;
  d.refresh = RefreshMode::per_bank;  // REFpb
  d.address_mapping = "ro,ra,ba,co,bg,ch";
  // power: stand-in: LPDDR4-3200 VDD2 rail (see above)
  d.power.vdd = 1.05;
  d.power.idd0 = 45;
  d.power.idd2n = 27;
  d.power.idd3n = 30;
  d.power.idd4r = 275;
  d.power.idd4w = 210;
  d.power.idd5 = 90;
  d.power.idd2p = 3;
  d.power.idd3p = 9;
  d.power.devices_per_rank = 1;
  // I/O: VDDQ 0.5 V; an LPDDR5X x16 die's IDD4RQ of 111.9 mA at 7.5 Gb/s
  // (Micron data sheet, quoted second-hand) gives 0.47 pJ/bit; writes alike.
  d.power.io_read_pj_per_bit = 0.47;
  d.power.io_write_pj_per_bit = 0.47;
  return d;
}

// Architectures (platform/configs/archs/*.yaml): each applies its values over
// the defaults and the DRAM preset, after its base if it has one.

// ANT (MICRO'22): the 32x32 weight-stationary array with int/flint/PoT decoders
// in the PEs, A8W8 (BRIEF section 4; ../shared/BASELINES.md section 1).
void ant(ArchConfig& c) {
  c.name = "ant";
  c.kind = ArchKind::ant;
  c.description = "ANT, adaptive numeric types (int/flint/PoT) on a 32x32 WS array, A8W8";
  c.systolic.tile_overhead_cycles = 2;  // EVA artifact baselines.yaml pipeline_overhead_cycles (decoders)
  // energy: artifact baselines.yaml ant: core_power; buffers as sa (the defaults)
  c.energy.pe_w = 0.0016817964892578126;  // core_power 1.722159605 W over 32 x 32 PEs
  // area: artifact configs/hardware.yaml ant
  c.area.pe_mm2 = 0.00053424;  // 0.54706176 mm2 over 32 x 32 PEs
}

// EVA with AQLM 2x8 weights (d = 8, 2 bits per weight): "EVA-W2", the paper's
// headline configuration (BRIEF sections 2 and 3).
void eva(ArchConfig& c) {
  c.name = "eva";
  c.kind = ArchKind::eva;
  c.description = "EVA, VQ decode as input-codebook GEMM + conflict-free lookup; AQLM 2x8 (W2)";
  c.formats.act_bits = 16;    // FP16 activations in VQ decode (BRIEF section 3)
  c.formats.weight_bits = 8;  // INT8 weights in prefill mode
  c.formats.out_bits = 16;    // FP16 outputs
  c.vq.codebooks = 2;
  c.vq.index_bits = 8;
  c.vq.vector_dim = 8;
  // oc: the output-codebook SRAM
  c.oc.size_kib = 128;                  // two 64 KB halves (128 banks x 256 FP16 entries each, BRIEF section 3),
  c.oc.buffers = 2;                     // double-buffered: the epilogue overlaps the next pass's GEMM, as the
                                        // artifact's pass cost max(GEMM, N) assumes (docs/EVA.md)
  c.oc.read_pj_per_bit = 0.0171028125;  // artifact eva.yaml cap_buf read/write energy (nJ/bit x 1000)
  c.oc.write_pj_per_bit = 0.025327875;
  // energy: artifact eva.yaml vqarray_2_decode (nJ/bit x 1000 = pJ/bit; nJ/cycle x 0.5 = W)
  c.energy.pe_w = 0.00139345703125;            // array_power 1.4269 W (FP16 input-stationary mode) over 32 x 32
  c.energy.epilogue_input_w = 0.00187449375;   // epilogue_power_per_unit 0.0599838 W over a unit's 32 inputs
  c.energy.vector_lane_w = 0.005773199653125;  // sfu_power 0.1847423889 W over 32 lanes
  c.energy.sram_leakage_w_per_mm2 = 1.444558390961125;  // 1.183463232 W over the buffers' 0.8192560712015196 mm2
  c.energy.weight.read_pj_per_bit = 0.0455898;          // index buffer (wbuf)
  c.energy.weight.write_pj_per_bit = 0.0800469;
  c.energy.input.read_pj_per_bit = 0.027558203125;
  c.energy.input.write_pj_per_bit = 0.049760546875;
  c.energy.output.read_pj_per_bit = 0.027558203125;
  c.energy.output.write_pj_per_bit = 0.049760546875;
  c.energy.codebook.read_pj_per_bit = 0.0142475;
  c.energy.codebook.write_pj_per_bit = 0.0364498;
  // area: artifact configs/hardware.yaml vqarray_2_decode and eva.yaml
  c.area.pe_mm2 = 0.000469656140625;           // 0.480927888 mm2 over 32 x 32 PEs
  c.area.epilogue_input_mm2 = 0.000393836625;  // 0.012602772 mm2 per unit over 32 inputs
  c.area.vector_lane_mm2 = 0.0019806490625;    // 0.06338077 mm2 over 32 lanes
  // buffers 0.8192560712015196 mm2 with the published 64 KB OC: 608 KiB of
  // cells (input 256, index 128, output 128, codebook 32, OC 64), the rest over
  // 5 SRAMs x 128 banks x 2 B of port
  c.area.sram_mm2_per_port_byte = 0.00014586140562618705;
}

// Ablation (EVA paper Table X): one epilogue unit of 32 inputs instead of 4 x 32.
void eva_eu1x32(ArchConfig& c) {
  eva(c);
  c.name = "eva-eu1x32";
  c.description = "EVA ablation, one 32-input epilogue unit";
  c.epilogue.units = 1;
  c.epilogue.adder_inputs = 32;
}

// Ablation (EVA paper Table X): one epilogue unit of 4 inputs instead of 4 x 32.
void eva_eu1x4(ArchConfig& c) {
  eva(c);
  c.name = "eva-eu1x4";
  c.description = "EVA ablation, one 4-input epilogue unit";
  c.epilogue.units = 1;
  c.epilogue.adder_inputs = 4;
}

// EVA with the published output-codebook SRAM as it is: one 64 KB region, so
// the epilogue waits for each pass's GEMM (docs/EVA.md, "The OC's buffering").
void eva_oc1(ArchConfig& c) {
  eva(c);
  c.name = "eva-oc1";
  c.description = "EVA with a single-buffered 64 KB OC SRAM (the published size)";
  c.oc.size_kib = 64;
  c.oc.buffers = 1;
}

// EVA with GPTVQ-style grouped codebooks: d = 4, 8-bit indices, one codebook per
// 256 x 256 weight group, 2 bits per weight (BRIEF section 3).
void eva_gptvq(ArchConfig& c) {
  eva(c);
  c.name = "eva-gptvq";
  c.description = "EVA with GPTVQ 4D grouped codebooks (256x256 groups, W2)";
  c.vq.codebooks = 1;
  c.vq.index_bits = 8;
  c.vq.vector_dim = 4;
  c.vq.group_k = 256;
  c.vq.group_n = 256;
  c.vq.prefill_above_m = 4;  // EVA artifact end_to_end_ops.py (BRIEF section 3)
}

// EVA with AQLM 3x8 weights (d = 8, 3 bits per weight; BRIEF section 3).
void eva_w3(ArchConfig& c) {
  eva(c);
  c.name = "eva-w3";
  c.description = "EVA with AQLM 3x8 (W3)";
  c.vq.codebooks = 3;
  c.vq.prefill_above_m = 16;  // EVA artifact end_to_end_ops.py (BRIEF section 3)
}

// EVA with AQLM 4x8 weights (d = 8, 4 bits per weight; BRIEF section 3).
void eva_w4(ArchConfig& c) {
  eva(c);
  c.name = "eva-w4";
  c.description = "EVA with AQLM 4x8 (W4)";
  c.vq.codebooks = 4;
  c.vq.prefill_above_m = 8;  // EVA artifact end_to_end_ops.py (BRIEF section 3)
}

// FIGLUT (HPCA'25): LUT-based FP-INT GEMM, 4 MPUs of 2x16 PEs, each PE a
// half-size LUT of mu = 4 activations read by 8 RACs, bit-serial over the
// weight bit-planes (BRIEF section 4; BASELINES.md section 3; EVA artifact
// simulator/methods/figlut.py and configs/methods/baselines.yaml figlut_4).
void figlut(ArchConfig& c) {
  c.name = "figlut";
  c.kind = ArchKind::figlut;
  c.description = "FIGLUT, LUT-based FP16 x INT4 GEMM, 4 MPUs of 2x16 (A16W4)";
  // systolic: one MPU (artifact figlut.py: H = 2, W = 16)
  c.systolic.rows = 2;
  c.systolic.cols = 16;
  c.systolic.tile_overhead_cycles = 4;  // LUT generation 2 + reduction 2 per tile (artifact figlut.py)
  c.systolic.load_rows_per_cycle = 1;   // overlapped: a tile's 2 x 16 key rows in 2 cycles
  c.figlut.mu = 4;
  c.figlut.racs_per_pe = 8;
  c.figlut.mpus = 4;
  // formats: A16W4 with 16-bit outputs (artifact figlut_4)
  c.formats.act_bits = 16;
  c.formats.weight_bits = 4;
  c.formats.out_bits = 16;
  c.formats.acc_bits = 32;
  // energy: artifact baselines.yaml figlut_4 (nJ/bit x 1000 = pJ/bit; nJ/cycle x 0.5 = W)
  c.energy.pe_w = 0.0234856124140625;  // core_power 3.006158389 W over 4 MPUs x 2 x 16 PEs (LUTs included)
  c.energy.sram_leakage_w_per_mm2 = 1.2651295425060338;  // 1.02195664 W over the buffers' 0.80778814 mm2
  c.energy.weight.read_pj_per_bit = 0.01850515625;
  c.energy.weight.write_pj_per_bit = 0.040707421875;
  c.energy.input.read_pj_per_bit = 0.06174462890625;
  c.energy.input.write_pj_per_bit = 0.1521748046875;
  c.energy.output.read_pj_per_bit = 0.06174462890625;
  c.energy.output.write_pj_per_bit = 0.1521748046875;
  // area: artifact configs/hardware.yaml figlut_4
  c.area.pe_mm2 = 0.00555497775;  // 0.711037152 mm2 over 4 MPUs x 2 x 16 PEs
  // buffers 0.80778814 mm2: 512 KiB of cells, the rest over 3 x 128 banks x 2 B of port
  c.area.sram_mm2_per_port_byte = 0.0003582181406249999;
}

// FIGNA (HPCA'24): FP16 activations pre-aligned to integers, INT4 weights, an
// integer 32x32 weight-stationary array (BRIEF section 4; BASELINES.md section 2).
void figna(ArchConfig& c) {
  c.name = "figna";
  c.kind = ArchKind::figna;
  c.description = "FIGNA, FP16 activations pre-aligned to INT on a 32x32 WS array, A16W4";
  c.systolic.tile_overhead_cycles = 4;  // EVA artifact baselines.yaml pipeline_overhead_cycles (alignment)
  // formats: A16W4 with 16-bit outputs (EVA artifact baselines.yaml)
  c.formats.act_bits = 16;
  c.formats.weight_bits = 4;
  c.formats.out_bits = 16;
  // energy: artifact baselines.yaml figna (nJ/bit x 1000 = pJ/bit; nJ/cycle x 0.5 = W)
  c.energy.pe_w = 0.0015483013955078125;                 // core_power 1.585460629 W over 32 x 32 PEs
  c.energy.sram_leakage_w_per_mm2 = 1.4204752086474672;  // 1.01316096 W over the buffers' 0.7132549402004 mm2
  c.energy.weight.read_pj_per_bit = 0.026060546875;
  c.energy.weight.write_pj_per_bit = 0.0429734375;
  c.energy.input.read_pj_per_bit = 0.0846931640625;
  c.energy.input.write_pj_per_bit = 0.154239453125;
  c.energy.output.read_pj_per_bit = 0.0846931640625;
  c.energy.output.write_pj_per_bit = 0.154239453125;
  // area: artifact configs/hardware.yaml figna
  c.area.pe_mm2 = 0.00042433453125;  // 0.43451856 mm2 over 32 x 32 PEs
  // buffers 0.7132549402004 mm2: 512 KiB of cells, the rest over 3 x 128 banks x 2 B of port
  c.area.sram_mm2_per_port_byte = 0.0002351280367192708;
}

// Plain 32x32 weight-stationary systolic array, A8W8 with 8-bit outputs
// (BRIEF section 4; EVA artifact configs/methods/baselines.yaml). Every value
// not given here is the default documented in the config structs.
void sa(ArchConfig& c) {
  c.name = "sa";
  c.kind = ArchKind::sa;
  c.description = "32x32 weight-stationary INT8 systolic array (A8W8)";
}

// VQ with conflicting codebook lookups: lanes rebuild weights from a 4-bank
// codebook SRAM (8 x 256 x FP16, 4 KB, 64 B/cycle), then a GEMV; AQLM 2x8
// weights (BRIEF section 4; BASELINES.md section 4).
void vq_conflict(ArchConfig& c) {
  c.name = "vq-conflict";
  c.kind = ArchKind::vq_conflict;
  c.description = "VQ decode by codebook lookup in a 4-bank SRAM (conflicts), AQLM 2x8 (W2)";
  c.formats.act_bits = 16;
  c.formats.out_bits = 16;
  c.vq.codebooks = 2;
  c.vq.index_bits = 8;
  c.vq.vector_dim = 8;
  // Energy and area: the artifact publishes none for this baseline. Its buffers
  // take EVA's figures (codebook, index, input and output buffers); its lanes and
  // multiply-add datapath take the sa array's power and area over its 4 lanes, a
  // stand-in for a datapath of similar size, so its energy is indicative only.
  c.energy.pe_w = 0.15690636525;                        // per lane: sa's 0.627625461 W over 4 lanes
  c.energy.sram_leakage_w_per_mm2 = 1.444558390961125;  // EVA's
  c.energy.weight.read_pj_per_bit = 0.0455898;
  c.energy.weight.write_pj_per_bit = 0.0800469;
  c.energy.input.read_pj_per_bit = 0.027558203125;
  c.energy.input.write_pj_per_bit = 0.049760546875;
  c.energy.output.read_pj_per_bit = 0.027558203125;
  c.energy.output.write_pj_per_bit = 0.049760546875;
  c.energy.codebook.bank_kib = 8;  // EVA's codebook figures taken for this SRAM's own 32 KiB in 4 banks
  c.area.pe_mm2 = 0.082672128;     // per lane: sa's 0.330688512 mm2 over 4 lanes
  c.area.sram_mm2_per_port_byte = 0.00014586140562618705;  // EVA's
}

// Ablation (EVA paper Table X): conflict-free VQ decode, every lane with its own
// codebook copy (BASELINES.md 4.3: R = lanes gives one cycle per lookup).
void vq_conflict_free(ArchConfig& c) {
  vq_conflict(c);
  c.name = "vq-conflict-free";
  c.description = "VQ lookup ablation, a private codebook copy per lane (no conflicts)";
  c.lookup.replicas = 4;
}

// Ablation (EVA paper Table X): VQ lookups with a 50% replicated codebook in the
// style of VQ-LLM: 2 copies for 4 lanes, each in its own banks (BASELINES.md 4.3).
void vq_conflict_rep50(ArchConfig& c) {
  vq_conflict(c);
  c.name = "vq-conflict-rep50";
  c.description = "VQ lookup ablation, codebook replicated for half the lanes";
  c.lookup.replicas = 2;
}

using DramPreset = DramConfig (*)();
using ArchPreset = void (*)(ArchConfig&);

const std::map<std::string, DramPreset, std::less<>>& dram_presets() {
  static const std::map<std::string, DramPreset, std::less<>> presets = {{"ddr4-3200", ddr4_3200},
                                                                         {"hbm2", hbm2},
                                                                         {"ideal", ideal},
                                                                         {"lpddr4-4266", lpddr4_4266},
                                                                         {"lpddr5-6400", lpddr5_6400}};
  return presets;
}

const std::map<std::string, ArchPreset, std::less<>>& arch_presets() {
  static const std::map<std::string, ArchPreset, std::less<>> presets = {{"ant", ant},
                                                                         {"eva", eva},
                                                                         {"eva-eu1x32", eva_eu1x32},
                                                                         {"eva-eu1x4", eva_eu1x4},
                                                                         {"eva-gptvq", eva_gptvq},
                                                                         {"eva-oc1", eva_oc1},
                                                                         {"eva-w3", eva_w3},
                                                                         {"eva-w4", eva_w4},
                                                                         {"figlut", figlut},
                                                                         {"figna", figna},
                                                                         {"sa", sa},
                                                                         {"vq-conflict", vq_conflict},
                                                                         {"vq-conflict-free", vq_conflict_free},
                                                                         {"vq-conflict-rep50", vq_conflict_rep50}};
  return presets;
}

template <class Map>
std::vector<std::string> names_of(const Map& map) {
  std::vector<std::string> out;
  for (const auto& entry : map) out.push_back(entry.first);
  return out;
}

}  // namespace

DramConfig dram(std::string_view name) {
  const auto it = dram_presets().find(name);
  if (it == dram_presets().end())
    throw InputError(fmt::format("unknown DRAM preset '{}' (built-in: {})", name, fmt::join(dram_names(), ", ")));
  return it->second();
}

ArchConfig arch(std::string_view name, std::string_view dram_preset) {
  const auto it = arch_presets().find(name);
  if (it == arch_presets().end())
    throw InputError(fmt::format("unknown architecture '{}' (built-in: {})", name, fmt::join(arch_names(), ", ")));
  ArchConfig c;
  c.dram = dram(dram_preset);
  it->second(c);
  return c;
}

std::vector<std::string> arch_names() { return names_of(arch_presets()); }
std::vector<std::string> dram_names() { return names_of(dram_presets()); }

}  // namespace eva::presets
