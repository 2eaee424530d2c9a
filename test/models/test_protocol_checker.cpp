// The base-protocol checker (models/checker): each rule family against a
// deliberately broken target or initiator, and a clean DMA <-> DRAM run.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>

#include "arch/accelerators.hpp"
#include "checker/protocol_checker.hpp"
#include "dma/dma.hpp"
#include "dram/ideal_dram.hpp"
#include "sim_check.hpp"

using namespace eva;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

// A target whose every answer the test writes.
struct ScriptedTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<ScriptedTarget> socket{"socket"};
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&)> fw;
  std::function<void(tlm::tlm_generic_payload&, sc_time&)> blocking;
  std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)> dmi;

  explicit ScriptedTarget(const sc_core::sc_module_name& n) : sc_module(n) {
    socket.register_nb_transport_fw(this, &ScriptedTarget::on_fw);
    socket.register_b_transport(this, &ScriptedTarget::on_b);
    socket.register_get_direct_mem_ptr(this, &ScriptedTarget::on_dmi);
  }
  tlm::tlm_sync_enum on_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& p, sc_time& d) { return fw(t, p, d); }
  void on_b(tlm::tlm_generic_payload& t, sc_time& d) { blocking(t, d); }
  bool on_dmi(tlm::tlm_generic_payload& t, tlm::tlm_dmi& d) { return dmi(t, d); }
  // Sends a phase on the backward path.
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& t, tlm::tlm_phase p, sc_time d = SC_ZERO_TIME) {
    return socket->nb_transport_bw(t, p, d);
  }
};

// An initiator that completes every response it gets.
struct ScriptedInitiator : sc_core::sc_module, tlm::tlm_mm_interface {
  tlm_utils::simple_initiator_socket<ScriptedInitiator> socket{"socket"};
  std::vector<std::string> phases_seen;
  bool accept_responses = false;  // answer BEGIN_RESP with TLM_ACCEPTED (END_RESP later) instead of completing

  explicit ScriptedInitiator(const sc_core::sc_module_name& n) : sc_module(n) {
    socket.register_nb_transport_bw(this, &ScriptedInitiator::on_bw);
  }
  void free(tlm::tlm_generic_payload*) override {}
  tlm::tlm_sync_enum on_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_time&) {
    phases_seen.push_back(p.get_name());
    return p == tlm::BEGIN_RESP && !accept_responses ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  }
  // A well-formed read of 4 bytes at `addr` with this initiator as its memory manager.
  void prepare(tlm::tlm_generic_payload& t, std::uint64_t addr, unsigned char* data, bool mm = true) {
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (mm) {
      t.set_mm(this);
      t.acquire();
    }
  }
  tlm::tlm_sync_enum begin(tlm::tlm_generic_payload& t, sc_time d = SC_ZERO_TIME) {
    tlm::tlm_phase p = tlm::BEGIN_REQ;
    return socket->nb_transport_fw(t, p, d);
  }
};

// Initiator -> checker -> target, with the checker's violations collected.
struct Bench {
  ScriptedInitiator init{"init"};
  ProtocolChecker checker{"checker"};
  ScriptedTarget target{"target"};
  std::vector<ProtocolChecker::Violation> found;
  Bench() {
    init.socket.bind(checker.target_socket);
    checker.initiator_socket.bind(target.socket);
    checker.on_violation([this](const ProtocolChecker::Violation& v) { found.push_back(v); });
    // By default a correct target: END_REQ at once, then BEGIN_RESP at once.
    target.fw = [this](tlm::tlm_generic_payload& t, tlm::tlm_phase& p, sc_time&) {
      if (p == tlm::END_RESP) return tlm::TLM_COMPLETED;
      t.set_response_status(tlm::TLM_OK_RESPONSE);
      p = tlm::BEGIN_RESP;
      return tlm::TLM_UPDATED;
    };
    target.blocking = [](tlm::tlm_generic_payload& t, sc_time&) { t.set_response_status(tlm::TLM_OK_RESPONSE); };
  }
  bool reported(const std::string& rule) const {
    return std::any_of(found.begin(), found.end(), [&](const auto& v) { return v.rule == rule; });
  }
  std::string all() const {
    std::string s;
    for (const auto& v : found) s += v.message + "\n";
    return s;
  }
};

}  // namespace

TEST_CASE("checker: a correct target passes, and the violation names the rule, the checker, the address and phase") {
  Bench b;
  unsigned char data[4];
  tlm::tlm_generic_payload t;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x40, data);
    tlm::tlm_phase p = tlm::BEGIN_REQ;
    sc_time d = SC_ZERO_TIME;
    REQUIRE(b.init.socket->nb_transport_fw(t, p, d) == tlm::TLM_UPDATED);
    p = tlm::END_RESP;
    b.init.socket->nb_transport_fw(t, p, d);
    t.release();
    INFO(b.all());
    CHECK(b.found.empty());
    // The same transaction ended twice.
    b.init.socket->nb_transport_fw(t, p, d);
  });
  test::run_clean();
  CHECK(b.checker.transactions_checked() == 1);
  REQUIRE(b.found.size() == 1);
  CHECK(b.found[0].rule == "phase order");
  CHECK(b.found[0].message.find("checker") != std::string::npos);
  CHECK(b.found[0].message.find("0x40") != std::string::npos);
  CHECK(b.found[0].message.find("END_RESP") != std::string::npos);
  CHECK(b.checker.violations() == 1);
}

TEST_CASE("checker: a target that sends BEGIN_RESP twice breaks the phase order") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_time&) {
    if (p == tlm::END_RESP) return tlm::TLM_COMPLETED;
    return tlm::TLM_ACCEPTED;
  };
  b.init.accept_responses = true;
  unsigned char data[4];
  tlm::tlm_generic_payload t;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x80, data);
    b.init.begin(t);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    b.target.bw(t, tlm::BEGIN_RESP);
    b.target.bw(t, tlm::BEGIN_RESP);
  });
  test::run_clean();
  INFO(b.all());
  CHECK(b.reported("phase order"));
}

TEST_CASE("checker: a target that changes the address is reported") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload& t, tlm::tlm_phase&, sc_time&) {
    t.set_address(t.get_address() + 4);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  b.target.blocking = [](tlm::tlm_generic_payload& t, sc_time&) {
    t.set_streaming_width(1);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  unsigned char data[4];
  tlm::tlm_generic_payload t, u;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x100, data);
    b.init.begin(t);
    b.init.prepare(u, 0x200, data, false);
    sc_time d = SC_ZERO_TIME;
    b.init.socket->b_transport(u, d);
  });
  test::run_clean();
  INFO(b.all());
  CHECK(b.reported("attribute modified"));
  REQUIRE(b.found.size() == 2);
  CHECK(b.found[0].message.find("address") != std::string::npos);
  CHECK(b.found[1].message.find("streaming width") != std::string::npos);
}

TEST_CASE("checker: a target that never sets the response status is reported, on either transport") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_time&) {
    if (p == tlm::END_RESP) return tlm::TLM_COMPLETED;
    p = tlm::BEGIN_RESP;
    return tlm::TLM_UPDATED;
  };
  b.target.blocking = [](tlm::tlm_generic_payload&, sc_time&) {};
  unsigned char data[4];
  tlm::tlm_generic_payload t, u;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x300, data);
    tlm::tlm_phase p = tlm::BEGIN_REQ;
    sc_time d = SC_ZERO_TIME;
    b.init.socket->nb_transport_fw(t, p, d);
    p = tlm::END_RESP;
    b.init.socket->nb_transport_fw(t, p, d);
    b.init.prepare(u, 0x304, data, false);
    b.init.socket->b_transport(u, d);
  });
  test::run_clean();
  INFO(b.all());
  REQUIRE(b.found.size() == 2);
  CHECK(b.found[0].rule == "response status");
  CHECK(b.found[1].rule == "response status");
}

TEST_CASE("checker: a DMI grant that does not hold the address, or lacks the access asked for, is reported") {
  Bench b;
  unsigned char page[4096];
  b.target.dmi = [&](tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(page);
    dmi.set_start_address(0x1000);
    dmi.set_end_address(0x1fff);
    dmi.allow_read();
    return true;
  };
  tlm::tlm_generic_payload t;
  std::size_t outside = 0;
  test::Stimulus s("s", [&] {
    tlm::tlm_dmi dmi;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(0x40);  // outside the grant
    b.init.socket->get_direct_mem_ptr(t, dmi);
    outside = b.found.size();
    t.set_address(0x1040);  // inside, but a write on a read-only grant
    t.set_command(tlm::TLM_WRITE_COMMAND);
    b.init.socket->get_direct_mem_ptr(t, dmi);
  });
  test::run_clean();
  INFO(b.all());
  CHECK(outside == 1);
  REQUIRE(b.found.size() == 2);
  CHECK(b.found[0].rule == "DMI");
  CHECK(b.found[0].message.find("does not hold") != std::string::npos);
  CHECK(b.found[1].message.find("does not allow writes") != std::string::npos);
  CHECK(b.checker.dmi_checked() == 2);
}

TEST_CASE("checker: two BEGIN_REQ without END_REQ break the request exclusion") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; };
  unsigned char data[4];
  tlm::tlm_generic_payload t, u;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x400, data);
    b.init.prepare(u, 0x404, data);
    b.init.begin(t);
    b.init.begin(u);  // t still awaits END_REQ
  });
  test::run_clean();
  INFO(b.all());
  REQUIRE(b.found.size() == 1);
  CHECK(b.found[0].rule == "request exclusion");
  CHECK(b.checker.in_flight() == 2);
}

TEST_CASE("checker: a second BEGIN_RESP before END_RESP of the first breaks the response exclusion") {
  Bench b;
  b.init.accept_responses = true;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_time&) {
    p = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  unsigned char data[4];
  tlm::tlm_generic_payload t, u;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x500, data);
    b.init.prepare(u, 0x504, data);
    b.init.begin(t);
    b.init.begin(u);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    u.set_response_status(tlm::TLM_OK_RESPONSE);
    b.target.bw(t, tlm::BEGIN_RESP);
    b.target.bw(u, tlm::BEGIN_RESP);  // t awaits END_RESP
  });
  test::run_clean();
  INFO(b.all());
  REQUIRE(b.found.size() == 1);
  CHECK(b.found[0].rule == "response exclusion");
}

TEST_CASE("checker: a phase annotated before the transaction's previous one breaks the timing") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_time& d) {
    p = tlm::END_REQ;
    d = sc_time(10, SC_NS);
    return tlm::TLM_UPDATED;
  };
  unsigned char data[4];
  tlm::tlm_generic_payload t;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x600, data);
    b.init.begin(t);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    b.target.bw(t, tlm::BEGIN_RESP);  // now, before the END_REQ 10 ns ahead
  });
  test::run_clean();
  INFO(b.all());
  REQUIRE(b.found.size() == 1);
  CHECK(b.found[0].rule == "timing");
}

TEST_CASE("checker: an nb_transport transaction without a memory manager, or released in flight, is reported") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_time&) {
    p = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  unsigned char data[4];
  tlm::tlm_generic_payload t, u;
  test::Stimulus s("s", [&] {
    b.init.prepare(t, 0x700, data, false);
    b.init.begin(t);
    b.init.prepare(u, 0x704, data);
    b.init.begin(u);
    u.release();  // the initiator lets go while the target owns it
    u.set_response_status(tlm::TLM_OK_RESPONSE);
    b.target.bw(u, tlm::BEGIN_RESP);
  });
  test::run_clean();
  INFO(b.all());
  REQUIRE(b.found.size() == 2);
  CHECK(b.found[0].rule == "memory manager");
  CHECK(b.found[1].rule == "memory manager");
  CHECK(b.found[1].message.find("reference count 0") != std::string::npos);
}

TEST_CASE("checker: zero lengths, empty byte enables, a reused or mixed transaction, a preset status are reported") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; };
  unsigned char data[4], be[4] = {0xff, 0xff, 0xff, 0xff};
  tlm::tlm_generic_payload t, u;
  std::vector<std::string> rules;
  test::Stimulus s("s", [&] {
    sc_time d = SC_ZERO_TIME;
    b.init.prepare(u, 0x800, data, false);
    u.set_streaming_width(0);
    b.init.socket->b_transport(u, d);
    b.init.prepare(u, 0x800, data, false);
    u.set_data_length(0);
    b.init.socket->b_transport(u, d);
    b.init.prepare(u, 0x800, data, false);
    u.set_byte_enable_ptr(be);
    u.set_byte_enable_length(0);
    b.init.socket->b_transport(u, d);
    b.init.prepare(u, 0x800, data, false);
    u.set_byte_enable_ptr(nullptr);
    u.set_response_status(tlm::TLM_OK_RESPONSE);
    b.init.socket->b_transport(u, d);
    b.init.prepare(t, 0x900, data);
    b.init.begin(t);
    b.init.socket->b_transport(t, d);  // in flight on nb_transport
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    b.init.begin(t);  // again, while in flight
  });
  test::run_clean();
  INFO(b.all());
  for (const auto& v : b.found) rules.push_back(v.rule);
  CHECK(rules == std::vector<std::string>{"streaming width", "data length", "byte enables", "response status",
                                          "b_transport and nb_transport mixed", "ownership"});
}

TEST_CASE("checker: a clean DMA <-> DRAM run checks every burst and finds nothing") {
  DramConfig dc;
  dc.bandwidth_gbps = 64.0;
  dc.latency_ns = 50.0;
  IdealDram dram("dram", dc);
  DmaConfig mc;
  mc.burst_bytes = 64;
  mc.max_outstanding = 8;
  Dma dma("dma", mc);
  ProtocolChecker checker("checker");
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(dram.target_socket);
  std::vector<std::uint8_t> tile(4096), back(4096);
  for (std::size_t i = 0; i < tile.size(); ++i) tile[i] = static_cast<std::uint8_t>(i * 7);
  test::Stimulus s("s", [&] {
    dma.write(0x1000, tile.size(), tile.data());
    dma.read(0x1000, back.size(), back.data());
    dma.write(0x8000, 1000, nullptr);  // timing-only: every byte disabled
    dma.read_2d(0x1000, 100, 8, 300, nullptr);
  });
  test::run_clean();  // the default handler reports with SC_REPORT_ERROR, which fails this
  CHECK(back == tile);
  CHECK(checker.violations() == 0);
  CHECK(checker.transactions_checked() == 64 + 64 + 16 + 16);
  CHECK(checker.in_flight() == 0);
}
