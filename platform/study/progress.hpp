#pragma once
// Progress on stderr for runs longer than a second, unless --quiet: on a
// terminal a bar redrawn at most ten times a second and erased when done; in a
// log (stderr not a terminal) a plain line at every tenth done, so that a batch
// job's log shows it moving. Both give the elapsed time and, once a tenth is
// done, the estimated time left.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace eva {

class Progress {
 public:
  // `quiet_s`: nothing is shown before this much time has passed.
  Progress(std::string what, std::uint64_t total, bool quiet, double quiet_s = 1.0)
      : m_what(std::move(what)),
        m_total(total),
        m_terminal(!quiet && ::isatty(STDERR_FILENO) == 1),
        m_log(!quiet && !m_terminal),
        m_quiet_s(quiet_s) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { finish(); }

  void step(std::uint64_t by = 1) {
    m_done += by;
    if (!m_terminal && !m_log) return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const double f = m_total ? static_cast<double>(m_done) / static_cast<double>(m_total) : 0.0;
    if (elapsed < m_quiet_s) return;
    if (m_log) {
      const auto tenth = static_cast<unsigned>(f * 10.0);
      if (tenth <= m_tenths) return;
      m_tenths = tenth;
      std::fprintf(stderr, "%s: %llu of %llu (%.0f%%), %.0f s%s\n", m_what.c_str(),
                   static_cast<unsigned long long>(m_done), static_cast<unsigned long long>(m_total), 100.0 * f,
                   elapsed, eta(f, elapsed).c_str());
      std::fflush(stderr);
      return;
    }
    if (now - m_last < std::chrono::milliseconds(100)) return;
    m_last = now;
    const int width = 30, filled = static_cast<int>(f * width + 0.5);
    std::fprintf(stderr, "\r%s [%.*s%*s] %3.0f%%  %.0f s%s   ", m_what.c_str(), filled,
                 "##############################", width - filled, "", 100.0 * f, elapsed, eta(f, elapsed).c_str());
    std::fflush(stderr);
    m_drawn = true;
  }
  void finish() {
    if (!m_drawn) return;
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(m_what.size()) + 70, "");
    std::fflush(stderr);
    m_drawn = false;
  }

 private:
  // ", about N s left", once a tenth is done (earlier guesses mislead).
  static std::string eta(double fraction, double elapsed) {
    if (fraction < 0.1 || fraction >= 1.0) return "";
    char text[48];
    std::snprintf(text, sizeof text, ", about %.0f s left", elapsed * (1.0 - fraction) / fraction);
    return text;
  }

  std::string m_what;
  std::uint64_t m_total, m_done = 0;
  bool m_terminal, m_log;
  double m_quiet_s;
  unsigned m_tenths = 0;  // the last tenth a log line was written at
  bool m_drawn = false;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now(), m_last = m_start;
};

}  // namespace eva
