// sc_main of every simulating test binary: a Catch session with SystemC's
// warnings and errors recorded (see sim_check.hpp). ctest runs one TEST_CASE
// per process, since SystemC elaborates once per process.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

#include "common/report_handler.hpp"

int sc_main(int argc, char* argv[]) {
  eva::SystemcReports::install();
  return Catch::Session().run(argc, argv);
}
