#pragma once
// Any accelerator as a memory-mapped peripheral: a register file on a TLM
// target socket (docs/REGISTERS.md), a descriptor ring in system memory
// fetched through the accelerator's own DMA (docs/DESCRIPTORS.md), and an
// interrupt output. One thread runs the descriptors; one method drives the
// interrupt. Errors (malformed descriptors, refused operations, bus errors)
// set the error registers and the interrupt; nothing throws out of the
// simulation and the next descriptor is taken.
#include <cstdint>
#include <string>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "arch/arch_config.hpp"
#include "common/accelerator.hpp"
#include "common/clock.hpp"
#include "periph/periph_config.hpp"
#include "periph/regmap.hpp"

namespace eva {

// What the peripheral reports about its accelerator, and its own settings.
struct PeripheralConfig {
  double clock_mhz = 500.0;
  regs::ArchCode arch = regs::ArchCode::eva;
  std::uint32_t caps_format = 0, caps_vq = 0, caps_array = 0, caps_units = 0;  // register values
  PeriphConfig periph;
};

// The identification registers of an architecture (ARCH, CAPS_*) and its
// `periph:` section.
PeripheralConfig peripheral_config(const ArchConfig& arch);

class Peripheral : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Peripheral> target_socket;  // the registers (LT)
  sc_core::sc_out<bool> irq;                                  // level, active high; bind it

  // The accelerator's memory_socket() is bound by the caller, as without a
  // peripheral; the peripheral drives its execute() and its DMA.
  Peripheral(const sc_core::sc_module_name& name, Accelerator& accel, const PeripheralConfig& config);
  Peripheral(const Peripheral&) = delete;
  Peripheral& operator=(const Peripheral&) = delete;

  // Why the error in ERROR_CODE was raised (the decoder's or check's message),
  // for reports and tests; not a register.
  const std::string& error_message() const { return m_error_message; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Serves one aligned 32-bit access; false (and the response status set) if refused.
  bool access(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay);
  bool read_register(std::uint32_t offset, bool latch, std::uint32_t& value);
  bool write_register(std::uint32_t offset, std::uint32_t value, const sc_core::sc_time& delay);
  std::uint64_t counter(regs::Reg lo) const;
  void soft_reset();

  void control();  // SC_THREAD: takes ring entries
  void run_chain(std::uint64_t addr, std::uint64_t generation);
  // Raises an error; `descriptor`: a descriptor failed (DESC_FAILED counts it).
  void fail(regs::ErrorCode code, std::uint64_t addr, std::string message, bool descriptor = true);
  bool ready() const;
  void set_busy(bool busy);
  void drive_irq();  // SC_METHOD
  void irq_changed(const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME) { m_irq_event.notify(delay); }

  Accelerator& m_accel;
  const PeripheralConfig m_config;
  const ClockDomain m_clock;

  // Registers
  bool m_enable = false, m_irq_enable = false;
  bool m_done = false, m_error = false, m_busy = false;
  regs::ErrorCode m_error_code = regs::ErrorCode::none;
  std::uint64_t m_error_addr = 0;
  std::string m_error_message;
  std::uint64_t m_ring_base = 0;
  std::uint32_t m_ring_size = 0, m_head = 0, m_tail = 0;
  std::uint64_t m_latched = 0;  // the 64-bit value whose LO was read last

  // Counters, from their values at the last reset
  sc_core::sc_time m_busy_time = sc_core::SC_ZERO_TIME, m_busy_since = sc_core::SC_ZERO_TIME;
  std::uint64_t m_read0 = 0, m_written0 = 0, m_conflicts0 = 0;
  std::uint64_t m_desc_done = 0, m_desc_failed = 0;

  std::uint64_t m_generation = 0;  // soft resets so far: a reset voids the work in flight
  sc_core::sc_event m_doorbell, m_irq_event;
};

}  // namespace eva
