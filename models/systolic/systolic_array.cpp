#include "systolic/systolic_array.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/timeline.hpp"

namespace eva {

SystolicArray::SystolicArray(const sc_core::sc_module_name& name, const SystolicConfig& config, double clock_mhz,
                             const UnitPower& power)
    : sc_module(name),
      lane_socket("lane_socket"),
      buffer_port("buffer_port"),
      m_config(config),
      m_timing(config,
               static_cast<std::uint64_t>(config.rows) * static_cast<std::uint64_t>(config.cols)),  // INT8
                                                                                                    // until a GEMM
                                                                                                    // sets its format
      m_clock(clock_mhz),
      m_power(power) {
  m_stat[tiles] = m_stats.add("tiles", "tiles", "weight tiles processed");
  m_stat[busy_cycles] = m_stats.add("busy_cycles", "cycles", "cycles charged to weight tiles");
  m_stat[macs] = m_stats.add("macs", "MAC", "multiply-accumulates of the weight tiles (their real sizes)");
  m_stat[oc_passes] = m_stats.add("oc_passes", "passes", "output-codebook computations in FP16 mode");
  m_stat[fp16_macs] = m_stats.add("fp16_macs", "MAC", "FP16 multiply-accumulates (each four INT8 products)");
  m_access.lane_bytes = 2;
}

double SystolicArray::energy_j(double seconds) const {
  return m_power.energy_j(stat(busy_cycles) * m_clock.cycles(1).to_seconds(), seconds);
}

std::uint64_t SystolicArray::oc_cycles(std::uint64_t rows, std::uint64_t d, std::uint64_t entries) const {
  const SystolicConfig fp16 = m_config.fp16_mode();
  const auto r = static_cast<std::uint64_t>(fp16.rows), c = static_cast<std::uint64_t>(fp16.cols);
  return ceil_div(rows, r) * (ceil_div(d, c) * entries + r + c);
}

void SystolicArray::run_oc(std::uint64_t rows, std::uint64_t d, std::uint64_t entries, const OcOutput& out) {
  const std::uint64_t cycles = oc_cycles(rows, d, entries);
  m_stats.inc(m_stat[oc_passes]);
  m_stats.inc(m_stat[fp16_macs], static_cast<double>(rows * d * entries));
  m_stats.inc(m_stat[busy_cycles], static_cast<double>(cycles));
  // The OC rows leave as the array produces them; their writes overlap the
  // pass (the array's cycle count already includes its output stream).
  sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;
  if (lane_socket.size() && rows && entries) {
    m_access.repeat = out.values ? 1 : entries;
    for (std::uint64_t e = 0; e < (out.values ? entries : 1); ++e) {
      m_access.addrs.clear();
      for (std::uint64_t r = 0; r < rows; ++r) m_access.addrs.push_back(out.oc_base + 2 * (e * out.banks + r));
      lane_transport(
          lane_socket, m_trans, m_access, true,
          out.values ? reinterpret_cast<std::uint8_t*>(const_cast<half_bits*>(out.values + e * rows)) : nullptr,
          ignored);
    }
  }
  if (Timeline* t = Timeline::of(*this))
    t->span("array", "output codebook", sc_core::sc_time_stamp(), sc_core::sc_time_stamp() + m_clock.cycles(cycles));
  wait(m_clock.cycles(cycles));
}

std::uint64_t SystolicArray::lanes(LaneAccess& access, bool write, std::uint8_t* data) {
  if (!lane_socket.size() || access.addrs.empty()) return 0;
  sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;  // the caller decides what the cycles cost
  return lane_transport(lane_socket, m_trans, access, write, data, ignored);
}

std::uint8_t* SystolicArray::lane_direct(std::uint64_t addr, std::uint64_t bytes) {
  if (!m_lane_dmi_valid) {
    tlm::tlm_generic_payload probe;
    probe.set_command(tlm::TLM_READ_COMMAND);
    probe.set_address(addr);
    m_lane_dmi_valid = lane_socket.size() && lane_socket->get_direct_mem_ptr(probe, m_lane_dmi);
  }
  if (!m_lane_dmi_valid || addr < m_lane_dmi.get_start_address() || addr + bytes - 1 > m_lane_dmi.get_end_address())
    throw std::logic_error(std::string(name()) + ": no DMI into the lane SRAM at that address");
  return m_lane_dmi.get_dmi_ptr() + (addr - m_lane_dmi.get_start_address());
}

sc_core::sc_time SystolicArray::run_tile(std::uint64_t m, std::uint64_t tile_macs) {
  m_stats.inc(m_stat[tiles]);
  m_stats.inc(m_stat[macs], static_cast<double>(tile_macs));
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (m_timing.mode != WeightLoad::overlapped) {
    const std::uint64_t cycles = m_timing.tile_cycles(m);
    m_stats.inc(m_stat[busy_cycles], static_cast<double>(cycles));
    if (Timeline* t = Timeline::of(*this)) t->span("array", "weight tile", now, now + m_clock.cycles(cycles));
    wait(m_clock.cycles(cycles));
    return sc_core::sc_time_stamp();
  }
  // Shadow load starts when the weights are here and the shadow is free; the
  // stream starts when the load is done and the previous stream has ended.
  const sc_core::sc_time load_done = std::max(now, m_shadow_free) + m_clock.cycles(m_timing.load_cycles);
  const sc_core::sc_time stream_start = std::max(load_done, m_stream_free);
  const std::uint64_t stream = m_timing.tile_cycles(m);
  m_stats.inc(m_stat[busy_cycles], static_cast<double>(stream));
  m_shadow_free = stream_start;
  m_stream_free = stream_start + m_clock.cycles(stream);
  if (Timeline* t = Timeline::of(*this)) t->span("array", "weight tile", stream_start, m_stream_free);
  wait(stream_start - now);
  return m_stream_free + m_clock.cycles(m_timing.drain_cycles());
}

}  // namespace eva
