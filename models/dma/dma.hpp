#pragma once
// A DMA engine moving contiguous and 2-D blocks between DRAM and on-chip
// buffers.
//
// Loosely timed, with a window of outstanding requests: a transfer is cut into
// bursts issued back to back, at most `max_outstanding` in flight across all
// the transfers of the engine; a burst may issue only when a slot frees, i.e.
// when the earliest burst still in flight completes. Each burst goes through
// the target's b_transport, whose returned delay is its completion, so
// bandwidth comes from concurrency against the memory model, never from a
// shortcut. Transfers can be started without waiting for them (`start_*`
// returns when their last burst completes), so a prefetching caller keeps
// many in flight as hardware does; the issuing thread runs ahead in local time
// under a quantum keeper.
#include <cstdint>
#include <queue>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "common/stats.hpp"
#include "dma/dma_config.hpp"

namespace eva {

class Dma : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Dma> initiator_socket;

  Dma(const sc_core::sc_module_name& name, const DmaConfig& config);
  Dma(const Dma&) = delete;
  Dma& operator=(const Dma&) = delete;

  // A 2-D block: `rows` rows of `row_bytes`, `stride` bytes apart in memory,
  // packed one after the other in the buffer. A null buffer moves time but no
  // data. From a SystemC thread; returns the absolute time the last burst
  // completes, without waiting for it.
  sc_core::sc_time start_read(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                              std::uint8_t* dst);
  sc_core::sc_time start_write(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                               const std::uint8_t* src);

  // Blocking forms: return once the data has arrived.
  void read(std::uint64_t addr, std::uint64_t bytes, std::uint8_t* dst) { read_2d(addr, bytes, 1, bytes, dst); }
  void write(std::uint64_t addr, std::uint64_t bytes, const std::uint8_t* src) { write_2d(addr, bytes, 1, bytes, src); }
  void read_2d(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
               std::uint8_t* dst) {
    wait_until(start_read(addr, row_bytes, rows, stride, dst));
  }
  void write_2d(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                const std::uint8_t* src) {
    wait_until(start_write(addr, row_bytes, rows, stride, src));
  }

  const StatGroup& stats() const { return m_stats; }

 private:
  sc_core::sc_time transfer(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows,
                            std::uint64_t stride, std::uint8_t* data);
  static void wait_until(const sc_core::sc_time& t);

  const DmaConfig m_config;
  std::vector<std::uint8_t> m_scratch;  // the data pointer of timing-only bursts
  // Completion times of the bursts in flight, earliest on top.
  std::priority_queue<sc_core::sc_time, std::vector<sc_core::sc_time>, std::greater<>> m_in_flight;
  StatGroup m_stats{"dma"};
  std::size_t m_bursts, m_bytes_read, m_bytes_written;
};

}  // namespace eva
