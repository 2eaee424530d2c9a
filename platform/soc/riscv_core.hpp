#pragma once
// A RISC-V core (RV64IMAC) from the Unicorn engine, in a SystemC thread.
// The core's local SRAM (code, data, stack) is host memory Unicorn maps
// directly; every load and store to a bus range (the devices, the DRAM) is a
// TLM b_transport through `socket`, its annotated delay kept in a
// tlm_quantumkeeper. Time: one core cycle per instruction, charged when each
// translated block starts (its instructions counted from their encodings).
// The firmware ends by calling stop() (the SoC's EXIT register); a bus error,
// an unmapped access or an illegal instruction ends it too, with an error.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <systemc>
#include <tlm>

struct uc_struct;

namespace eva::soc {

class RiscvCore : public sc_core::sc_module {
 public:
  struct Config {
    double clock_mhz = 1000.0;
    std::uint64_t sram_base = 0, sram_bytes = 0;  // local memory, mapped directly
    std::uint64_t reset_pc = 0;
    struct Range {
      std::uint64_t base, size;
    };
    std::vector<Range> bus;  // ranges whose accesses become TLM transactions (4 KiB aligned)
  };

  tlm_utils::simple_initiator_socket<RiscvCore> socket;

  RiscvCore(const sc_core::sc_module_name& name, const Config& config);
  ~RiscvCore() override;
  RiscvCore(const RiscvCore&) = delete;
  RiscvCore& operator=(const RiscvCore&) = delete;

  // The local SRAM (load the firmware here before the simulation).
  std::vector<std::uint8_t>& sram() { return m_sram; }
  // Ends the firmware run (from a device, during a bus access).
  void stop(std::uint32_t exit_code);

  bool finished() const { return m_finished; }
  std::uint32_t exit_code() const { return m_exit_code; }
  const std::string& error() const { return m_error; }  // empty unless the run failed
  std::uint64_t instructions() const { return m_instructions; }
  std::uint64_t bus_accesses() const { return m_bus_accesses; }
  const sc_core::sc_event& finished_event() const { return m_finished_event; }

 private:
  void run();  // SC_THREAD
  std::uint64_t bus_read(std::uint64_t addr, unsigned size);
  void bus_write(std::uint64_t addr, unsigned size, std::uint64_t value);
  bool bus_access(tlm::tlm_command cmd, std::uint64_t addr, unsigned size, std::uint8_t* data);
  void block(std::uint64_t addr, std::uint32_t size);
  void fail(const std::string& why);
  void sync_if_needed();

  struct RangeHook {
    RiscvCore* core;
    std::uint64_t base;
  };
  static std::uint64_t mmio_read(uc_struct* uc, std::uint64_t offset, unsigned size, void* user);
  static void mmio_write(uc_struct* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* user);
  static void block_hook(uc_struct* uc, std::uint64_t addr, std::uint32_t size, void* user);

  const Config m_config;
  const sc_core::sc_time m_cycle;
  std::vector<std::uint8_t> m_sram;
  std::vector<std::unique_ptr<RangeHook>> m_hooks;
  std::unordered_map<std::uint64_t, std::uint32_t> m_block_instructions;  // by (address, size)
  tlm_utils::tlm_quantumkeeper m_qk;
  uc_struct* m_uc = nullptr;
  tlm::tlm_generic_payload m_trans;
  bool m_finished = false, m_stopping = false;
  std::uint32_t m_exit_code = 0;
  std::string m_error;
  std::uint64_t m_instructions = 0, m_bus_accesses = 0;
  sc_core::sc_event m_finished_event;
};

}  // namespace eva::soc
