// main of the kernel-free and end-to-end test binaries (see catch_warnings.hpp).
#define CATCH_CONFIG_RUNNER
#include "catch_warnings.hpp"

int main(int argc, char* argv[]) { return eva::test::run_session(argc, argv); }
