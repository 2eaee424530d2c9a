// Progress in a log: with stderr not a terminal, a plain line every interval,
// with the estimated time left once a tenth is done; nothing with --quiet.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

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

TEST_CASE("Progress in a log: a line per interval with the time left, and nothing when quiet") {
  const std::string log = stderr_of([] {
    eva::Progress p("sweep", 4, false, 0.02);
    for (int i = 0; i < 4; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      p.step();
    }
  });
  CHECK(log.find("sweep: 1 of 4 (25%), 0 s, about 0 s left\n") != std::string::npos);
  CHECK(log.find("sweep: 4 of 4 (100%)") != std::string::npos);
  CHECK(log.find('\r') == std::string::npos);  // no bar in a log
  const std::string quiet = stderr_of([] {
    eva::Progress p("sweep", 4, true, 0.0);
    for (int i = 0; i < 4; ++i) p.step();
  });
  CHECK(quiet.empty());
}
