#include "periph/peripheral.hpp"

#include <variant>

#include <fmt/format.h>

#include "common/error.hpp"
#include "dma/dma.hpp"
#include "periph/descriptor_codec.hpp"

namespace eva {

namespace {

using regs::Reg;

regs::ArchCode arch_code(ArchKind kind) {
  switch (kind) {
    case ArchKind::eva:
      return regs::ArchCode::eva;
    case ArchKind::sa:
      return regs::ArchCode::sa;
    case ArchKind::ant:
      return regs::ArchCode::ant;
    case ArchKind::figna:
      return regs::ArchCode::figna;
    case ArchKind::figlut:
      return regs::ArchCode::figlut;
    case ArchKind::vq_conflict:
      return regs::ArchCode::vq_conflict;
  }
  return regs::ArchCode::eva;
}

std::uint32_t u32(int v) { return static_cast<std::uint32_t>(v); }

bool is_lo(Reg r) {
  switch (r) {
    case Reg::cycles_busy_lo:
    case Reg::dram_read_lo:
    case Reg::dram_written_lo:
    case Reg::desc_done_lo:
    case Reg::bank_conflict_lo:
    case Reg::desc_failed_lo:
      return true;
    default:
      return false;
  }
}

}  // namespace

PeripheralConfig peripheral_config(const ArchConfig& a) {
  PeripheralConfig c;
  c.clock_mhz = a.clock_mhz;
  c.arch = arch_code(a.kind);
  c.caps_format = regs::caps_format_act_bits.put(u32(a.formats.act_bits)) |
                  regs::caps_format_weight_bits.put(u32(a.formats.weight_bits)) |
                  regs::caps_format_out_bits.put(u32(a.formats.out_bits)) |
                  regs::caps_format_kv_bits.put(u32(a.formats.kv_bits));
  const bool vq = a.kind == ArchKind::eva || a.kind == ArchKind::vq_conflict;
  c.caps_vq = vq ? regs::caps_vq_vector_dim.put(u32(a.vq.vector_dim)) |
                       regs::caps_vq_index_bits.put(u32(a.vq.index_bits)) |
                       regs::caps_vq_codebooks.put(u32(a.vq.codebooks))
                 : 0;
  c.caps_array = regs::caps_array_rows.put(u32(a.systolic.rows)) | regs::caps_array_cols.put(u32(a.systolic.cols));
  c.caps_units = a.kind == ArchKind::eva ? regs::caps_units_epilogue_units.put(u32(a.epilogue.units)) |
                                               regs::caps_units_adder_inputs.put(u32(a.epilogue.adder_inputs))
                                         : 0;
  c.periph = a.periph;
  return c;
}

Peripheral::Peripheral(const sc_core::sc_module_name& name, Accelerator& accel, const PeripheralConfig& config)
    : sc_module(name),
      target_socket("target_socket"),
      irq("irq"),
      m_accel(accel),
      m_config(config),
      m_clock(config.clock_mhz) {
  target_socket.register_b_transport(this, &Peripheral::b_transport);
  target_socket.register_transport_dbg(this, &Peripheral::transport_dbg);
  SC_HAS_PROCESS(Peripheral);
  SC_THREAD(control);
  SC_METHOD(drive_irq);
  sensitive << m_irq_event;
}

// ---- the register file ------------------------------------------------------

void Peripheral::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (access(trans, delay)) trans.set_response_status(tlm::TLM_OK_RESPONSE);
  delay += m_clock.cycles(static_cast<std::uint64_t>(m_config.periph.register_cycles));
}

bool Peripheral::access(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay) {
  const std::uint64_t addr = trans.get_address();
  if (trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_data_length() != 4 || trans.get_streaming_width() < 4 || !trans.get_data_ptr()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  if (addr % 4 || addr >= regs::window_bytes) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  const auto offset = static_cast<std::uint32_t>(addr);
  std::uint8_t* data = trans.get_data_ptr();
  std::uint32_t value = 0;
  if (trans.is_read()) {
    if (!read_register(offset, true, value)) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return false;
    }
    for (int i = 0; i < 4; ++i) data[i] = static_cast<std::uint8_t>(value >> (8 * i));
    return true;
  }
  if (!trans.is_write()) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return false;
  }
  for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(data[i]) << (8 * i);
  std::uint32_t unused = 0;
  if (!read_register(offset, false, unused)) {  // not in the map
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (!write_register(offset, value, delay)) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return false;
  }
  return true;
}

unsigned int Peripheral::transport_dbg(tlm::tlm_generic_payload& trans) {
  // Reads of whole registers without side effects (holes in the map read 0);
  // no writes.
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (!trans.is_read() || addr % 4 || len % 4 || addr >= regs::window_bytes || len > regs::window_bytes - addr ||
      !trans.get_data_ptr())
    return 0;
  for (unsigned at = 0; at < len; at += 4) {
    std::uint32_t value = 0;
    if (!read_register(static_cast<std::uint32_t>(addr + at), false, value)) value = 0;
    for (int i = 0; i < 4; ++i) trans.get_data_ptr()[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return len;
}

std::uint64_t Peripheral::counter(Reg lo) const {
  const Dma& dma = m_accel.dma_engine();
  switch (lo) {
    case Reg::cycles_busy_lo: {
      sc_core::sc_time t = m_busy_time;
      if (m_busy) t += sc_core::sc_time_stamp() - m_busy_since;
      return m_clock.to_cycles(t);
    }
    case Reg::dram_read_lo:
      return dma.bytes_read() - m_read0;
    case Reg::dram_written_lo:
      return dma.bytes_written() - m_written0;
    case Reg::desc_done_lo:
      return m_desc_done;
    case Reg::bank_conflict_lo:
      return m_accel.bank_conflict_cycles() - m_conflicts0;
    case Reg::desc_failed_lo:
      return m_desc_failed;
    default:
      return 0;
  }
}

// The register's value; false if `offset` is not a register. `latch`: a read
// by the bus (LO latches its pair).
bool Peripheral::read_register(std::uint32_t offset, bool latch, std::uint32_t& value) {
  const auto r = static_cast<Reg>(offset);
  switch (r) {
    case Reg::id:
      value = regs::id_value;
      return true;
    case Reg::version:
      value = regs::version_regmap.put(regs::regmap_version) | regs::version_desc.put(regs::desc_version);
      return true;
    case Reg::arch:
      value = static_cast<std::uint32_t>(m_config.arch);
      return true;
    case Reg::caps_format:
      value = m_config.caps_format;
      return true;
    case Reg::caps_vq:
      value = m_config.caps_vq;
      return true;
    case Reg::caps_array:
      value = m_config.caps_array;
      return true;
    case Reg::caps_units:
      value = m_config.caps_units;
      return true;
    case Reg::ctrl:
      value = regs::ctrl_enable.put(m_enable) | regs::ctrl_irq_enable.put(m_irq_enable);
      return true;
    case Reg::status:
      value = regs::status_busy.put(m_busy) | regs::status_done.put(m_done) | regs::status_error.put(m_error);
      return true;
    case Reg::error_code:
      value = static_cast<std::uint32_t>(m_error_code);
      return true;
    case Reg::error_addr_lo:
      value = static_cast<std::uint32_t>(m_error_addr);
      return true;
    case Reg::error_addr_hi:
      value = static_cast<std::uint32_t>(m_error_addr >> 32);
      return true;
    case Reg::ring_base_lo:
      value = static_cast<std::uint32_t>(m_ring_base);
      return true;
    case Reg::ring_base_hi:
      value = static_cast<std::uint32_t>(m_ring_base >> 32);
      return true;
    case Reg::ring_size:
      value = m_ring_size;
      return true;
    case Reg::ring_head:
      value = m_head;
      return true;
    case Reg::ring_tail:
      value = m_tail;
      return true;
    case Reg::doorbell:
      value = 0;
      return true;
    case Reg::cycles_busy_hi:
    case Reg::dram_read_hi:
    case Reg::dram_written_hi:
    case Reg::desc_done_hi:
    case Reg::bank_conflict_hi:
    case Reg::desc_failed_hi:
      // The value latched by the last LO read (a debug read: the live one).
      value = static_cast<std::uint32_t>((latch ? m_latched : counter(static_cast<Reg>(offset - 4))) >> 32);
      return true;
    default:
      if (!is_lo(r)) return false;
      {
        const std::uint64_t v = counter(r);
        if (latch) m_latched = v;
        value = static_cast<std::uint32_t>(v);
      }
      return true;
  }
}

// False for a write to a read-only register.
bool Peripheral::write_register(std::uint32_t offset, std::uint32_t value, const sc_core::sc_time& delay) {
  switch (static_cast<Reg>(offset)) {
    case Reg::ctrl:
      if (regs::ctrl_soft_reset.get(value)) {
        soft_reset();
        irq_changed(delay);
        return true;
      }
      m_enable = regs::ctrl_enable.get(value);
      m_irq_enable = regs::ctrl_irq_enable.get(value);
      irq_changed(delay);
      if (m_enable) m_doorbell.notify(delay);  // entries queued while disabled
      return true;
    case Reg::status:  // BUSY is read-only; DONE and ERROR clear on 1
      if (regs::status_done.get(value)) m_done = false;
      if (regs::status_error.get(value)) {
        m_error = false;
        m_error_code = regs::ErrorCode::none;
        m_error_addr = 0;
        m_error_message.clear();
      }
      irq_changed(delay);
      return true;
    case Reg::ring_base_lo:
      if (!m_busy) m_ring_base = (m_ring_base & ~0xffffffffull) | value;
      return true;
    case Reg::ring_base_hi:
      if (!m_busy) m_ring_base = (m_ring_base & 0xffffffffull) | static_cast<std::uint64_t>(value) << 32;
      return true;
    case Reg::ring_size:
      if (!m_busy) {
        m_ring_size = value;
        m_head = m_tail = 0;
      }
      return true;
    case Reg::ring_tail:
      m_tail = value;
      return true;
    case Reg::doorbell:
      if (!m_enable) return true;
      if (m_ring_size == 0 || m_tail >= m_ring_size) {
        fail(regs::ErrorCode::ring_config, m_ring_base,
             fmt::format("doorbell with RING_SIZE {} and RING_TAIL {}", m_ring_size, m_tail), false);
        irq_changed(delay);
        return true;
      }
      m_doorbell.notify(delay);
      return true;
    default:
      return false;  // read-only
  }
}

void Peripheral::soft_reset() {
  ++m_generation;
  m_enable = m_irq_enable = false;
  m_done = m_error = false;
  m_error_code = regs::ErrorCode::none;
  m_error_addr = 0;
  m_error_message.clear();
  m_ring_base = 0;
  m_ring_size = m_head = m_tail = 0;
  m_latched = 0;
  m_busy_time = sc_core::SC_ZERO_TIME;
  m_busy_since = sc_core::sc_time_stamp();
  const Dma& dma = m_accel.dma_engine();
  m_read0 = dma.bytes_read();
  m_written0 = dma.bytes_written();
  m_conflicts0 = m_accel.bank_conflict_cycles();
  m_desc_done = m_desc_failed = 0;
}

// ---- the control ------------------------------------------------------------

bool Peripheral::ready() const { return m_enable && m_ring_size > 0 && m_tail < m_ring_size && m_head != m_tail; }

void Peripheral::set_busy(bool busy) {
  if (busy == m_busy) return;
  if (busy)
    m_busy_since = sc_core::sc_time_stamp();
  else
    m_busy_time += sc_core::sc_time_stamp() - m_busy_since;
  m_busy = busy;
}

void Peripheral::control() {
  for (;;) {
    if (!ready()) {
      set_busy(false);
      wait(m_doorbell);
      continue;
    }
    set_busy(true);
    const std::uint64_t generation = m_generation;
    run_chain(m_ring_base + static_cast<std::uint64_t>(m_head) * regs::desc_bytes, generation);
    if (generation != m_generation) continue;  // reset meanwhile: the entry has no effect
    m_head = (m_head + 1) % m_ring_size;
    if (m_head == m_tail) {
      m_done = true;
      irq_changed();
    }
  }
}

// Fetches, checks and runs the descriptor at `addr` (a ring entry, which may
// be at address 0) and those it chains to (a `next` of 0 ends the chain).
void Peripheral::run_chain(std::uint64_t addr, std::uint64_t generation) {
  Dma& dma = m_accel.dma_engine();
  for (int n = 0; n == 0 || addr != 0; ++n) {
    if (n == m_config.periph.chain_limit) {
      fail(regs::ErrorCode::chain_limit, addr,
           fmt::format("more than {} chained descriptors", m_config.periph.chain_limit));
      return;
    }
    dma.clear_bus_error();
    DescriptorBytes bytes{};
    dma.read(addr, bytes.size(), bytes.data());
    if (generation != m_generation) return;
    if (const Dma::BusError& e = dma.bus_error()) {
      fail(regs::ErrorCode::fetch_bus_error, e.addr, "descriptor fetch: " + e.message());
      return;
    }
    const DecodedDescriptor d = decode_descriptor(bytes.data(), bytes.size());
    if (!d.ok()) {
      fail(d.error, addr, fmt::format("descriptor at 0x{:x}: {}", addr, d.message));
      return;
    }
    try {
      std::visit([&](const auto& op) { m_accel.check(op); }, d.op);
    } catch (const InputError& e) {
      fail(regs::ErrorCode::unsupported, addr, fmt::format("descriptor at 0x{:x}: {}", addr, e.what()));
      return;
    }
    if (const auto* g = std::get_if<GemmDescriptor>(&d.op))
      execute_each(m_accel, *g);
    else
      m_accel.execute_vector(std::get<VectorDescriptor>(d.op));
    if (generation != m_generation) return;
    if (const Dma::BusError& e = dma.bus_error()) {
      fail(regs::ErrorCode::data_bus_error, e.addr, fmt::format("descriptor at 0x{:x}: {}", addr, e.message()));
      return;
    }
    ++m_desc_done;
    addr = d.next;
  }
}

void Peripheral::fail(regs::ErrorCode code, std::uint64_t addr, std::string message, bool descriptor) {
  if (descriptor) ++m_desc_failed;
  if (!m_error) {
    m_error = true;
    m_error_code = code;
    m_error_addr = addr;
    m_error_message = std::move(message);
  }
  irq_changed();
}

void Peripheral::drive_irq() { irq.write(m_irq_enable && (m_done || m_error)); }

}  // namespace eva
