#pragma once
// The `ideal` DRAM preset as a TLM-2.0 target: a fixed-bandwidth pipe with a
// fixed latency (BandwidthPipe) in front of sparse storage. Loosely timed: the
// delay returned by b_transport is the request's queueing in the pipe, its
// transfer and the latency, so concurrent initiators share the bandwidth.
#include <cstdint>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "common/stats.hpp"
#include "dram/bandwidth_pipe.hpp"
#include "dram/dram_config.hpp"
#include "dram/sparse_storage.hpp"

namespace eva {

class IdealDram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<IdealDram> target_socket;

  IdealDram(const sc_core::sc_module_name& name, const DramConfig& config);
  IdealDram(const IdealDram&) = delete;
  IdealDram& operator=(const IdealDram&) = delete;

  const StatGroup& stats() const { return m_stats; }
  std::uint64_t bytes_read() const { return static_cast<std::uint64_t>(m_stats.get(m_bytes_read)); }
  std::uint64_t bytes_written() const { return static_cast<std::uint64_t>(m_stats.get(m_bytes_written)); }
  // Time the data pipe was busy; utilisation = busy / elapsed.
  sc_core::sc_time busy_time() const { return sc_core::sc_time(m_pipe.busy_ps(), sc_core::SC_PS); }
  double peak_bytes_per_second() const { return m_config.bandwidth_gbps * 1e9; }

  // Direct storage access for loading inputs and reading results (no time).
  SparseStorage& storage() { return m_storage; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool check(tlm::tlm_generic_payload& trans) const;
  void copy(tlm::tlm_generic_payload& trans);

  const DramConfig m_config;
  BandwidthPipe m_pipe;
  SparseStorage m_storage;
  StatGroup m_stats{"dram"};
  std::size_t m_reads, m_writes, m_bytes_read, m_bytes_written;
};

}  // namespace eva
