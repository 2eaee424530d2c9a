#pragma once
// Kernel time values and picoseconds, converted inline as the SystemC 2.3
// kernel converts them out of line: `sc_time::to_seconds() * 1e12` and
// `sc_time(ps, SC_PS)`, for loops that convert once per burst. The forms are
// the kernel's own arithmetic at its default resolution of 1 ps (the value
// times the resolution in fs times 1e-15; ps times 1 plus one half,
// truncated). `exact()` compares them with the kernel's functions on a sample
// once, and a caller takes the kernel's functions when it says no (another
// resolution, or a kernel that computes differently): never a different
// result, only a slower one.
#include <cstdint>

#include <systemc>

namespace eva {

class KernelTime {
 public:
  using Value = sc_core::sc_time::value_type;

  // to_seconds(v) * 1e12, inline.
  static double to_ps(Value v) { return static_cast<double>(v) * 1000.0 * 1e-15 * 1e12; }
  // sc_time(ps, SC_PS).value(), inline (ps >= 0).
  // (The kernel returns 0 for 0 without rounding; 0 + 0.5 truncates to 0 too.)
  static Value from_ps(double ps) {
    const double rounded = ps + 0.5;
    return static_cast<Value>(static_cast<std::int64_t>(rounded));
  }
  // Whether the two forms equal the kernel's functions (checked once).
  static bool exact() {
    static const bool same = check();
    return same;
  }

 private:
  static bool check() {
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) return false;
    const Value values[] = {0, 1, 3, 999, 1000, 1250, 123456789, 987654321987ULL, 4503599627370495ULL};
    for (const Value v : values) {
      const double ps = sc_core::sc_time::from_value(v).to_seconds() * 1e12;
      if (ps != to_ps(v)) return false;
      for (const double x : {ps, ps + 0.25, ps + 0.5, ps + 0.499999, ps * 1.0000001})
        if (sc_core::sc_time(x, sc_core::SC_PS).value() != from_ps(x)) return false;
    }
    return true;
  }
};

}  // namespace eva
