#pragma once
// The example SoC (docs/SOC.md): a RISC-V core, an address-map router, the
// DRAM shared by the core and the accelerators' DMAs, system control, a UART,
// an interrupt controller, and EVA and FIGLUT each behind its Peripheral.
// firmware/soc_map.h is the memory map.
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <systemc>

#include "arch/arch_config.hpp"
#include "checker/protocol_checker.hpp"
#include "common/accelerator.hpp"
#include "devices.hpp"
#include "dram/dram_target.hpp"
#include "fault/fault_injector.hpp"
#include "image.hpp"
#include "periph/peripheral.hpp"
#include "riscv_core.hpp"
#include "router.hpp"

namespace eva::soc {

struct SocConfig {
  ArchConfig eva, figlut;  // their DRAM sections: eva's builds the shared DRAM
  double cpu_mhz = 1000.0;
  double device_access_ns = 10.0;      // a register access of the SoC's own devices
  std::vector<std::uint8_t> firmware;  // a flat binary, loaded at SOC_SRAM_BASE
  const MemoryImage* image = nullptr;  // optional: copied into the DRAM
  std::ostream* uart_out = nullptr;
  // Inject one fault (eva-soc --inject-fault): the first access to a 4 KiB
  // window in the scratch area gets an error response; the firmware reads
  // the window from SOC_SYSCTL_FAULT_LO and puts an operand there.
  bool inject_fault = false;
};

// The simulation stops (sc_stop) when the firmware has ended.
class Soc : public sc_core::sc_module {
 public:
  Soc(const sc_core::sc_module_name& name, const SocConfig& config);
  ~Soc() override;

  RiscvCore& core() { return *m_core; }
  DramTarget& dram() { return *m_dram; }
  Uart& uart() { return *m_uart; }
  Router& router() { return *m_router; }
  Peripheral& eva_periph() { return *m_eva_periph; }
  Peripheral& figlut_periph() { return *m_figlut_periph; }
  std::uint64_t dram_bytes() const { return m_dram_bytes; }
  // Where the rings and descriptors may go: after the image.
  std::uint64_t scratch_address() const { return m_scratch; }
  // The fault injector in front of the DRAM (inject_fault), or nullptr.
  const FaultInjector* fault_injector() const { return m_faults.get(); }

 private:
  void watch();  // SC_THREAD: stops the simulation when the core has finished

  std::unique_ptr<Router> m_router;
  std::unique_ptr<DramTarget> m_dram;
  std::unique_ptr<Accelerator> m_eva, m_figlut;
  std::unique_ptr<Peripheral> m_eva_periph, m_figlut_periph;
  std::unique_ptr<SysCtl> m_sysctl;
  std::unique_ptr<Uart> m_uart;
  std::unique_ptr<InterruptController> m_intc;
  std::unique_ptr<RiscvCore> m_core;
  std::vector<std::unique_ptr<ProtocolChecker>> m_checkers;  // sim.check_protocol
  std::unique_ptr<FaultInjector> m_faults;                   // in front of the DRAM: --inject-fault
  sc_core::sc_signal<bool> m_eva_irq{"eva_irq"}, m_figlut_irq{"figlut_irq"};
  std::uint64_t m_dram_bytes = 0, m_scratch = 0;
};

}  // namespace eva::soc
