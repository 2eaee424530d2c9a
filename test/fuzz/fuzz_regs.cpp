// libFuzzer harness: the peripheral's register file (models/periph/peripheral.*,
// docs/REGISTERS.md) in a small SystemC platform. Per architecture kind an
// accelerator, its DRAM (`ideal`) behind the base-protocol checker, and the
// Peripheral around it; a host thread plays the input on one of them (the
// first byte picks which) as a sequence of bus accesses of any command,
// offset, length, streaming width and byte enables, debug accesses, pauses
// and descriptors written into memory, then rings the doorbell.
//
// SystemC elaborates once per process, so the platform is built on the first
// input and every input starts from the reset state: after its sequence the
// host writes CTRL.SOFT_RESET, waits until the operation in flight ends
// (STATUS.BUSY clears: a reset cannot cut it short), resets again, and checks
// that the whole window reads as it did after elaboration and the interrupt
// is low; then the memory the input wrote is zeroed.
//
// Memory holds only descriptors whose work is small (a large valid job would
// look like a hang), and functional ones only with their operands in the
// first 4 MiB, so that zeroing them is cheap. Findings: a crash or a
// sanitizer's report, a SystemC error or warning (the protocol checker's
// included), an exception, a b_transport that leaves the response status
// incomplete, a debug access that claims more bytes than it was given, and
// state that survives the resets.
//
// The input (test/fuzz/make_seeds.py writes seeds in it): a unit byte (eva,
// sa, ant, figna, figlut, vq-conflict), then operations, each a byte (mod 5)
// and its fields, little-endian; a field past the end reads as zero.
//   0 b_transport   how (bits 0-5 mod 3: read, write, ignore; 6: no data
//                   pointer; 7: an 8-byte address, else 2 bytes mod 0x120),
//                   address, length (mod 9), streaming width (0xff: the
//                   length, else mod 9), byte-enable length (mod 9), data,
//                   byte enables
//   1 transport_dbg how (bit 0: write; 6, 7 as above), address, length (2 bytes
//                   mod 0x140), data
//   2 pause         10 ns times a byte (at most 200 us in all)
//   3 descriptor    how (bit 0: a valid header over it; 1: vector, else GEMM),
//                   slot (mod 64; slot i at 0x1000 + 128 i), length (mod 129),
//                   the bytes (the rest zero)
//   4 interrupt     wait for it, at most 20 us
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <pthread.h>
#include <sanitizer/lsan_interface.h>

#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "arch/accelerators.hpp"
#include "arch/presets.hpp"
#include "checker/protocol_checker.hpp"
#include "common/report_handler.hpp"
#include "common/sanitizer_defaults.hpp"
#include "fuzz_common.hpp"
#include "periph/descriptor_codec.hpp"
#include "periph/peripheral.hpp"

using namespace eva;
using regs::Reg;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

// libsystemc refers to sc_main; libFuzzer's main() drives this program, so it
// is never called.
int sc_main(int, char*[]) { return 0; }

namespace {

constexpr std::uint64_t slot_base = 0x1000;  // descriptor slots
constexpr std::uint64_t slots = 64;
constexpr std::uint64_t functional_below = 2ull << 20;   // functional operands start below 2 MiB...
constexpr std::uint64_t functional_region = 4ull << 20;  // ...and end below 4 MiB (zeroed after use)
constexpr std::uint64_t max_macs = 1ull << 22;           // m * n * k * count of a GEMM in memory
constexpr std::uint64_t max_vector = 1ull << 18;         // rows * cols of a vector op in memory

// The input, read front to back; zeros once it is used up.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
  bool empty() const { return m_at >= m_size; }
  std::uint8_t u8() { return m_at < m_size ? m_data[m_at++] : 0; }
  std::uint64_t bytes(unsigned n) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(u8()) << (8 * i);
    return v;
  }

 private:
  const std::uint8_t* m_data;
  std::size_t m_size;
  std::size_t m_at = 0;
};

// Whether the harness lets a descriptor into memory: what the decoder refuses
// always (the peripheral reports it), what it accepts only when small.
bool admissible(const std::array<std::uint8_t, regs::desc_bytes>& bytes) {
  const DecodedDescriptor d = decode_descriptor(bytes.data(), bytes.size());
  if (!d.ok()) return true;
  if (const auto* g = std::get_if<GemmDescriptor>(&d.op)) {
    if (g->m > 64 || g->n > 4096 || g->k > 4096 || g->count > 4 || g->m * g->n * g->k * g->count > max_macs)
      return false;
    if (!g->functional) return true;
    if (g->n * g->k > (1u << 18)) return false;
    for (const std::uint64_t a : {g->act_addr, g->weight_addr, g->codebook_addr, g->out_addr})
      if (a >= functional_below) return false;
    return std::max({g->act_stride, g->weight_stride, g->out_stride}) < functional_below / 16;  // count <= 4
  }
  const auto& v = std::get<VectorDescriptor>(d.op);
  return v.rows <= 256 && v.cols <= 8192 && v.rows * v.cols <= max_vector;
}

// One accelerator with its DRAM and peripheral, and the host that plays inputs.
class Unit : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Unit> socket{"socket"};

  Unit(const sc_core::sc_module_name& name, const std::string& arch) : sc_module(name) {
    const ArchConfig c = presets::arch(arch);
    m_dram = make_dram("dram", c.dram);
    m_accel = make_accelerator(c);
    m_checker = std::make_unique<ProtocolChecker>("checker");
    m_accel->memory_socket().bind(m_checker->target_socket);
    m_checker->initiator_socket.bind(m_dram->target_socket);
    PeripheralConfig pc = peripheral_config(c);
    pc.periph.chain_limit = 16;  // a looping chain ends soon
    m_periph = std::make_unique<Peripheral>("periph", *m_accel, pc);
    m_periph->irq(m_irq);
    socket.bind(m_periph->target_socket);
    SC_HAS_PROCESS(Unit);
    SC_THREAD(host);
  }

  // Plays `input` (sc_start returns when it is done).
  void play(const std::uint8_t* data, std::size_t size) {
    m_input = std::make_unique<Input>(data, size);
    m_go.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  void host() {
    m_reset_window = window();
    for (;;) {
      wait(m_go);
      run(*m_input);
      sc_core::sc_pause();
    }
  }

  void run(Input& in) {
    m_placed = m_functional = false;
    sc_time waited = sc_core::SC_ZERO_TIME;
    while (!in.empty()) {
      switch (in.u8() % 5) {
        case 0:
          bus_access(in);
          break;
        case 1:
          debug_access(in);
          break;
        case 2: {
          const sc_time t(10.0 * in.u8(), SC_NS);
          if (waited < sc_time(200, SC_US)) wait(t);
          waited += t;
          break;
        }
        case 3:
          place(in);
          break;
        case 4:
          if (!m_irq.read()) wait(sc_time(20, SC_US), m_irq.posedge_event());
          break;
      }
    }
    write(Reg::doorbell, 1);
    for (int i = 0; i < 20; ++i) {
      wait(sc_time(1, SC_US));
      if (!busy()) break;
    }
    reset_and_check();
    if (m_functional)
      zero(0, functional_region);
    else if (m_placed)
      zero(slot_base, slots * regs::desc_bytes);
  }

  // A b_transport of whatever the input says.
  void bus_access(Input& in) {
    const std::uint8_t how = in.u8();
    const tlm::tlm_command cmd = static_cast<tlm::tlm_command>((how & 0x3f) % 3);
    const std::uint64_t addr = how & 0x80 ? in.bytes(8) : in.bytes(2) % (regs::window_bytes + 0x20);
    const unsigned len = in.u8() % 9;
    const std::uint8_t sw = in.u8();
    const unsigned be_len = in.u8() % 9;
    std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[len]);
    for (unsigned i = 0; i < len; ++i) buffer[i] = in.u8();
    std::unique_ptr<std::uint8_t[]> be(new std::uint8_t[be_len]);
    for (unsigned i = 0; i < be_len; ++i) be[i] = in.u8();
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(how & 0x40 ? nullptr : buffer.get());
    t.set_data_length(len);
    t.set_streaming_width(sw == 0xff ? len : sw % 9);
    if (be_len) {
      t.set_byte_enable_ptr(be.get());
      t.set_byte_enable_length(be_len);
    }
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      fuzz::violated(fmt::format("b_transport at 0x{:x} left the response status incomplete", addr));
    wait(delay);
  }

  void debug_access(Input& in) {
    const std::uint8_t how = in.u8();
    const std::uint64_t addr = how & 0x80 ? in.bytes(8) : in.bytes(2) % (regs::window_bytes + 0x20);
    const unsigned len = static_cast<unsigned>(in.bytes(2) % (regs::window_bytes + 0x40));
    std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[len]);
    for (unsigned i = 0; i < len; ++i) buffer[i] = in.u8();
    tlm::tlm_generic_payload t;
    t.set_command(how & 1 ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(how & 0x40 ? nullptr : buffer.get());
    t.set_data_length(len);
    t.set_streaming_width(len);
    const unsigned served = socket->transport_dbg(t);
    if (served > len) fuzz::violated(fmt::format("transport_dbg served {} of {} bytes", served, len));
  }

  // A descriptor image into one of the slots; `how` bit 0 writes a valid
  // header over it, so that the fuzzer reaches the fields behind it.
  void place(Input& in) {
    const std::uint8_t how = in.u8();
    const std::uint64_t slot = in.u8() % slots;
    std::array<std::uint8_t, regs::desc_bytes> bytes{};
    const unsigned n = in.u8() % (regs::desc_bytes + 1);
    for (unsigned i = 0; i < n; ++i) bytes[i] = in.u8();
    if (how & 1) {
      for (unsigned i = 0; i < 4; ++i) bytes[regs::gemm_desc::magic + i] = (regs::desc_magic >> (8 * i)) & 0xff;
      bytes[regs::gemm_desc::version] = regs::desc_version;
      bytes[regs::gemm_desc::opcode] =
          static_cast<std::uint8_t>(how & 2 ? regs::DescOpcode::vector : regs::DescOpcode::gemm);
    }
    if (!admissible(bytes)) return;
    const DecodedDescriptor d = decode_descriptor(bytes.data(), bytes.size());
    if (const auto* g = std::get_if<GemmDescriptor>(&d.op); d.ok() && g && g->functional) m_functional = true;
    m_dram->storage().write(slot_base + slot * regs::desc_bytes, bytes.data(), bytes.size());
    m_placed = true;
  }

  void reset_and_check() {
    write(Reg::ctrl, regs::ctrl_soft_reset.mask());
    sc_time step(1, SC_US), waited = sc_core::SC_ZERO_TIME;
    while (busy()) {
      if (waited > sc_time(100, sc_core::SC_MS)) fuzz::violated("STATUS.BUSY still set 100 ms after a soft reset");
      wait(step);
      waited += step;
      step = std::min(step * 2, sc_time(1, sc_core::SC_MS));
    }
    write(Reg::ctrl, regs::ctrl_soft_reset.mask());
    wait(sc_core::SC_ZERO_TIME);
    const std::array<std::uint8_t, regs::window_bytes> now = window();
    for (std::uint32_t at = 0; at < regs::window_bytes; at += 4)
      if (!std::equal(now.begin() + at, now.begin() + at + 4, m_reset_window.begin() + at))
        fuzz::violated(fmt::format("after a soft reset the register at 0x{:03x} differs from its reset value", at));
    if (m_irq.read()) fuzz::violated("the interrupt is high after a soft reset");
  }

  void write(Reg r, std::uint32_t value) {
    std::array<std::uint8_t, 4> b{};
    for (int i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(static_cast<std::uint64_t>(r));
    t.set_data_ptr(b.data());
    t.set_data_length(4);
    t.set_streaming_width(4);
    sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    if (!t.is_response_ok()) fuzz::violated(fmt::format("the write of 0x{:x} failed", static_cast<unsigned>(r)));
    wait(delay);
  }

  // The whole window through transport_dbg (no side effects).
  std::array<std::uint8_t, regs::window_bytes> window() {
    std::array<std::uint8_t, regs::window_bytes> b{};
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(0);
    t.set_data_ptr(b.data());
    t.set_data_length(regs::window_bytes);
    t.set_streaming_width(regs::window_bytes);
    if (socket->transport_dbg(t) != regs::window_bytes) fuzz::violated("transport_dbg of the whole window failed");
    return b;
  }

  bool busy() {
    const auto w = window();
    const std::uint32_t at = static_cast<std::uint32_t>(Reg::status);
    return regs::status_busy.get(w[at]) != 0;
  }

  void zero(std::uint64_t from, std::uint64_t bytes) {
    static const std::vector<std::uint8_t> zeros(functional_region);
    m_dram->storage().write(from, zeros.data(), bytes);
  }

  std::unique_ptr<DramTarget> m_dram;
  std::unique_ptr<Accelerator> m_accel;
  std::unique_ptr<ProtocolChecker> m_checker;
  std::unique_ptr<Peripheral> m_periph;
  sc_core::sc_signal<bool> m_irq{"irq"};
  sc_core::sc_event m_go;
  std::unique_ptr<Input> m_input;
  std::array<std::uint8_t, regs::window_bytes> m_reset_window{};
  bool m_placed = false, m_functional = false;
};

std::vector<std::unique_ptr<Unit>>& units() {
  static std::vector<std::unique_ptr<Unit>> all = [] {
    std::vector<std::unique_ptr<Unit>> u;
    for (const char* arch : {"eva", "sa", "ant", "figna", "figlut", "vq-conflict"})
      u.push_back(std::make_unique<Unit>(fmt::format("unit_{}", u.size()).c_str(), arch));
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration; each host reads the reset window
    return u;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Once SystemC has switched to its coroutine stacks and back, LeakSanitizer
  // no longer knows the main thread's stack (it scans none of it, and reports
  // as leaked whatever only the stack points to), so the stack is a root.
  pthread_attr_t attr;
  void* stack = nullptr;
  std::size_t stack_size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &stack, &stack_size);
    pthread_attr_destroy(&attr);
    __lsan_register_root_region(stack, stack_size);
  }
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  SystemcReports::install();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  auto& all = units();
  all[data[0] % all.size()]->play(data + 1, size - 1);
  sc_core::sc_start();
  if (!SystemcReports::problems().empty()) fuzz::violated("SystemC: " + SystemcReports::problems().front());
  return 0;
}
