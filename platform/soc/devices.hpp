#pragma once
// The example SoC's own devices: system control, a UART and an interrupt
// controller (firmware/soc_map.h has their registers; docs/SOC.md).
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace eva::soc {

// A window of 32-bit registers. Only aligned 4-byte reads and writes without
// byte enables are served, as for the accelerators (docs/REGISTERS.md): an
// offset outside the window or not aligned gets TLM_ADDRESS_ERROR_RESPONSE, a
// length other than 4 TLM_BURST_ERROR_RESPONSE, byte enables
// TLM_BYTE_ENABLE_ERROR_RESPONSE, a write to a read-only register or an
// ignore command TLM_COMMAND_ERROR_RESPONSE. Each access adds `access_time`.
class RegisterDevice : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<RegisterDevice> target_socket;

  RegisterDevice(const sc_core::sc_module_name& name, std::uint32_t window_bytes, const sc_core::sc_time& access_time);

 protected:
  // Serve one register; `delay` is the caller's local time offset (a device
  // may wait, then returns with it zero). `debug`: no side effects, no wait.
  virtual tlm::tlm_response_status read(std::uint32_t offset, std::uint32_t& value, sc_core::sc_time& delay,
                                        bool debug) = 0;
  virtual tlm::tlm_response_status write(std::uint32_t offset, std::uint32_t value, sc_core::sc_time& delay) = 0;

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  std::uint32_t m_window;
  sc_core::sc_time m_access_time;
};

// System control: identification, simulated time, where the image's op table
// and free DRAM are, and the firmware's exit.
class SysCtl : public RegisterDevice {
 public:
  struct Config {
    std::uint32_t cpu_mhz = 1000;
    std::uint64_t table_addr = 0, scratch_addr = 0;
    std::uint32_t scratch_bytes = 0;
    std::uint64_t fault_addr = 0;  // the fault window (eva-soc --inject-fault), or 0
    std::uint32_t fault_bytes = 0;
  };
  SysCtl(const sc_core::sc_module_name& name, const Config& config, const sc_core::sc_time& access_time);
  // Called when the firmware writes EXIT.
  void on_exit(std::function<void(std::uint32_t)> f) { m_on_exit = std::move(f); }

 protected:
  tlm::tlm_response_status read(std::uint32_t offset, std::uint32_t& value, sc_core::sc_time& delay,
                                bool debug) override;
  tlm::tlm_response_status write(std::uint32_t offset, std::uint32_t value, sc_core::sc_time& delay) override;

 private:
  Config m_config;
  std::uint32_t m_latched_hi = 0;
  std::function<void(std::uint32_t)> m_on_exit;
};

// A UART's transmitter: each byte written to TXDATA goes to `out` (flushed at
// each newline) and is kept (text()).
class Uart : public RegisterDevice {
 public:
  Uart(const sc_core::sc_module_name& name, std::ostream* out, const sc_core::sc_time& access_time);
  const std::string& text() const { return m_text; }

 protected:
  tlm::tlm_response_status read(std::uint32_t offset, std::uint32_t& value, sc_core::sc_time& delay,
                                bool debug) override;
  tlm::tlm_response_status write(std::uint32_t offset, std::uint32_t value, sc_core::sc_time& delay) override;

 private:
  std::ostream* m_out;
  std::string m_text;
};

// An interrupt controller: level-sensitive input lines, an enable mask, and
// WAIT, a register whose read blocks the core until an enabled line is high
// (the SoC's wait-for-interrupt).
class InterruptController : public RegisterDevice {
 public:
  sc_core::sc_vector<sc_core::sc_in<bool>> irq_in;

  InterruptController(const sc_core::sc_module_name& name, unsigned lines, const sc_core::sc_time& access_time);
  std::uint32_t pending() const;
  // Reads of WAIT that had to wait.
  std::uint64_t waits() const { return m_waits; }

 protected:
  tlm::tlm_response_status read(std::uint32_t offset, std::uint32_t& value, sc_core::sc_time& delay,
                                bool debug) override;
  tlm::tlm_response_status write(std::uint32_t offset, std::uint32_t value, sc_core::sc_time& delay) override;

 private:
  void lines_changed();  // SC_METHOD
  std::uint32_t m_enable = 0;
  std::uint64_t m_waits = 0;
  sc_core::sc_event m_changed;
};

}  // namespace eva::soc
