#include "dma/dma.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "common/timing_only.hpp"

namespace eva {

Dma::Dma(const sc_core::sc_module_name& name, const DmaConfig& config)
    : sc_module(name),
      initiator_socket("initiator_socket"),
      m_config(config),
      m_scratch(static_cast<std::size_t>(config.burst_bytes)) {
  m_bursts = m_stats.add("bursts", "requests", "bursts issued");
  m_bytes_read = m_stats.add("bytes_read", "B", "bytes moved from memory");
  m_bytes_written = m_stats.add("bytes_written", "B", "bytes moved to memory");
}

sc_core::sc_time Dma::start_read(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                                 std::uint8_t* dst) {
  return transfer(tlm::TLM_READ_COMMAND, addr, row_bytes, rows, stride, dst);
}

sc_core::sc_time Dma::start_write(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                                  const std::uint8_t* src) {
  // The target only reads the buffer of a write; TLM's payload is not const-typed.
  return transfer(tlm::TLM_WRITE_COMMAND, addr, row_bytes, rows, stride, const_cast<std::uint8_t*>(src));
}

void Dma::wait_until(const sc_core::sc_time& t) {
  if (t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp());
}

sc_core::sc_time Dma::transfer(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows,
                               std::uint64_t stride, std::uint8_t* data) {
  sc_core::sc_time last_done = sc_core::sc_time_stamp();
  if (row_bytes == 0 || rows == 0) return last_done;
  // Rows that touch form one contiguous block: move it as such.
  if (stride == row_bytes) {
    row_bytes *= rows;
    rows = 1;
  }
  tlm_utils::tlm_quantumkeeper keeper;
  keeper.reset();
  tlm::tlm_generic_payload trans;
  TimingOnly timing_only;
  // The payload must not outlive (and free) the stack extension, even on a throw.
  struct Detach {
    tlm::tlm_generic_payload& t;
    ~Detach() { t.clear_extension<TimingOnly>(); }
  } detach{trans};
  if (!data) trans.set_extension(&timing_only);

  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  for (std::uint64_t row = 0; row < rows; ++row) {
    for (std::uint64_t col = 0; col < row_bytes; col += burst) {
      const std::uint64_t len = std::min(burst, row_bytes - col);
      const std::uint64_t mem = addr + row * stride + col;
      // Wait (in local time) for a free slot in the window.
      while (m_in_flight.size() >= static_cast<std::size_t>(m_config.max_outstanding)) {
        const sc_core::sc_time slot = m_in_flight.top();
        m_in_flight.pop();
        if (slot > keeper.get_current_time()) keeper.set(slot - sc_core::sc_time_stamp());
      }
      trans.set_command(cmd);
      trans.set_address(mem);
      trans.set_data_ptr(data ? data + row * row_bytes + col : m_scratch.data());
      trans.set_data_length(static_cast<unsigned int>(len));
      trans.set_streaming_width(static_cast<unsigned int>(len));
      trans.set_byte_enable_ptr(nullptr);
      trans.set_dmi_allowed(false);
      trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = keeper.get_local_time();
      initiator_socket->b_transport(trans, delay);
      if (trans.is_response_error())
        throw std::runtime_error(fmt::format("{}: {} of {} B at 0x{:x} failed: {}", name(),
                                             cmd == tlm::TLM_READ_COMMAND ? "read" : "write", len, mem,
                                             trans.get_response_string()));
      const sc_core::sc_time done = sc_core::sc_time_stamp() + delay;
      m_in_flight.push(done);
      last_done = std::max(last_done, done);
      m_stats.inc(m_bursts);
      m_stats.inc(cmd == tlm::TLM_READ_COMMAND ? m_bytes_read : m_bytes_written, static_cast<double>(len));
      if (keeper.need_sync()) keeper.sync();
    }
  }
  // Completions already in the past free their slots.
  while (!m_in_flight.empty() && m_in_flight.top() <= sc_core::sc_time_stamp()) m_in_flight.pop();
  return last_done;
}

}  // namespace eva
