#pragma once
// A clock domain: converts cycle counts of a unit to SystemC time and back.
// Times are computed from absolute cycle numbers, so rounding to the kernel's
// time resolution never accumulates over a long run.
#include <cmath>
#include <cstdint>

#include <systemc>

namespace eva {

class ClockDomain {
 public:
  explicit ClockDomain(double mhz) : m_period_ps(1e6 / mhz) {}

  // Time of the start of cycle `n`.
  sc_core::sc_time at(std::uint64_t n) const { return ps(static_cast<double>(n) * m_period_ps); }
  // Length of `n` cycles.
  sc_core::sc_time cycles(std::uint64_t n) const { return at(n); }
  // Time `t` in cycles, rounded to the nearest cycle (reports use this).
  std::uint64_t to_cycles(const sc_core::sc_time& t) const {
    return static_cast<std::uint64_t>(std::llround(t.to_seconds() * 1e12 / m_period_ps));
  }

 private:
  static sc_core::sc_time ps(double v) { return sc_core::sc_time(v, sc_core::SC_PS); }
  double m_period_ps;
};

}  // namespace eva
