#pragma once
// A banked SRAM as a TLM-2.0 target and as a multi-lane port.
// - TLM (DMA fills and drains): a contiguous access of n bytes takes
//   latency + ceil(n / (banks x bank_width)) cycles, all banks in parallel.
// - lanes(): one address per lane per cycle, as an epilogue unit or a
//   codebook-lookup datapath presents them; returns the cycles taken with bank
//   conflicts counted exactly (BankModel). Functional callers read the data
//   with read_lanes().
// Storage is a flat array: DMI covers all of it.
#include <cstdint>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "common/clock.hpp"
#include "common/stats.hpp"
#include "sram/bank_model.hpp"
#include "sram/sram_config.hpp"

namespace eva {

class Sram : public sc_core::sc_module {
 public:
  // Optional: an SRAM written only through lanes() (the OC SRAM) has no TLM initiator.
  tlm_utils::simple_target_socket_optional<Sram> target_socket;

  Sram(const sc_core::sc_module_name& name, const SramConfig& config, double clock_mhz);
  Sram(const Sram&) = delete;
  Sram& operator=(const Sram&) = delete;

  // Cycles for one multi-lane access (no simulated time passes: the caller,
  // which owns the pipeline, decides how to overlap them).
  std::uint64_t lanes(const std::vector<std::uint64_t>& addrs, bool write);
  // The bytes at each lane's address (`bytes` per lane), for functional runs.
  void read_lanes(const std::vector<std::uint64_t>& addrs, std::size_t bytes, std::uint8_t* out) const;

  std::uint64_t conflict_cycles() const { return m_banks.conflict_cycles(); }
  const BankModel& banks() const { return m_banks; }
  double energy_j(const sc_core::sc_time& elapsed) const;
  const StatGroup& stats() const { return m_stats; }
  void flush_stats();
  std::uint8_t* data() { return m_data.data(); }
  std::size_t size() const { return m_data.size(); }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  bool check(tlm::tlm_generic_payload& trans) const;

  const SramConfig m_config;
  const ClockDomain m_clock;
  std::vector<std::uint8_t> m_data;
  BankModel m_banks;
  double m_bits_read = 0.0, m_bits_written = 0.0;
  StatGroup m_stats;
  std::size_t m_stat_read, m_stat_written, m_stat_lane_cycles, m_stat_conflicts, m_stat_max_bank;
};

}  // namespace eva
