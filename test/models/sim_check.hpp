#pragma once
// Runs the kernel and fails the test on any SystemC warning or error.
#include <catch2/catch.hpp>
#include <systemc>

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

}  // namespace eva::test
