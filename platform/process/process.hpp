#pragma once
// Child processes without a shell: started with posix_spawnp, their standard
// output and error sent to files. Used by sweep (one eva-sim per point) and
// by --plot (the plotting script).
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace eva {

// Starts argv[0] (a path, or a name looked up in PATH) with argv. Throws
// std::runtime_error when it cannot be started.
pid_t spawn_process(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path);
// Waits for child `pid` (or, with -1, for any child); returns which one ended
// and its exit status, 128 + the signal's number when a signal ended it.
std::pair<pid_t, int> wait_process(pid_t pid = -1);

}  // namespace eva
