#pragma once
// Plain config structs describe their fields once, in a visit() member: each
// field's name, its allowed range and a line of documentation. The same
// description reads, checks and prints them (the YAML reader and printer live
// in platform/config/param_set.hpp) and compares them; nothing here parses
// text, so the models need no YAML library.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

// Describes what a value must satisfy; used both to check and to explain.
template <class T>
struct Range {
  T lo = std::numeric_limits<T>::lowest();
  T hi = std::numeric_limits<T>::max();
  bool lo_open = false;  // lo itself excluded

  bool ok(T v) const { return (lo_open ? v > lo : v >= lo) && v <= hi; }
  std::string describe() const {
    std::string what = std::is_integral_v<T> ? "an integer" : "a number";
    if (lo != std::numeric_limits<T>::lowest()) what += fmt::format(" {} {}", lo_open ? ">" : ">=", lo);
    if (hi != std::numeric_limits<T>::max()) what += fmt::format(" and <= {}", hi);
    return what;
  }
};
template <class T>
Range<T> at_least(T lo) {
  return Range<T>{lo, std::numeric_limits<T>::max(), false};
}
template <class T>
Range<T> between(T lo, T hi) {
  return Range<T>{lo, hi, false};
}
inline Range<double> positive_up_to(double hi) { return Range<double>{0.0, hi, true}; }

// Enumerations name their values for YAML: specialise EnumNames<E>::list().
template <class E>
struct EnumNames;

template <class E>
std::string_view enum_name(E value) {
  for (const auto& [name, v] : EnumNames<E>::list())
    if (v == value) return name;
  return "?";
}
template <class E>
std::string enum_choices() {
  std::string out;
  for (const auto& [name, v] : EnumNames<E>::list()) out += (out.empty() ? "" : "|") + std::string(name);
  return out;
}
template <class E>
std::optional<E> enum_parse(std::string_view text) {
  for (const auto& [name, v] : EnumNames<E>::list())
    if (name == text) return v;
  return std::nullopt;
}

}  // namespace eva
