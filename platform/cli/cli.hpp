#pragma once
// The eva-sim command line (BRIEF section 7). Returns the process exit code:
// 0 success, 2 bad input or usage, 1 internal error.
namespace eva {

int cli_main(int argc, char** argv);

}  // namespace eva
