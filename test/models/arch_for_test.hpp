#pragma once
// A built-in architecture with --set overrides, as the tests load them.
#include <string>
#include <vector>

#include "config/load_arch.hpp"

namespace eva::test {

inline ArchConfig arch(const std::string& name, std::vector<std::string> sets = {}) {
  ArchRequest r;
  r.arch = name;
  r.sets = std::move(sets);
  return load_arch(r);
}

}  // namespace eva::test
