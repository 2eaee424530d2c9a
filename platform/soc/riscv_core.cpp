#include "riscv_core.hpp"

#include <unicorn/unicorn.h>

#include <cstring>
#include <sstream>

namespace eva::soc {

using sc_core::sc_time;

namespace {
std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}
}  // namespace

RiscvCore::RiscvCore(const sc_core::sc_module_name& name, const Config& config)
    : sc_module(name),
      socket("socket"),
      m_config(config),
      m_cycle(1.0 / config.clock_mhz, sc_core::SC_US),
      m_sram(config.sram_bytes, 0) {
  SC_HAS_PROCESS(RiscvCore);
  SC_THREAD(run);
  // Unicorn's translator and its callbacks run on this thread's stack.
  set_stack_size(16 * 1024 * 1024);
}

RiscvCore::~RiscvCore() {
  if (m_uc) uc_close(m_uc);
}

void RiscvCore::fail(const std::string& why) {
  if (m_error.empty()) m_error = why;
  m_stopping = true;
  if (m_uc) uc_emu_stop(m_uc);
}

void RiscvCore::stop(std::uint32_t exit_code) {
  m_exit_code = exit_code;
  m_stopping = true;
  if (m_uc) uc_emu_stop(m_uc);
}

void RiscvCore::sync_if_needed() {
  if (m_qk.need_sync()) m_qk.sync();
}

bool RiscvCore::bus_access(tlm::tlm_command cmd, std::uint64_t addr, unsigned size, std::uint8_t* data) {
  m_trans.set_command(cmd);
  m_trans.set_address(addr);
  m_trans.set_data_ptr(data);
  m_trans.set_data_length(size);
  m_trans.set_streaming_width(size);
  m_trans.set_byte_enable_ptr(nullptr);
  m_trans.set_dmi_allowed(false);
  m_trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = m_qk.get_local_time();
  socket->b_transport(m_trans, delay);
  m_qk.set(delay);
  ++m_bus_accesses;
  if (m_trans.is_response_error()) {
    std::uint64_t pc = 0;
    uc_reg_read(m_uc, UC_RISCV_REG_PC, &pc);
    fail(std::string(cmd == tlm::TLM_READ_COMMAND ? "read" : "write") + " of " + std::to_string(size) + " bytes at " +
         hex(addr) + " (pc " + hex(pc) + "): " + m_trans.get_response_string());
    return false;
  }
  sync_if_needed();
  return true;
}

std::uint64_t RiscvCore::bus_read(std::uint64_t addr, unsigned size) {
  std::uint8_t b[8] = {};
  if (m_stopping || size > 8 || !bus_access(tlm::TLM_READ_COMMAND, addr, size, b)) return 0;
  std::uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  return v;
}

void RiscvCore::bus_write(std::uint64_t addr, unsigned size, std::uint64_t value) {
  std::uint8_t b[8] = {};
  for (unsigned i = 0; i < size && i < 8; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
  if (!m_stopping && size <= 8) bus_access(tlm::TLM_WRITE_COMMAND, addr, size, b);
}

std::uint64_t RiscvCore::mmio_read(uc_struct*, std::uint64_t offset, unsigned size, void* user) {
  auto* h = static_cast<RangeHook*>(user);
  return h->core->bus_read(h->base + offset, size);
}

void RiscvCore::mmio_write(uc_struct*, std::uint64_t offset, unsigned size, std::uint64_t value, void* user) {
  auto* h = static_cast<RangeHook*>(user);
  h->core->bus_write(h->base + offset, size, value);
}

void RiscvCore::block_hook(uc_struct*, std::uint64_t addr, std::uint32_t size, void* user) {
  static_cast<RiscvCore*>(user)->block(addr, size);
}

void RiscvCore::block(std::uint64_t addr, std::uint32_t size) {
  // Instructions in the block: 16-bit (compressed) unless the low bits are 11.
  const std::uint64_t key = addr ^ (static_cast<std::uint64_t>(size) << 48);
  auto it = m_block_instructions.find(key);
  if (it == m_block_instructions.end()) {
    std::uint32_t n = 0;
    for (std::uint64_t off = 0; off < size; ++n) {
      const std::uint64_t a = addr + off - m_config.sram_base;
      const bool wide = a < m_sram.size() && (m_sram[a] & 3) == 3;
      off += wide ? 4 : 2;
    }
    it = m_block_instructions.emplace(key, n).first;
  }
  m_instructions += it->second;
  m_qk.inc(m_cycle * static_cast<double>(it->second));
  sync_if_needed();
}

void RiscvCore::run() {
  m_qk.reset();
  uc_err err = uc_open(UC_ARCH_RISCV, UC_MODE_RISCV64, &m_uc);
  if (err != UC_ERR_OK) {
    m_error = std::string("unicorn: uc_open: ") + uc_strerror(err);
  } else {
    err = uc_mem_map_ptr(m_uc, m_config.sram_base, m_sram.size(), UC_PROT_ALL, m_sram.data());
    for (const Config::Range& r : m_config.bus) {
      if (err != UC_ERR_OK) break;
      m_hooks.push_back(std::make_unique<RangeHook>(RangeHook{this, r.base}));
      err = uc_mmio_map(m_uc, r.base, r.size, &RiscvCore::mmio_read, m_hooks.back().get(), &RiscvCore::mmio_write,
                        m_hooks.back().get());
    }
    uc_hook hook;
    if (err == UC_ERR_OK)
      err = uc_hook_add(m_uc, &hook, UC_HOOK_BLOCK, reinterpret_cast<void*>(&RiscvCore::block_hook), this, 1, 0);
    if (err != UC_ERR_OK) {
      m_error = std::string("unicorn: mapping the memory: ") + uc_strerror(err);
    } else {
      err = uc_emu_start(m_uc, m_config.reset_pc, 0, 0, 0);
      if (err != UC_ERR_OK && m_error.empty()) {
        std::uint64_t pc = 0;
        uc_reg_read(m_uc, UC_RISCV_REG_PC, &pc);
        m_error = std::string("unicorn at pc ") + hex(pc) + ": " + uc_strerror(err);
      }
      if (!m_stopping && m_error.empty()) {
        std::uint64_t pc = 0;
        uc_reg_read(m_uc, UC_RISCV_REG_PC, &pc);
        m_error = "the core stopped at pc " + hex(pc) + " without writing EXIT";
      }
    }
  }
  m_qk.sync();
  m_finished = true;
  m_finished_event.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace eva::soc
