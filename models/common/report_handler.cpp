#include "common/report_handler.hpp"

namespace eva {

namespace {

std::vector<std::string>& recorded() {
  static std::vector<std::string> list;
  return list;
}

void handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  using namespace sc_core;
  if (report.get_severity() == SC_INFO) return;
  recorded().push_back(sc_report_compose_message(report));
  if (report.get_severity() >= SC_ERROR || (actions & SC_THROW)) throw report;
}

}  // namespace

void SystemcReports::install() { sc_core::sc_report_handler::set_handler(handler); }
const std::vector<std::string>& SystemcReports::problems() { return recorded(); }
void SystemcReports::clear() { recorded().clear(); }

}  // namespace eva
