#pragma once
// Runs the kernel and fails the test on any SystemC warning or error.
#include <tlm_utils/simple_initiator_socket.h>
#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>

#include "common/report_handler.hpp"

namespace eva::test {

inline void run_clean() {
  sc_core::sc_start();
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  CHECK(SystemcReports::problems().empty());
}

// A module whose one thread runs `body`: the stimulus of a test.
class Stimulus : public sc_core::sc_module {
 public:
  Stimulus(const sc_core::sc_module_name& name, std::function<void()> body) : sc_module(name), m_body(std::move(body)) {
    SC_HAS_PROCESS(Stimulus);
    SC_THREAD(run);
  }

 private:
  void run() { m_body(); }
  std::function<void()> m_body;
};

// An initiator socket on its own, for driving a target directly.
struct BareInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<BareInitiator> socket{"socket"};
  explicit BareInitiator(const sc_core::sc_module_name& n) : sc_module(n) {}

  // A blocking access of `len` bytes at `addr`; returns the payload's status.
  tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, unsigned len,
                                  sc_core::sc_time& delay, std::uint8_t* byte_enables = nullptr) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(len);
    if (byte_enables) {
      t.set_byte_enable_ptr(byte_enables);
      t.set_byte_enable_length(len);
    }
    socket->b_transport(t, delay);
    return t.get_response_status();
  }
};

}  // namespace eva::test
