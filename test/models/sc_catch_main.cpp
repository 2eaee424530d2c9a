// sc_main of every simulating test binary: a Catch session with SystemC's
// warnings and errors recorded (see sim_check.hpp), and runs that execute
// nothing failing (catch_warnings.hpp). ctest runs one TEST_CASE
// per process, since SystemC elaborates once per process.
#define CATCH_CONFIG_RUNNER
// GCC 12 with -fsanitize=address at -O2 reports a false maybe-uninitialized
// inside libstdc++'s std::function as instantiated by Catch's option parser.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "catch_warnings.hpp"
#pragma GCC diagnostic pop
#include <systemc>

#include "common/report_handler.hpp"
#include "common/sanitizer_defaults.hpp"

int sc_main(int argc, char* argv[]) {
  eva::SystemcReports::install();
  return eva::test::run_session(argc, argv);
}
