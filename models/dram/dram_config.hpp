#pragma once
// DRAM configuration: the preset's values, overridable key by key (dram.*).
// Two kinds: `ideal` (a fixed-bandwidth pipe, the EVA paper's memory model)
// and `timed` (the DRAM controller with device timing). Defaults are the
// `ideal` preset's; the timed presets in platform/configs/dram/ give every
// device value with its source.
#include <cmath>
#include <cstdint>
#include <string>

#include "common/config.hpp"

namespace eva {

enum class DramKind { ideal, timed };
template <>
struct EnumNames<DramKind> {
  static const std::vector<std::pair<std::string_view, DramKind>>& list() {
    static const std::vector<std::pair<std::string_view, DramKind>> names = {{"ideal", DramKind::ideal},
                                                                             {"timed", DramKind::timed}};
    return names;
  }
};

enum class PagePolicy { open, closed };
template <>
struct EnumNames<PagePolicy> {
  static const std::vector<std::pair<std::string_view, PagePolicy>>& list() {
    static const std::vector<std::pair<std::string_view, PagePolicy>> names = {{"open", PagePolicy::open},
                                                                               {"closed", PagePolicy::closed}};
    return names;
  }
};

enum class RefreshMode { all_bank, per_bank };
template <>
struct EnumNames<RefreshMode> {
  static const std::vector<std::pair<std::string_view, RefreshMode>>& list() {
    static const std::vector<std::pair<std::string_view, RefreshMode>> names = {{"all_bank", RefreshMode::all_bank},
                                                                                {"per_bank", RefreshMode::per_bank}};
    return names;
  }
};

// Device timing in clock cycles (tCK) of the command clock. The defaults are
// DDR4-3200AA's (platform/configs/dram/ddr4-3200.yaml gives their sources).
struct DramTimings {
  int tRCD = 22, tRP = 22, tRAS = 52, tRC = 74, tCL = 22, tCWL = 16, tBURST = 4;
  int tCCD_S = 4, tCCD_L = 8, tRRD_S = 4, tRRD_L = 8, tFAW = 34, tWTR_S = 4, tWTR_L = 12;
  int tRTP = 12, tWR = 24, tRFC = 560, tREFI = 12480;
  int tRFCpb = 0, tREFIpb = 0;  // per-bank refresh (refresh: per_bank); DDR4 has none
  // Power-down: the shortest stay (tCKE) and the exit to the first command (tXP).
  int tCKE = 8, tXP = 10;

  template <class V>
  void visit(V& v) {
    const auto cycles = between(0, 1 << 24);
    v.field("tRCD", tRCD, cycles, "ACT to RD/WR");
    v.field("tRP", tRP, cycles, "PRE to ACT");
    v.field("tRAS", tRAS, cycles, "ACT to PRE");
    v.field("tRC", tRC, cycles, "ACT to ACT, same bank");
    v.field("tCL", tCL, cycles, "RD to data");
    v.field("tCWL", tCWL, cycles, "WR to data");
    v.field("tBURST", tBURST, between(1, 1 << 10), "data cycles per burst");
    v.field("tCCD_S", tCCD_S, cycles, "column to column, other bank group");
    v.field("tCCD_L", tCCD_L, cycles, "column to column, same bank group");
    v.field("tRRD_S", tRRD_S, cycles, "ACT to ACT, other bank group");
    v.field("tRRD_L", tRRD_L, cycles, "ACT to ACT, same bank group");
    v.field("tFAW", tFAW, cycles, "window of four ACTs per rank");
    v.field("tWTR_S", tWTR_S, cycles, "write data end to RD, other bank group");
    v.field("tWTR_L", tWTR_L, cycles, "write data end to RD, same bank group");
    v.field("tRTP", tRTP, cycles, "RD to PRE");
    v.field("tWR", tWR, cycles, "write data end to PRE");
    v.field("tRFC", tRFC, between(1, 1 << 24), "REF to any command");
    v.field("tREFI", tREFI, between(1, 1 << 28), "refresh interval");
    v.field("tRFCpb", tRFCpb, between(0, 1 << 24), "per-bank REF to the bank's next ACT");
    v.field("tREFIpb", tREFIpb, between(0, 1 << 28), "per-bank refresh interval (one bank each)");
    v.field("tCKE", tCKE, cycles, "power-down entry to exit, at least");
    v.field("tXP", tXP, cycles, "power-down exit to the first command");
  }
};

// What the device draws (DRAMPower-style currents per device, core rail) and
// what moving a bit across the interface costs (I/O: drivers and termination
// at both ends; the controller's PHY logic is not counted). The defaults are
// DDR4-3200's; each preset file gives its values with their sources.
struct DramPower {
  double vdd = 1.2;
  double idd0 = 57, idd2n = 37, idd3n = 52, idd4r = 168, idd4w = 150, idd5 = 250;  // mA per device
  // Power-down: precharge (all banks closed) and active (a row open).
  double idd2p = 25, idd3p = 43;  // mA per device (DRAMsim3 DDR4_8Gb_x8_3200.ini)
  double devices_per_rank = 8;
  // DDR4 POD termination, one rank: 1.2 V across 34 + 10 + 120 ohm while a
  // pin drives low (half the bits), 3.2 Gb/s: 8.78 mW per pin, 1.37 pJ/bit
  // (derived; docs/ENERGY.md, "DRAM energy"). Writes cost as much as reads.
  double io_read_pj_per_bit = 1.37, io_write_pj_per_bit = 1.37;

  template <class V>
  void visit(V& v) {
    const auto ma = between(0.0, 1e5);
    v.field("vdd", vdd, between(0.0, 10.0), "supply, V");
    v.field("idd0", idd0, ma, "ACT-PRE current, mA");
    v.field("idd2n", idd2n, ma, "precharge standby, mA");
    v.field("idd3n", idd3n, ma, "active standby, mA");
    v.field("idd4r", idd4r, ma, "burst read, mA");
    v.field("idd4w", idd4w, ma, "burst write, mA");
    v.field("idd5", idd5, ma, "refresh, mA");
    v.field("idd2p", idd2p, ma, "precharge power-down, mA");
    v.field("idd3p", idd3p, ma, "active power-down, mA");
    v.field("devices_per_rank", devices_per_rank, positive_up_to(1024.0), "devices whose currents add per rank");
    v.field("io_read_pj_per_bit", io_read_pj_per_bit, between(0.0, 1e4), "interface energy per bit read, pJ");
    v.field("io_write_pj_per_bit", io_write_pj_per_bit, between(0.0, 1e4), "interface energy per bit written, pJ");
  }
};

struct DramConfig {
  std::string preset = "ideal";  // the preset file these values started from
  DramKind kind = DramKind::ideal;
  std::string standard = "ideal";  // the device standard, for reports
  // --- ideal ---
  // EVA artifact: mem_width 1024 bits/cycle at 500 MHz = 64 GB/s (BRIEF section 3).
  double bandwidth_gbps = 64.0;
  // The EVA artifact models DRAM by bandwidth alone, with no access latency.
  double latency_ns = 0.0;
  // Address space of `ideal`. Storage is sparse, so only written pages cost
  // memory; 64 GiB holds LLaMA-70B at 8 bits per weight with room to spare.
  double capacity_gib = 64.0;
  // EVA artifact DRAM access energy, reads and writes alike (BRIEF section 3).
  double energy_pj_per_bit = 12.23;
  // EVA artifact dram_leak_energy: 4.01232 nJ per 500 MHz cycle, drawn for the
  // whole run (background and refresh of the device).
  double background_w = 2.00616;
  // --- timed: organisation (per channel) ---
  int channels = 1, ranks = 1, bank_groups = 4, banks_per_group = 4;
  int rows = 65536, columns = 1024;  // columns of width_bits each per row
  int width_bits = 64, burst_length = 8;
  double tck_ps = 625.0;
  DramTimings timing;
  PagePolicy page_policy = PagePolicy::open;
  RefreshMode refresh = RefreshMode::all_bank;
  // Address bits from most to least significant; the burst offset sits below.
  std::string address_mapping = "ro,ra,ba,co,bg,ch";
  int read_queue = 32, write_queue = 32;  // entries per channel (bursts)
  int write_high = 24, write_low = 8;     // write-drain watermarks
  // Write responses: when the write is done in the device (false, the
  // default), or when its queue takes it and its data is buffered (true),
  // as controllers with a write buffer answer (gem5's MemCtrl responds to a
  // write once it is queued, src/mem/mem_ctrl.cc). The queue's room still
  // holds writes back when it is full.
  bool posted_writes = false;
  // Power-down policy: a channel's ranks power down once it has been idle
  // this long (active power-down with a row open, else precharge
  // power-down), and the next command waits for the exit (tCKE, tXP). 0
  // powers down as soon as the channel is idle, as gem5's DRAM interface
  // does with enable_dram_powerdown (src/mem/dram_interface.cc).
  bool power_down = true;
  int power_down_idle_tck = 0;
  DramPower power;

  template <class V>
  void visit(V& v) {
    v.field("preset", preset, "preset file name");
    v.field("kind", kind, "ideal | timed");
    v.field("standard", standard, "device standard");
    v.field("bandwidth_gbps", bandwidth_gbps, positive_up_to(1e6), "ideal: peak bandwidth, GB/s");
    v.field("latency_ns", latency_ns, between(0.0, 1e6), "ideal: fixed access latency, ns");
    v.field("capacity_gib", capacity_gib, positive_up_to(1 << 20), "ideal: address space, GiB");
    v.field("energy_pj_per_bit", energy_pj_per_bit, between(0.0, 1e4), "ideal: access energy, pJ/bit");
    v.field("background_w", background_w, between(0.0, 1e4), "ideal: background power, W");
    v.field("channels", channels, between(1, 1024), "timed: independent channels");
    v.field("ranks", ranks, between(1, 64), "timed: ranks per channel");
    v.field("bank_groups", bank_groups, between(1, 64), "timed: bank groups per rank");
    v.field("banks_per_group", banks_per_group, between(1, 256), "timed: banks per bank group");
    v.field("rows", rows, between(1, 1 << 24), "timed: rows per bank");
    v.field("columns", columns, between(1, 1 << 20), "timed: columns per row");
    v.field("width_bits", width_bits, between(1, 4096), "timed: channel data width, bits");
    v.field("burst_length", burst_length, between(1, 256), "timed: beats per burst");
    v.field("tck_ps", tck_ps, positive_up_to(1e6), "timed: command clock period, ps");
    v.section("timing", timing);
    v.field("page_policy", page_policy, "timed: open | closed");
    v.field("refresh", refresh, "timed: all_bank | per_bank");
    v.field("address_mapping", address_mapping, "timed: fields ro,ra,bg,ba,co,ch from MSB to LSB");
    v.field("read_queue", read_queue, between(1, 4096), "timed: read queue entries per channel");
    v.field("write_queue", write_queue, between(1, 4096), "timed: write queue entries per channel");
    v.field("write_high", write_high, between(1, 4096), "timed: start draining writes at");
    v.field("write_low", write_low, between(0, 4096), "timed: stop draining writes at");
    v.field("posted_writes", posted_writes, "timed: answer a write when its queue takes it");
    v.field("power_down", power_down, "timed: power the ranks down when the channel is idle");
    v.field("power_down_idle_tck", power_down_idle_tck, between(0, 1 << 30), "timed: idle cycles before power-down");
    v.section("power", power);
  }

  // Bytes one column command moves.
  std::uint64_t burst_bytes() const {
    return static_cast<std::uint64_t>(burst_length) * static_cast<std::uint64_t>(width_bits) / 8;
  }
  std::uint64_t row_bytes() const {
    return static_cast<std::uint64_t>(columns) * static_cast<std::uint64_t>(width_bits) / 8;
  }
  double peak_bytes_per_second() const {
    if (kind == DramKind::ideal) return bandwidth_gbps * 1e9;
    return channels * static_cast<double>(burst_bytes()) / (timing.tBURST * tck_ps * 1e-12);
  }
  double capacity_bytes() const {
    if (kind == DramKind::ideal) return capacity_gib * 1024.0 * 1024.0 * 1024.0;
    return static_cast<double>(channels) * ranks * bank_groups * banks_per_group * static_cast<double>(rows) *
           static_cast<double>(row_bytes());
  }
};

// Keys that belong to one kind only: setting them for the other is an error.
inline const std::vector<std::string>& ideal_only_dram_keys() {
  static const std::vector<std::string> keys = {"bandwidth_gbps", "latency_ns", "capacity_gib", "energy_pj_per_bit",
                                                "background_w"};
  return keys;
}

}  // namespace eva
