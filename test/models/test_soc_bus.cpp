// The example SoC's interconnect and devices (platform/soc, docs/SOC.md): the
// address-map router (decode, holes, DMI translation, approximately timed
// traffic from an accelerator's DMA with a delayed backward BEGIN_RESP), the
// UART, the interrupt controller and system control. One simulation per test
// case.
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <catch2/catch.hpp>

#include "arch/accelerators.hpp"
#include "arch/presets.hpp"
#include "arch_for_test.hpp"
#include "checker/protocol_checker.hpp"
#include "devices.hpp"
#include "firmware/soc_map.h"
#include "periph/descriptor_codec.hpp"
#include "periph/peripheral.hpp"
#include "router.hpp"
#include "sim_check.hpp"

using namespace eva;
using eva::soc::Router;
using regs::Reg;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

constexpr std::uint64_t dram_base = 0x80000000ull;

std::uint32_t word(const std::uint8_t* b) {
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

// Passes every phase through, but answers each BEGIN_RESP toward the
// initiator on the backward path with an annotated delay (legal in the base
// protocol), as some interconnects do.
struct DelayedResponses : sc_core::sc_module {
  tlm_utils::simple_target_socket<DelayedResponses> target_socket{"target_socket"};
  tlm_utils::simple_initiator_socket<DelayedResponses> initiator_socket{"initiator_socket"};
  sc_time extra;
  std::uint64_t delayed = 0;

  DelayedResponses(const sc_core::sc_module_name& n, const sc_time& e) : sc_module(n), extra(e) {
    target_socket.register_nb_transport_fw(this, &DelayedResponses::fw);
    target_socket.register_b_transport(this, &DelayedResponses::b);
    target_socket.register_transport_dbg(this, &DelayedResponses::dbg);
    initiator_socket.register_nb_transport_bw(this, &DelayedResponses::bw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& p, sc_time& d) {
    return initiator_socket->nb_transport_fw(t, p, d);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& p, sc_time& d) {
    if (p == tlm::BEGIN_RESP) {
      d += extra;
      ++delayed;
    }
    return target_socket->nb_transport_bw(t, p, d);
  }
  void b(tlm::tlm_generic_payload& t, sc_time& d) { initiator_socket->b_transport(t, d); }
  unsigned int dbg(tlm::tlm_generic_payload& t) { return initiator_socket->transport_dbg(t); }
};

// A router with a DRAM at dram_base (optionally behind DelayedResponses) and
// one small register device at 0x1000, driven by a host.
struct RouterRig : sc_core::sc_module {
  Router router{"router"};
  std::unique_ptr<DramTarget> dram;
  std::unique_ptr<DelayedResponses> delayer;
  soc::Uart uart;
  test::BareInitiator host{"host"};
  ProtocolChecker host_checker{"host_checker"}, dram_checker{"dram_checker"};
  std::ostringstream uart_out;

  RouterRig(const sc_core::sc_module_name& n, const DramConfig& dc, sc_time response_delay = SC_ZERO_TIME)
      : sc_module(n), uart("uart", &uart_out, sc_time(10, SC_NS)) {
    dram = make_dram("dram", dc);
    // Every simulating test checks the base protocol: host -> router and router -> DRAM.
    host.socket.bind(host_checker.target_socket);
    host_checker.initiator_socket.bind(router.target_socket);
    router.initiator_socket.bind(uart.target_socket);
    router.map(0, 0x1000, 0x1000, "uart");
    router.initiator_socket.bind(dram_checker.target_socket);
    if (response_delay != SC_ZERO_TIME) {
      delayer = std::make_unique<DelayedResponses>("delayer", response_delay);
      dram_checker.initiator_socket.bind(delayer->target_socket);
      delayer->initiator_socket.bind(dram->target_socket);
    } else {
      dram_checker.initiator_socket.bind(dram->target_socket);
    }
    router.map(1, dram_base, 1ull << 30, "dram");
  }
};

}  // namespace

TEST_CASE("soc router: decode, holes and window ends answer address errors, DMI translated both ways") {
  RouterRig rig("rig", test::arch("sa").dram);
  CHECK_THROWS(rig.router.map(0, 0x1800, 0x1000, "overlap"));
  CHECK_THROWS(rig.router.map(0, 0x10000, 0, "empty"));
  REQUIRE(rig.router.decode(0x1000, 4) != nullptr);
  CHECK(rig.router.decode(0x1000, 4)->name == "uart");
  CHECK(rig.router.decode(0x1ffc, 4)->name == "uart");
  CHECK(rig.router.decode(0x1ffc, 8) == nullptr);  // straddles the window's end
  CHECK(rig.router.decode(0xfff, 4) == nullptr);
  CHECK(rig.router.decode(dram_base + (1ull << 30) - 8, 8)->name == "dram");
  CHECK(rig.router.decode(dram_base + (1ull << 30), 1) == nullptr);

  test::Stimulus stim("stim", [&] {
    sc_time d = SC_ZERO_TIME;
    std::uint8_t b[8] = {'h', 0, 0, 0};
    CHECK(rig.host.access(tlm::TLM_WRITE_COMMAND, 0x1000 + SOC_UART_TXDATA, b, 4, d) == tlm::TLM_OK_RESPONSE);
    CHECK(rig.uart.text() == "h");
    CHECK(d == sc_time(10, SC_NS));
    // Holes: before, between and after the windows, and a straddling access.
    for (std::uint64_t a : std::vector<std::uint64_t>{0x0, 0x2000, 0x7ffffffc, dram_base + (1ull << 30), dram_base - 4})
      CHECK(rig.host.access(tlm::TLM_READ_COMMAND, a, b, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(rig.host.access(tlm::TLM_READ_COMMAND, dram_base - 4, b, 8, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(rig.router.address_errors() == 6);
    // The DRAM sees addresses relative to its window.
    const std::uint8_t pattern[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    rig.dram->storage().write(0x1230, pattern, 8);
    std::uint8_t got[8] = {};
    d = SC_ZERO_TIME;
    CHECK(rig.host.access(tlm::TLM_READ_COMMAND, dram_base + 0x1230, got, 8, d) == tlm::TLM_OK_RESPONSE);
    CHECK(std::memcmp(got, pattern, 8) == 0);
    wait(d);
    // Debug transport: translated; a hole moves nothing.
    tlm::tlm_generic_payload t;
    std::uint8_t dbg[8] = {};
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(dram_base + 0x1230);
    t.set_data_ptr(dbg);
    t.set_data_length(8);
    t.set_streaming_width(8);
    CHECK(rig.host.socket->transport_dbg(t) == 8);
    CHECK(std::memcmp(dbg, pattern, 8) == 0);
    CHECK(t.get_address() == dram_base + 0x1230);
    t.set_address(0x3000);
    CHECK(rig.host.socket->transport_dbg(t) == 0);
    // DMI: the grant's range is in system addresses, the pointer at its start.
    tlm::tlm_dmi dmi;
    t.set_address(dram_base + 0x1230);
    REQUIRE(rig.host.socket->get_direct_mem_ptr(t, dmi));
    CHECK(dmi.get_start_address() >= dram_base);
    CHECK(dmi.get_start_address() <= dram_base + 0x1230);
    CHECK(dmi.get_end_address() >= dram_base + 0x1237);
    CHECK(dmi.get_end_address() < dram_base + (1ull << 30));
    CHECK(std::memcmp(dmi.get_dmi_ptr() + (dram_base + 0x1230 - dmi.get_start_address()), pattern, 8) == 0);
    tlm::tlm_dmi none;
    t.set_address(0x3000);
    CHECK_FALSE(rig.host.socket->get_direct_mem_ptr(t, none));
    // An approximately timed request into a hole completes at once with an address error.
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    d = SC_ZERO_TIME;
    // (nb_transport wants a memory manager holding a reference: the protocol checker sees to it.)
    struct NoFree : tlm::tlm_mm_interface {
      void free(tlm::tlm_generic_payload*) override {}
    } mm;
    t.set_mm(&mm);
    t.acquire();
    t.set_address(0x5000);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    CHECK(rig.host.socket->nb_transport_fw(t, phase, d) == tlm::TLM_COMPLETED);
    CHECK(t.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    t.release();
  });
  test::run_clean();
}

namespace {

// Two accelerators' DMAs and a host share one DRAM through the router, the
// DRAM's responses delayed on the backward path; each accelerator sits behind
// its peripheral, whose registers the host reaches through the router too.
void dmas_through_router(const std::string& dram_preset) {
  const ArchConfig sa = presets::arch("sa", dram_preset), figlut = presets::arch("figlut", dram_preset);
  constexpr std::uint64_t sa_regs = 0x10000, figlut_regs = 0x11000;
  struct Rig : sc_core::sc_module {
    std::unique_ptr<RouterRig> bus;
    std::unique_ptr<Accelerator> a, b;
    std::unique_ptr<Peripheral> pa, pb;
    sc_core::sc_signal<bool> irq_a{"irq_a"}, irq_b{"irq_b"};
    ProtocolChecker check_a{"check_a"}, check_b{"check_b"};
    Rig(const sc_core::sc_module_name& n, const ArchConfig& ca, const ArchConfig& cb) : sc_module(n) {
      bus = std::make_unique<RouterRig>("bus", ca.dram, sc_time(7, SC_NS));
      a = make_accelerator(ca);
      b = make_accelerator(cb);
      pa = std::make_unique<Peripheral>("pa", *a, peripheral_config(ca));
      pb = std::make_unique<Peripheral>("pb", *b, peripheral_config(cb));
      pa->irq(irq_a);
      pb->irq(irq_b);
      a->memory_socket().bind(check_a.target_socket);
      check_a.initiator_socket.bind(bus->router.target_socket);
      b->memory_socket().bind(check_b.target_socket);
      check_b.initiator_socket.bind(bus->router.target_socket);
      bus->router.initiator_socket.bind(pa->target_socket);
      bus->router.map(2, sa_regs, 0x1000, "pa");
      bus->router.initiator_socket.bind(pb->target_socket);
      bus->router.map(3, figlut_regs, 0x1000, "pb");
    }
  } rig("rig", sa, figlut);
  test::BareInitiator& host = rig.bus->host;
  auto wr = [&](std::uint64_t at, std::uint32_t v) {
    std::uint8_t b[4] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                         static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
    sc_time d = SC_ZERO_TIME;
    CHECK(host.access(tlm::TLM_WRITE_COMMAND, at, b, 4, d) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(d);
  };
  auto rd = [&](std::uint64_t at) {
    std::uint8_t b[4] = {};
    sc_time d = SC_ZERO_TIME;
    CHECK(host.access(tlm::TLM_READ_COMMAND, at, b, 4, d) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(d);
    return word(b);
  };
  test::Stimulus stim("stim", [&] {
    const std::uint64_t rings[2] = {dram_base + 0x1000, dram_base + 0x2000};
    const std::uint64_t regs_at[2] = {sa_regs, figlut_regs};
    Accelerator* accels[2] = {rig.a.get(), rig.b.get()};
    for (int i = 0; i < 2; ++i) {
      GemmDescriptor op;
      op.m = 4;
      op.n = 512;
      op.k = 512;
      const OperandBytes bytes = accels[i]->operand_bytes(op.m, op.n, op.k);
      op.act_addr = dram_base + 0x100000 + i * 0x1000000;
      op.weight_addr = op.act_addr + bytes.activations;
      op.codebook_addr = op.weight_addr + bytes.weights;
      op.out_addr = op.codebook_addr + bytes.codebooks + 64;
      // The descriptor goes into the DRAM through the router, as firmware writes it.
      const DescriptorBytes d = encode_descriptor(op);
      for (std::size_t w = 0; w < d.size(); w += 4) wr(rings[i] + w, word(d.data() + w));
      wr(regs_at[i] + static_cast<std::uint32_t>(Reg::ring_base_lo), static_cast<std::uint32_t>(rings[i]));
      wr(regs_at[i] + static_cast<std::uint32_t>(Reg::ring_base_hi), static_cast<std::uint32_t>(rings[i] >> 32));
      wr(regs_at[i] + static_cast<std::uint32_t>(Reg::ring_size), 4);
      wr(regs_at[i] + static_cast<std::uint32_t>(Reg::ctrl), regs::ctrl_enable.mask() | regs::ctrl_irq_enable.mask());
      wr(regs_at[i] + static_cast<std::uint32_t>(Reg::ring_tail), 1);
    }
    wr(sa_regs + static_cast<std::uint32_t>(Reg::doorbell), 1);
    wr(figlut_regs + static_cast<std::uint32_t>(Reg::doorbell), 1);
    while (!(rig.irq_a.read() && rig.irq_b.read())) sc_core::wait(sc_time(1, sc_core::SC_US));
    for (int i = 0; i < 2; ++i) {
      INFO("accelerator " << i);
      CHECK(rd(regs_at[i] + static_cast<std::uint32_t>(Reg::status)) == regs::status_done.mask());
      CHECK(rd(regs_at[i] + static_cast<std::uint32_t>(Reg::desc_done_lo)) == 1);
      CHECK(rd(regs_at[i] + static_cast<std::uint32_t>(Reg::error_code)) == 0);
    }
  });
  test::run_clean();
  CHECK(rig.bus->delayer->delayed > 100);  // every burst's response came late
}

}  // namespace

TEST_CASE(
    "soc router: two accelerators' DMAs share a cycle-timed DRAM through it, responses delayed on the backward path") {
  dmas_through_router("ddr4-3200");
}

TEST_CASE(
    "soc router: two accelerators' DMAs share the ideal DRAM through it, responses delayed on the backward path") {
  dmas_through_router("ideal");
}

TEST_CASE("soc devices: UART, interrupt controller and system control registers") {
  std::ostringstream out;
  soc::Uart uart("uart", &out, sc_time(10, SC_NS));
  soc::SysCtl::Config sc;
  sc.cpu_mhz = 750;
  sc.table_addr = 0x123456789abcull;
  sc.scratch_addr = 0x80100000ull;
  sc.scratch_bytes = 4096;
  soc::SysCtl sys("sys", sc, sc_time(10, SC_NS));
  soc::InterruptController intc("intc", 2, sc_time(10, SC_NS));
  sc_core::sc_signal<bool> line0("line0"), line1("line1");
  intc.irq_in[0](line0);
  intc.irq_in[1](line1);
  test::BareInitiator to_uart("to_uart"), to_sys("to_sys"), to_intc("to_intc");
  to_uart.socket.bind(uart.target_socket);
  to_sys.socket.bind(sys.target_socket);
  to_intc.socket.bind(intc.target_socket);
  std::uint32_t exit_code = 0xffffffff;
  sys.on_exit([&](std::uint32_t c) { exit_code = c; });

  auto access = [](test::BareInitiator& i, tlm::tlm_command cmd, std::uint32_t off, std::uint32_t& v,
                   unsigned len = 4) {
    std::uint8_t b[8] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                         static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
    sc_time d = SC_ZERO_TIME;
    const tlm::tlm_response_status s = i.access(cmd, off, b, len, d);
    sc_core::wait(d);
    if (cmd == tlm::TLM_READ_COMMAND) v = word(b);
    return s;
  };
  auto rd = [&](test::BareInitiator& i, std::uint32_t off) {
    std::uint32_t v = 0;
    CHECK(access(i, tlm::TLM_READ_COMMAND, off, v) == tlm::TLM_OK_RESPONSE);
    return v;
  };
  auto wr = [&](test::BareInitiator& i, std::uint32_t off, std::uint32_t v) {
    CHECK(access(i, tlm::TLM_WRITE_COMMAND, off, v) == tlm::TLM_OK_RESPONSE);
  };
  test::Stimulus stim("stim", [&] {
    // UART
    for (char c : std::string("ok\n")) wr(to_uart, SOC_UART_TXDATA, static_cast<std::uint8_t>(c));
    CHECK(uart.text() == "ok\n");
    CHECK(out.str() == "ok\n");
    CHECK(rd(to_uart, SOC_UART_STATUS) == 1);
    std::uint32_t v = 0;
    CHECK(access(to_uart, tlm::TLM_READ_COMMAND, SOC_UART_TXDATA, v) == tlm::TLM_COMMAND_ERROR_RESPONSE);
    CHECK(access(to_uart, tlm::TLM_WRITE_COMMAND, SOC_UART_STATUS, v) == tlm::TLM_COMMAND_ERROR_RESPONSE);
    CHECK(access(to_uart, tlm::TLM_READ_COMMAND, 0x8, v) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(access(to_uart, tlm::TLM_READ_COMMAND, 0x2, v) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(access(to_uart, tlm::TLM_WRITE_COMMAND, SOC_UART_TXDATA, v, 1) == tlm::TLM_BURST_ERROR_RESPONSE);
    CHECK(uart.text() == "ok\n");

    // System control
    CHECK(rd(to_sys, SOC_SYSCTL_ID) == SOC_SYSCTL_ID_VALUE);
    CHECK(rd(to_sys, SOC_SYSCTL_CPU_MHZ) == 750);
    CHECK(rd(to_sys, SOC_SYSCTL_TABLE_LO) == 0x56789abcu);
    CHECK(rd(to_sys, SOC_SYSCTL_TABLE_HI) == 0x1234u);
    CHECK(rd(to_sys, SOC_SYSCTL_SCRATCH_LO) == 0x80100000u);
    CHECK(rd(to_sys, SOC_SYSCTL_SCRATCH_HI) == 0);
    CHECK(rd(to_sys, SOC_SYSCTL_SCRATCH_BYTES) == 4096);
    sc_core::wait(sc_time(5, sc_core::SC_US));
    const std::uint64_t now_ns = static_cast<std::uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5);
    const std::uint32_t t = rd(to_sys, SOC_SYSCTL_TIME_NS_LO);
    CHECK(t == now_ns + 10);  // at the access, its latency included
    CHECK(access(to_sys, tlm::TLM_WRITE_COMMAND, SOC_SYSCTL_ID, v) == tlm::TLM_COMMAND_ERROR_RESPONSE);
    CHECK(exit_code == 0xffffffff);
    wr(to_sys, SOC_SYSCTL_EXIT, 7);
    CHECK(exit_code == 7);

    // Interrupt controller
    CHECK(rd(to_intc, SOC_INTC_LINES) == 2);
    CHECK(rd(to_intc, SOC_INTC_PENDING) == 0);
    CHECK(rd(to_intc, SOC_INTC_WAIT) == 0);  // nothing enabled: no wait
    line1.write(true);
    sc_core::wait(SC_ZERO_TIME);
    CHECK(rd(to_intc, SOC_INTC_PENDING) == 2);
    wr(to_intc, SOC_INTC_ENABLE, 0xff);
    CHECK(rd(to_intc, SOC_INTC_ENABLE) == 3);  // only existing lines
    CHECK(rd(to_intc, SOC_INTC_WAIT) == 2);    // already pending: at once
    wr(to_intc, SOC_INTC_ENABLE, 1);
    CHECK(access(to_intc, tlm::TLM_WRITE_COMMAND, SOC_INTC_PENDING, v) == tlm::TLM_COMMAND_ERROR_RESPONSE);
    // WAIT sleeps until line 0 rises, 3 us from now.
    const sc_time t0 = sc_core::sc_time_stamp();
    sc_core::sc_spawn([&] {
      sc_core::wait(sc_time(3, sc_core::SC_US));
      line0.write(true);
    });
    CHECK(rd(to_intc, SOC_INTC_WAIT) == 1);
    CHECK(sc_core::sc_time_stamp() - t0 >= sc_time(3, sc_core::SC_US));
    CHECK(sc_core::sc_time_stamp() - t0 <= sc_time(3.1, sc_core::SC_US));
    CHECK(intc.waits() == 1);
  });
  test::run_clean();
}
