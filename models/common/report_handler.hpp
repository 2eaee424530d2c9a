#pragma once
// Turns SystemC warnings and errors into failures instead of lines on stdout:
// tests treat any of them as a failed check, eva-sim as an internal error.
#include <string>
#include <vector>

#include <systemc>

namespace eva {

class SystemcReports {
 public:
  // Installs the handler; infos are dropped, warnings recorded, errors and
  // fatals recorded and thrown (as SystemC's own handler would).
  static void install();
  static const std::vector<std::string>& problems();
  static void clear();
};

}  // namespace eva
