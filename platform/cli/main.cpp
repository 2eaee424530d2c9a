// eva-sim's entry point. SystemC's banner would be the only line on stderr of
// a successful run; the environment switch must be set before the kernel
// starts, hence our own main() around sc_elab_and_sim().
#include <cstdlib>

#include <systemc>

#include "cli/cli.hpp"
#include "common/sanitizer_defaults.hpp"

int sc_main(int argc, char* argv[]) { return eva::cli_main(argc, argv); }

int main(int argc, char* argv[]) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
