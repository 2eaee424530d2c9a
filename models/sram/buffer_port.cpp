#include "sram/buffer_port.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace eva {

BufferPort::BufferPort(const char* name) : simple_initiator_socket_optional<BufferPort>(name) {
  m_trans.set_data_ptr(nullptr);
  m_trans.set_byte_enable_ptr(nullptr);
  m_trans.set_extension(&m_timing_only);
}

BufferPort::~BufferPort() { m_trans.clear_extension(&m_timing_only); }

sc_core::sc_time BufferPort::touch(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                                   std::uint64_t repeat) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (bytes == 0 || repeat == 0) return delay;
  m_timing_only.repeat = repeat;
  tlm::tlm_generic_payload& p = m_trans;
  p.set_command(cmd);
  p.set_address(addr);
  p.set_data_length(static_cast<unsigned int>(bytes));
  p.set_streaming_width(static_cast<unsigned int>(bytes));
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  (*this)->b_transport(p, delay);
  if (p.is_response_error())
    throw std::runtime_error(std::string(name()) + ": buffer access of " + std::to_string(bytes) + " B at " +
                             std::to_string(addr) + " failed: " + p.get_response_string());
  return delay;
}

void BufferPort::stream(tlm::tlm_command cmd, std::uint64_t base, std::uint64_t size, std::uint64_t bytes) {
  if (size == 0) return;
  touch(cmd, base, size, bytes / size);
  touch(cmd, base, bytes % size);
}

std::uint8_t* BufferPort::direct(std::uint64_t addr, std::uint64_t bytes) {
  for (const tlm::tlm_dmi& d : m_dmi)
    if (addr >= d.get_start_address() && addr + bytes - 1 <= d.get_end_address())
      return d.get_dmi_ptr() + (addr - d.get_start_address());
  tlm::tlm_generic_payload p;
  p.set_command(tlm::TLM_READ_COMMAND);
  p.set_address(addr);
  tlm::tlm_dmi dmi;
  if (!(*this)->get_direct_mem_ptr(p, dmi) || addr + bytes - 1 > dmi.get_end_address())
    throw std::runtime_error(std::string(name()) + ": no direct access to " + std::to_string(bytes) + " B at " +
                             std::to_string(addr));
  m_dmi.push_back(dmi);
  return dmi.get_dmi_ptr() + (addr - dmi.get_start_address());
}

}  // namespace eva
