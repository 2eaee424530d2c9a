#pragma once
// A DMA initiator moving contiguous blocks between DRAM and on-chip buffers.
//
// Loosely timed: a transfer is cut into bursts that are issued back to back,
// at most `max_outstanding` in flight; a burst may issue only when the one
// `max_outstanding` places earlier has completed. Each burst goes through the
// target's b_transport, whose returned delay is its completion, so bandwidth
// comes from concurrency against the memory model, never from a shortcut.
// The initiator's local time runs ahead under a quantum keeper and is
// synchronised at the end of each transfer (callers need the data).
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "common/stats.hpp"
#include "dma/dma_config.hpp"

namespace eva {

class Dma : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Dma> initiator_socket;

  Dma(const sc_core::sc_module_name& name, const DmaConfig& config);
  Dma(const Dma&) = delete;
  Dma& operator=(const Dma&) = delete;

  // Blocking, from a SystemC thread. A null pointer moves time but no data.
  void read(std::uint64_t addr, std::uint64_t bytes, std::uint8_t* dst) { read_2d(addr, bytes, 1, bytes, dst); }
  void write(std::uint64_t addr, std::uint64_t bytes, const std::uint8_t* src) {
    write_2d(addr, bytes, 1, bytes, src);
  }
  // A 2-D tile: `rows` rows of `row_bytes`, `stride` bytes apart in memory,
  // packed one after the other in the buffer. All its bursts share one window.
  void read_2d(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
               std::uint8_t* dst);
  void write_2d(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                const std::uint8_t* src);

  const StatGroup& stats() const { return m_stats; }

 private:
  void transfer(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows,
                std::uint64_t stride, std::uint8_t* data);

  const DmaConfig m_config;
  std::vector<std::uint8_t> m_scratch;  // the data pointer of timing-only bursts
  StatGroup m_stats{"dma"};
  std::size_t m_bursts, m_bytes_read, m_bytes_written;
};

}  // namespace eva
