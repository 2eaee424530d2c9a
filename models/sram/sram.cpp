#include "sram/sram.hpp"

#include <algorithm>
#include <cstring>

#include "common/timing_only.hpp"
#include "sram/lane_access.hpp"

namespace eva {

Sram::Sram(const sc_core::sc_module_name& name, const SramConfig& config, double clock_mhz, bool priced)
    : sc_module(name),
      target_socket("target_socket"),
      lookup_socket("lookup_socket"),
      m_config(config),
      m_clock(clock_mhz),
      m_priced(priced),
      m_cycle(m_clock.cycles(1)),
      m_data(static_cast<std::size_t>(config.size_kib) * 1024),
      m_banks(static_cast<std::uint64_t>(config.banks), static_cast<std::uint64_t>(config.bank_width_bytes),
              static_cast<std::uint64_t>(config.ports)),
      m_stats(basename()) {
  target_socket.register_b_transport(this, &Sram::b_transport);
  target_socket.register_transport_dbg(this, &Sram::transport_dbg);
  target_socket.register_get_direct_mem_ptr(this, &Sram::get_direct_mem_ptr);
  lookup_socket.register_b_transport(this, &Sram::lookup);
  lookup_socket.register_transport_dbg(this, &Sram::lookup_dbg);
  lookup_socket.register_get_direct_mem_ptr(this, &Sram::lookup_dmi);
  m_stat_read = m_stats.add("bytes_read", "B", "bytes read (TLM and lanes)");
  m_stat_written = m_stats.add("bytes_written", "B", "bytes written (TLM and lanes)");
  m_stat_lane_cycles = m_stats.add("lane_cycles", "cycles", "cycles of multi-lane accesses");
  m_stat_conflicts = m_stats.add("bank_conflict_cycles", "cycles", "cycles lost to bank conflicts");
  m_stat_max_bank = m_stats.add("max_bank_words", "words", "words served by the busiest bank");
}

bool Sram::check(tlm::tlm_generic_payload& trans) const {
  const std::uint64_t end = trans.get_address() + trans.get_data_length();
  if (end < trans.get_address() || end > m_data.size()) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_byte_enable_ptr() || trans.get_streaming_width() < trans.get_data_length()) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return false;
  }
  return true;
}

void Sram::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (!check(trans)) return;
  const std::uint64_t len = trans.get_data_length();
  const std::uint64_t row = static_cast<std::uint64_t>(m_config.banks) * m_config.bank_width_bytes;
  const TimingOnly* timing_only = trans.get_extension<TimingOnly>();
  const std::uint64_t times = timing_only ? std::max<std::uint64_t>(1, timing_only->repeat) : 1;
  delay += sc_core::sc_time::from_value(m_cycle.value() * times *
                                        (static_cast<std::uint64_t>(m_config.latency_cycles) + (len + row - 1) / row));
  if (!timing_only) {
    if (trans.is_read())
      std::memcpy(trans.get_data_ptr(), m_data.data() + trans.get_address(), len);
    else
      std::memcpy(m_data.data() + trans.get_address(), trans.get_data_ptr(), len);
  }
  (trans.is_read() ? m_bits_read : m_bits_written) += 8.0 * static_cast<double>(len * times);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int Sram::transport_dbg(tlm::tlm_generic_payload& trans) {
  if (!check(trans)) return 0;
  if (trans.is_read())
    std::memcpy(trans.get_data_ptr(), m_data.data() + trans.get_address(), trans.get_data_length());
  else
    std::memcpy(m_data.data() + trans.get_address(), trans.get_data_ptr(), trans.get_data_length());
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return trans.get_data_length();
}

bool Sram::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(m_data.data());
  dmi.set_start_address(0);
  dmi.set_end_address(m_data.size() - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(m_clock.cycles(static_cast<std::uint64_t>(m_config.latency_cycles)));
  dmi.set_write_latency(m_clock.cycles(1));
  return true;
}

void Sram::lookup(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  LaneAccess* access = trans.get_extension<LaneAccess>();
  if (!access || trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  for (std::uint64_t a : access->addrs)
    if (a + access->lane_bytes > m_data.size() || a + access->lane_bytes < a) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  std::uint8_t* data = trans.get_data_ptr();
  if (data && trans.get_data_length() != access->addrs.size() * access->lane_bytes) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const bool write = trans.is_write();
  access->cycles = m_banks.access(access->addrs, write, access->repeat) * access->repeat;
  if (data)
    for (std::size_t i = 0; i < access->addrs.size(); ++i) {
      std::uint8_t* lane = data + i * access->lane_bytes;
      std::uint8_t* cell = m_data.data() + access->addrs[i];
      write ? std::memcpy(cell, lane, access->lane_bytes) : std::memcpy(lane, cell, access->lane_bytes);
    }
  const double bits = 8.0 * static_cast<double>(access->addrs.size() * access->repeat) * m_config.bank_width_bytes;
  (write ? m_bits_written : m_bits_read) += bits;
  (write ? m_lane_bits_written : m_lane_bits_read) += bits;
  delay += sc_core::sc_time::from_value(m_cycle.value() * access->cycles);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int Sram::lookup_dbg(int, tlm::tlm_generic_payload& trans) { return transport_dbg(trans); }

void Sram::add_lane_counts(const LaneCounts& before, const LaneCounts& after) {
  m_banks.add_between(before.banks, after.banks);
  const double read = after.bits_read - before.bits_read, written = after.bits_written - before.bits_written;
  m_bits_read += read;
  m_bits_written += written;
  m_lane_bits_read += read;
  m_lane_bits_written += written;
}

bool Sram::lookup_dmi(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  return get_direct_mem_ptr(trans, dmi);
}

double Sram::energy_j(double seconds) const {
  const double leakage = m_config.leakage_w() * seconds;
  if (!m_priced) return leakage;
  return (m_bits_read * m_config.read_pj_per_bit + m_bits_written * m_config.write_pj_per_bit) *
             m_config.bit_energy_scale() * 1e-12 +
         leakage;
}

void Sram::flush_stats() {
  m_stats.set(m_stat_read, m_bits_read / 8.0);
  m_stats.set(m_stat_written, m_bits_written / 8.0);
  m_stats.set(m_stat_lane_cycles, static_cast<double>(m_banks.cycles()));
  m_stats.set(m_stat_conflicts, static_cast<double>(m_banks.conflict_cycles()));
  const auto& b = m_banks.bank_accesses();
  m_stats.set(m_stat_max_bank, b.empty() ? 0.0 : static_cast<double>(*std::max_element(b.begin(), b.end())));
}

}  // namespace eva
