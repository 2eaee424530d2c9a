#pragma once
// A banked SRAM as a TLM-2.0 target with two kinds of port.
// - target_socket (DMA fills and drains, a datapath's wide port): a contiguous
//   access of n bytes takes latency + ceil(n / (banks x bank_width)) cycles,
//   all banks in parallel.
// - lookup_socket (any number of initiators: epilogue units, lookup lanes):
//   multi-lane accesses (LaneAccess), one address per lane per cycle; the bank
//   conflicts are counted exactly from the addresses (BankModel) and annotated
//   as delay.
// Storage is a flat array: DMI (on either socket) covers all of it.
#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "common/clock.hpp"
#include "common/energy.hpp"
#include "common/stats.hpp"
#include "sram/bank_model.hpp"
#include "sram/sram_config.hpp"

namespace eva {

class Sram : public sc_core::sc_module, public PricedUnit {
 public:
  // Optional: an SRAM written only through lanes() (the OC SRAM) has no TLM initiator.
  tlm_utils::simple_target_socket_optional<Sram> target_socket;
  // Multi-lane accesses (LaneAccess) from any number of initiators.
  tlm_utils::multi_passthrough_target_socket<Sram, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>
      lookup_socket;

  // `priced`: the SRAM prices the bits it moves itself (else its owner's
  // BufferTraffic does, as vq-conflict's sampled lookups need). Its area and
  // leakage are its own either way.
  Sram(const sc_core::sc_module_name& name, const SramConfig& config, double clock_mhz, bool priced = true);
  Sram(const Sram&) = delete;
  Sram& operator=(const Sram&) = delete;

  std::uint64_t conflict_cycles() const { return m_banks.conflict_cycles(); }
  // The multi-lane accesses' counts so far (banks, bits), and those of a
  // stretch of them counted again: a unit that reuses an identical stream's
  // lookups (vq-conflict) counts them as if presented.
  struct LaneCounts {
    BankModel::Counts banks;
    double bits_read = 0.0, bits_written = 0.0;
  };
  LaneCounts lane_counts() const { return LaneCounts{m_banks.counts(), m_lane_bits_read, m_lane_bits_written}; }
  void add_lane_counts(const LaneCounts& before, const LaneCounts& after);
  const BankModel& banks() const { return m_banks; }
  // Every bit read and written at the config's pJ/bit scaled by the bank
  // capacity (SramConfig::bit_energy_scale; unless the owner prices the bits),
  // and leakage and area from the geometry (SramConfig::cost).
  const char* energy_group() const override { return "buffers"; }
  double energy_j(double seconds) const override;
  double area_mm2() const override { return m_config.area_mm2(); }
  const StatGroup& stats() const { return m_stats; }
  void flush_stats();
  std::uint8_t* data() { return m_data.data(); }
  std::size_t size() const { return m_data.size(); }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  void lookup(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int lookup_dbg(int port, tlm::tlm_generic_payload& trans);
  bool lookup_dmi(int port, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  bool check(tlm::tlm_generic_payload& trans) const;

  const SramConfig m_config;
  const ClockDomain m_clock;
  const bool m_priced;
  const sc_core::sc_time m_cycle;  // one cycle (a port's delays are a few cycles: no rounding builds up)
  std::vector<std::uint8_t> m_data;
  BankModel m_banks;
  double m_bits_read = 0.0, m_bits_written = 0.0;
  double m_lane_bits_read = 0.0, m_lane_bits_written = 0.0;  // the lanes' share of them
  StatGroup m_stats;
  std::size_t m_stat_read, m_stat_written, m_stat_lane_cycles, m_stat_conflicts, m_stat_max_bank;
};

}  // namespace eva
