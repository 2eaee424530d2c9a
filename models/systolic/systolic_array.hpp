#pragma once
// The weight-stationary systolic array as a timed resource. The accelerator's
// control hands it one weight tile at a time, once the tile's weights are in
// the on-chip buffer; the array advances simulated time by its cycle
// convention (ws_timing.hpp) and tells when the tile's outputs are complete.
#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>

#include "common/clock.hpp"
#include "common/energy.hpp"
#include "common/fp16.hpp"
#include "common/stats.hpp"
#include "sram/buffer_port.hpp"
#include "sram/lane_access.hpp"
#include "systolic/systolic_config.hpp"
#include "systolic/ws_timing.hpp"

namespace eva {

class SystolicArray : public sc_core::sc_module, public PricedUnit {
 public:
  // The PEs' multi-lane port into a banked SRAM's lookup_socket: EVA's OC rows
  // (FP16 mode), FIGLUT's LUTs; unbound in the other accelerators.
  tlm_utils::simple_initiator_socket_optional<SystolicArray> lane_socket;
  // Its operands' port into the on-chip buffers (through the local bus).
  BufferPort buffer_port;

  SystolicArray(const sc_core::sc_module_name& name, const SystolicConfig& config, double clock_mhz,
                const UnitPower& power);
  SystolicArray(const SystolicArray&) = delete;
  SystolicArray& operator=(const SystolicArray&) = delete;

  // Runs a tile of `m` input rows whose weights are in the buffer now. Returns
  // (in simulated time) when the tile's weight buffer slot may be reused;
  // the result is the absolute time its outputs are complete.
  // `tile_macs`: the multiply-accumulates the tile does (its real size).
  sc_core::sc_time run_tile(std::uint64_t m, std::uint64_t tile_macs);

  // FP16 input-stationary mode (EVA's VQ decode): the R x C INT8 array acts as
  // R x F FP16 PEs, F = C / systolic.fp16_ratio (4: one FP16 multiply = four
  // INT8 partial products). R input sub-vectors of up to F elements stay in
  // the array; `entries` codebook centroids stream through, one per cycle per
  // F elements. For `rows` sub-vectors of d elements:
  //   ceil(rows / R) x (ceil(d / F) x entries + R + F)
  // (the EVA artifact's simulator/methods/vqarray.py, IS(32, E, d, 32, 8) per
  // 32 sub-vectors). Blocks for that many cycles.
  std::uint64_t oc_cycles(std::uint64_t rows, std::uint64_t d, std::uint64_t entries) const;
  // The OC the pass produces goes out through lane_socket, one write of all
  // `rows` lanes per entry: entry e of row r at oc_base + 2 (e x banks + r).
  // `values`: the FP16 entries [e][r] (functional), or null (timing: one
  // write presented `entries` times).
  struct OcOutput {
    std::uint64_t oc_base = 0, banks = 0;
    const half_bits* values = nullptr;
  };
  void run_oc(std::uint64_t rows, std::uint64_t d, std::uint64_t entries, const OcOutput& out);

  // One multi-lane access of the PEs through lane_socket (their own storage:
  // FIGLUT's LUTs), `data` as lane_transport takes it. Returns the cycles the
  // SRAM took, conflicts included (0 with the socket unbound).
  std::uint64_t lanes(LaneAccess& access, bool write, std::uint8_t* data);
  // The bytes at [addr, addr + bytes) of the SRAM on lane_socket through DMI,
  // for a functional datapath. Throws std::logic_error if it grants none.
  std::uint8_t* lane_direct(std::uint64_t addr, std::uint64_t bytes);

  const WsTiming& timing() const { return m_timing; }
  // The mode of the GEMMs that follow: the array's shape in it (its own, or
  // SystolicConfig::fp16_mode) and one tile's bytes in the weight format,
  // which set how long an `overlapped` shadow load takes.
  void set_mode(const SystolicConfig& shape, std::uint64_t tile_bytes) { m_timing = WsTiming(shape, tile_bytes); }
  enum Stat { tiles, busy_cycles, macs, oc_passes, fp16_macs, stat_count };
  double stat(Stat s) const { return m_stats.get(m_stat[s]); }
  const StatGroup& stats() const { return m_stats; }
  const char* energy_group() const override { return "array"; }
  double energy_j(double seconds) const override;
  double area_mm2() const override { return m_power.area_mm2; }

 private:
  const SystolicConfig m_config;
  WsTiming m_timing;
  const ClockDomain m_clock;
  // overlapped: when the shadow registers free up (the current tile's stream
  // start) and when the array may start streaming the next tile.
  sc_core::sc_time m_shadow_free = sc_core::SC_ZERO_TIME;
  sc_core::sc_time m_stream_free = sc_core::SC_ZERO_TIME;
  const UnitPower m_power;
  tlm::tlm_generic_payload m_trans;
  LaneAccess m_access;
  tlm::tlm_dmi m_lane_dmi;
  bool m_lane_dmi_valid = false;
  StatGroup m_stats{"systolic"};
  std::size_t m_stat[stat_count]{};
};

}  // namespace eva
