// Progress in a log: with stderr not a terminal, a plain line at every tenth
// done, with the estimated time left; nothing with --quiet.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "study/progress.hpp"

namespace {

// What `body` writes to stderr, through a temporary file.
template <class F>
std::string stderr_of(F body) {
  const std::string path = (std::filesystem::temp_directory_path() / "eva-progress-XXXXXX").string();
  std::string name = path;
  const int fd = ::mkstemp(name.data());
  REQUIRE(fd >= 0);
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fd, STDERR_FILENO);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fd);
  std::ifstream in(name);
  std::ostringstream text;
  text << in.rdbuf();
  std::remove(name.c_str());
  return text.str();
}

}  // namespace

TEST_CASE("Progress in a log: a line at every tenth with the time left, and nothing when quiet") {
  const std::string log = stderr_of([] {
    eva::Progress p("sweep", 40, false, 0.0);
    for (int i = 0; i < 40; ++i) p.step();
  });
  CHECK(std::count(log.begin(), log.end(), '\n') == 10);
  CHECK(log.find("sweep: 4 of 40 (10%), 0 s, about 0 s left\n") != std::string::npos);
  CHECK(log.find("sweep: 40 of 40 (100%), 0 s\n") != std::string::npos);
  CHECK(log.find("sweep: 5 of 40") == std::string::npos);
  CHECK(log.find('\r') == std::string::npos);  // no bar in a log
  // Nothing in the first second (the default): short runs stay silent.
  const std::string short_run = stderr_of([] {
    eva::Progress p("run", 10, false);
    for (int i = 0; i < 10; ++i) p.step();
  });
  CHECK(short_run.empty());
  const std::string quiet = stderr_of([] {
    eva::Progress p("sweep", 4, true, 0.0);
    for (int i = 0; i < 4; ++i) p.step();
  });
  CHECK(quiet.empty());
}
