#pragma once
// A built-in architecture with --set overrides, as the tests load them, with
// the base-protocol checker on.
#include <string>
#include <vector>

#include "config/load_arch.hpp"

namespace eva::test {

// Every simulating test runs with the base-protocol checker on (models/checker).
inline ArchConfig checked(ArchConfig c) {
  c.sim.check_protocol = true;
  return c;
}

inline ArchConfig arch(const std::string& name, std::vector<std::string> sets = {}) {
  ArchRequest r;
  r.arch = name;
  r.sets = std::move(sets);
  return checked(load_arch(r));
}

}  // namespace eva::test
