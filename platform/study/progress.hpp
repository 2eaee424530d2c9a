#pragma once
// A progress bar on stderr for runs longer than a second: shown only when
// stderr is a terminal and --quiet is off, redrawn at most ten times a second,
// erased when done.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace eva {

class Progress {
 public:
  Progress(std::string what, std::uint64_t total, bool quiet)
      : m_what(std::move(what)), m_total(total), m_enabled(!quiet && ::isatty(STDERR_FILENO) == 1) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { finish(); }

  void step(std::uint64_t by = 1) {
    m_done += by;
    if (!m_enabled) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_start < std::chrono::seconds(1) || now - m_last < std::chrono::milliseconds(100)) return;
    m_last = now;
    const double f = m_total ? static_cast<double>(m_done) / static_cast<double>(m_total) : 0.0;
    const int width = 30, filled = static_cast<int>(f * width + 0.5);
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    std::fprintf(stderr, "\r%s [%.*s%*s] %3.0f%%  %.0f s", m_what.c_str(), filled, "##############################",
                 width - filled, "", 100.0 * f, elapsed);
    std::fflush(stderr);
    m_drawn = true;
  }
  void finish() {
    if (!m_drawn) return;
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(m_what.size()) + 50, "");
    std::fflush(stderr);
    m_drawn = false;
  }

 private:
  std::string m_what;
  std::uint64_t m_total, m_done = 0;
  bool m_enabled, m_drawn = false;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now(), m_last = m_start;
};

}  // namespace eva
