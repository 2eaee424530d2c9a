#include "devices.hpp"

#include "firmware/soc_map.h"

namespace eva::soc {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

RegisterDevice::RegisterDevice(const sc_core::sc_module_name& name, std::uint32_t window_bytes,
                               const sc_time& access_time)
    : sc_module(name), target_socket("target_socket"), m_window(window_bytes), m_access_time(access_time) {
  target_socket.register_b_transport(this, &RegisterDevice::b_transport);
  target_socket.register_transport_dbg(this, &RegisterDevice::transport_dbg);
}

void RegisterDevice::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const std::uint64_t addr = trans.get_address();
  if (trans.get_command() == tlm::TLM_IGNORE_COMMAND) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  if (addr % 4 != 0 || addr >= m_window) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.get_data_length() != 4 || trans.get_streaming_width() < 4) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  unsigned char* p = trans.get_data_ptr();
  const auto offset = static_cast<std::uint32_t>(addr);
  delay += m_access_time;
  tlm::tlm_response_status s;
  if (trans.is_read()) {
    std::uint32_t v = 0;
    s = read(offset, v, delay, false);
    if (s == tlm::TLM_OK_RESPONSE)
      for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  } else {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
    s = write(offset, v, delay);
  }
  trans.set_response_status(s);
}

unsigned int RegisterDevice::transport_dbg(tlm::tlm_generic_payload& trans) {
  // Whole aligned words, reads only, no side effects; unmapped offsets read 0.
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (!trans.is_read() || addr % 4 != 0 || len % 4 != 0 || addr + len > m_window) return 0;
  unsigned char* p = trans.get_data_ptr();
  for (unsigned w = 0; w < len; w += 4) {
    std::uint32_t v = 0;
    sc_time d = SC_ZERO_TIME;
    if (read(static_cast<std::uint32_t>(addr + w), v, d, true) != tlm::TLM_OK_RESPONSE) v = 0;
    for (int i = 0; i < 4; ++i) p[w + i] = static_cast<unsigned char>(v >> (8 * i));
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return len;
}

// --- SysCtl

SysCtl::SysCtl(const sc_core::sc_module_name& name, const Config& config, const sc_time& access_time)
    : RegisterDevice(name, SOC_DEVICE_WINDOW, access_time), m_config(config) {}

tlm::tlm_response_status SysCtl::read(std::uint32_t offset, std::uint32_t& value, sc_time& delay, bool debug) {
  auto pair = [&](std::uint64_t v) {
    if (!debug) m_latched_hi = static_cast<std::uint32_t>(v >> 32);
    return static_cast<std::uint32_t>(v);
  };
  switch (offset) {
    case SOC_SYSCTL_ID:
      value = SOC_SYSCTL_ID_VALUE;
      break;
    case SOC_SYSCTL_CPU_MHZ:
      value = m_config.cpu_mhz;
      break;
    case SOC_SYSCTL_TIME_NS_LO:
      value = pair(static_cast<std::uint64_t>((sc_core::sc_time_stamp() + delay).to_seconds() * 1e9 + 0.5));
      break;
    case SOC_SYSCTL_TABLE_LO:
      value = pair(m_config.table_addr);
      break;
    case SOC_SYSCTL_SCRATCH_LO:
      value = pair(m_config.scratch_addr);
      break;
    case SOC_SYSCTL_FAULT_LO:
      value = pair(m_config.fault_addr);
      break;
    case SOC_SYSCTL_FAULT_BYTES:
      value = m_config.fault_bytes;
      break;
    case SOC_SYSCTL_TIME_NS_HI:
    case SOC_SYSCTL_TABLE_HI:
    case SOC_SYSCTL_SCRATCH_HI:
    case SOC_SYSCTL_FAULT_HI:
      value = m_latched_hi;
      break;
    case SOC_SYSCTL_SCRATCH_BYTES:
      value = m_config.scratch_bytes;
      break;
    case SOC_SYSCTL_EXIT:
      return tlm::TLM_COMMAND_ERROR_RESPONSE;
    default:
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
  return tlm::TLM_OK_RESPONSE;
}

tlm::tlm_response_status SysCtl::write(std::uint32_t offset, std::uint32_t value, sc_time&) {
  if (offset == SOC_SYSCTL_EXIT) {
    if (m_on_exit) m_on_exit(value);
    return tlm::TLM_OK_RESPONSE;
  }
  return offset <= SOC_SYSCTL_FAULT_BYTES ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

// --- Uart

Uart::Uart(const sc_core::sc_module_name& name, std::ostream* out, const sc_time& access_time)
    : RegisterDevice(name, SOC_DEVICE_WINDOW, access_time), m_out(out) {}

tlm::tlm_response_status Uart::read(std::uint32_t offset, std::uint32_t& value, sc_time&, bool) {
  if (offset == SOC_UART_STATUS) {
    value = 1;
    return tlm::TLM_OK_RESPONSE;
  }
  return offset == SOC_UART_TXDATA ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

tlm::tlm_response_status Uart::write(std::uint32_t offset, std::uint32_t value, sc_time&) {
  if (offset == SOC_UART_TXDATA) {
    const char c = static_cast<char>(value & 0xff);
    m_text.push_back(c);
    if (m_out) {
      m_out->put(c);
      if (c == '\n') m_out->flush();
    }
    return tlm::TLM_OK_RESPONSE;
  }
  return offset == SOC_UART_STATUS ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

// --- InterruptController

InterruptController::InterruptController(const sc_core::sc_module_name& name, unsigned lines,
                                         const sc_time& access_time)
    : RegisterDevice(name, SOC_DEVICE_WINDOW, access_time), irq_in("irq_in", lines) {
  SC_HAS_PROCESS(InterruptController);
  SC_METHOD(lines_changed);
  for (auto& in : irq_in) sensitive << in;
  dont_initialize();
}

std::uint32_t InterruptController::pending() const {
  std::uint32_t p = 0;
  for (unsigned i = 0; i < irq_in.size(); ++i)
    if (irq_in[i].read()) p |= 1u << i;
  return p;
}

void InterruptController::lines_changed() { m_changed.notify(); }

tlm::tlm_response_status InterruptController::read(std::uint32_t offset, std::uint32_t& value, sc_time& delay,
                                                   bool debug) {
  switch (offset) {
    case SOC_INTC_PENDING:
      value = pending();
      break;
    case SOC_INTC_ENABLE:
      value = m_enable;
      break;
    case SOC_INTC_LINES:
      value = static_cast<std::uint32_t>(irq_in.size());
      break;
    case SOC_INTC_WAIT:
      if (!debug && m_enable != 0 && (pending() & m_enable) == 0) {
        // Catch up with the caller's local time, then sleep until a line rises.
        ++m_waits;
        wait(delay);
        delay = SC_ZERO_TIME;
        while ((pending() & m_enable) == 0) wait(m_changed);
      }
      value = pending() & m_enable;
      break;
    default:
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
  return tlm::TLM_OK_RESPONSE;
}

tlm::tlm_response_status InterruptController::write(std::uint32_t offset, std::uint32_t value, sc_time&) {
  if (offset == SOC_INTC_ENABLE) {
    m_enable = value & ((irq_in.size() >= 32 ? 0u : 1u << irq_in.size()) - 1u);
    return tlm::TLM_OK_RESPONSE;
  }
  return offset <= SOC_INTC_LINES ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

}  // namespace eva::soc
