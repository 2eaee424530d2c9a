#include "soc.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "arch/accelerators.hpp"
#include "common/error.hpp"
#include "firmware/soc_map.h"

namespace eva::soc {

namespace {
constexpr std::uint64_t scratch_bytes = 1 << 20;
constexpr std::uint64_t core_dram_window_max = 4ull << 30;  // what the core maps of the DRAM
constexpr std::uint64_t fault_offset = 0xF0000;             // the fault window, in the scratch area
constexpr std::uint32_t fault_bytes = 0x1000;
}  // namespace

Soc::Soc(const sc_core::sc_module_name& name, const SocConfig& config) : sc_module(name) {
  const sc_core::sc_time access(config.device_access_ns, sc_core::SC_NS);
  m_dram_bytes = static_cast<std::uint64_t>(config.eva.dram.capacity_bytes());
  if (config.firmware.empty() || config.firmware.size() > SOC_SRAM_BYTES)
    throw InputError("firmware: " + std::to_string(config.firmware.size()) + " bytes; the SRAM holds 1 to " +
                     std::to_string(SOC_SRAM_BYTES));

  // Where each segment goes, checked before anything is built.
  std::uint64_t image_end = SOC_DRAM_BASE;
  if (config.image) {
    for (const ImageSegment& s : config.image->segments) {
      if (s.address < SOC_DRAM_BASE || s.address - SOC_DRAM_BASE > m_dram_bytes ||
          s.bytes.size() > m_dram_bytes - (s.address - SOC_DRAM_BASE))
        throw InputError(fmt::format("image: a segment at {:#x}", s.address) + " of " + std::to_string(s.bytes.size()) +
                         " bytes is outside the DRAM window");
      image_end = std::max<std::uint64_t>(image_end, s.address + s.bytes.size());
    }
  }
  m_scratch = (image_end + 0xffff) / 0x10000 * 0x10000;
  if (m_scratch + scratch_bytes - SOC_DRAM_BASE > std::min(m_dram_bytes, core_dram_window_max))
    throw InputError("image: no room for the rings after it in the core's view of the DRAM");

  m_router = std::make_unique<Router>("router");
  m_dram = make_dram("dram", config.eva.dram);
  m_eva = make_accelerator(config.eva);
  m_figlut = make_accelerator(config.figlut);
  m_eva_periph = std::make_unique<Peripheral>("eva_periph", *m_eva, peripheral_config(config.eva));
  m_figlut_periph = std::make_unique<Peripheral>("figlut_periph", *m_figlut, peripheral_config(config.figlut));
  SysCtl::Config sys;
  sys.cpu_mhz = static_cast<std::uint32_t>(config.cpu_mhz);
  sys.table_addr = config.image ? config.image->table_address() : 0;
  sys.scratch_addr = m_scratch;
  sys.scratch_bytes = static_cast<std::uint32_t>(scratch_bytes);
  if (config.inject_fault) {
    sys.fault_addr = m_scratch + fault_offset;
    sys.fault_bytes = fault_bytes;
    FaultConfig f;
    f.error_base = sys.fault_addr - SOC_DRAM_BASE;  // the router hands the DRAM its own addresses
    f.error_size = fault_bytes;
    f.error_limit = 1;
    m_faults = std::make_unique<FaultInjector>("fault_injector", f);
  }
  m_sysctl = std::make_unique<SysCtl>("sysctl", sys, access);
  m_uart = std::make_unique<Uart>("uart", config.uart_out, access);
  m_intc = std::make_unique<InterruptController>("intc", SOC_IRQ_LINES, access);

  RiscvCore::Config cc;
  cc.clock_mhz = config.cpu_mhz;
  cc.sram_base = SOC_SRAM_BASE;
  cc.sram_bytes = SOC_SRAM_BYTES;
  cc.reset_pc = SOC_SRAM_BASE;
  cc.bus = {{SOC_DEVICES_BASE, SOC_DEVICES_BYTES}, {SOC_DRAM_BASE, std::min(m_dram_bytes, core_dram_window_max)}};
  m_core = std::make_unique<RiscvCore>("core", cc);
  std::copy(config.firmware.begin(), config.firmware.end(), m_core->sram().begin());

  // Every socket pair through the router, with a base-protocol checker in
  // between when the configuration asks for one (sim.check_protocol of the
  // eva architecture, which also gives the DRAM).
  const auto link = [this, check = config.eva.sim.check_protocol](auto& initiator, auto& target, const char* name) {
    if (!check) {
      initiator.bind(target);
      return;
    }
    m_checkers.push_back(std::make_unique<ProtocolChecker>(name));
    initiator.bind(m_checkers.back()->target_socket);
    m_checkers.back()->initiator_socket.bind(target);
  };
  // Initiators: the core and both DMAs, in one address map.
  link(m_core->socket, m_router->target_socket, "core_checker");
  link(m_eva->memory_socket(), m_router->target_socket, "eva_dma_checker");
  link(m_figlut->memory_socket(), m_router->target_socket, "figlut_dma_checker");
  // Targets, in binding order.
  link(m_router->initiator_socket, m_sysctl->target_socket, "sysctl_checker");
  m_router->map(0, SOC_SYSCTL_BASE, SOC_DEVICE_WINDOW, "sysctl");
  link(m_router->initiator_socket, m_uart->target_socket, "uart_checker");
  m_router->map(1, SOC_UART_BASE, SOC_DEVICE_WINDOW, "uart");
  link(m_router->initiator_socket, m_intc->target_socket, "intc_checker");
  m_router->map(2, SOC_INTC_BASE, SOC_DEVICE_WINDOW, "intc");
  link(m_router->initiator_socket, m_eva_periph->target_socket, "eva_periph_checker");
  m_router->map(3, SOC_EVA_BASE, SOC_DEVICE_WINDOW, "eva");
  link(m_router->initiator_socket, m_figlut_periph->target_socket, "figlut_periph_checker");
  m_router->map(4, SOC_FIGLUT_BASE, SOC_DEVICE_WINDOW, "figlut");
  if (m_faults) {
    link(m_router->initiator_socket, m_faults->target_socket, "dram_checker");
    m_faults->initiator_socket.bind(m_dram->target_socket);
  } else {
    link(m_router->initiator_socket, m_dram->target_socket, "dram_checker");
  }
  m_router->map(5, SOC_DRAM_BASE, m_dram_bytes, "dram");

  m_eva_periph->irq(m_eva_irq);
  m_figlut_periph->irq(m_figlut_irq);
  m_intc->irq_in[SOC_IRQ_EVA](m_eva_irq);
  m_intc->irq_in[SOC_IRQ_FIGLUT](m_figlut_irq);
  m_sysctl->on_exit([this](std::uint32_t code) { m_core->stop(code); });

  SC_HAS_PROCESS(Soc);
  SC_THREAD(watch);

  if (config.image)
    for (const ImageSegment& s : config.image->segments)
      m_dram->storage().write(s.address - SOC_DRAM_BASE, s.bytes.data(), s.bytes.size());
}

Soc::~Soc() = default;

void Soc::watch() {
  wait(m_core->finished_event());
  sc_core::sc_stop();
}

}  // namespace eva::soc
