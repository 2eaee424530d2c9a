#pragma once
// Every test binary's Catch session fails a run that executes no test case
// and a test case with no assertion, whatever the command line says: a ctest
// entry that runs nothing must not pass. (Catch2 v2.13 accepts one --warn on
// its command line, so both are set here rather than passed by ctest.)
#include <catch2/catch.hpp>

namespace eva::test {

inline int run_session(int argc, char* argv[]) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  auto& data = session.configData();
  data.warnings =
      static_cast<Catch::WarnAbout::What>(data.warnings | Catch::WarnAbout::NoTests | Catch::WarnAbout::NoAssertions);
  return session.run();
}

}  // namespace eva::test
