#pragma once
// Places operands in the DRAM address space, one after the other, page
// aligned. Functional runs need every operand to fit; timing runs may wrap
// around (their addresses only steer the DRAM's bank and row mapping), so a
// 70B model's weights run on a smaller device.
#include <cstdint>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

class AddressAllocator {
 public:
  explicit AddressAllocator(double capacity, bool wrap = false) : m_capacity(capacity), m_wrap(wrap) {}
  std::uint64_t take(std::uint64_t bytes, const char* what) {
    const std::uint64_t size = (bytes + 4095) / 4096 * 4096;
    if (m_wrap && static_cast<double>(m_next + size) > m_capacity) m_next = 0;
    const std::uint64_t at = m_next;
    m_next += size;
    if (static_cast<double>(m_next) > m_capacity)
      throw InputError(
          fmt::format("{}: operands need {:.2f} GiB, more than the DRAM holds ({:.2f} GiB: dram.capacity_gib, or the "
                      "timed device's organisation)",
                      what, static_cast<double>(m_next) / (1 << 30), m_capacity / (1 << 30)));
    return at;
  }

 private:
  double m_capacity;
  bool m_wrap;
  std::uint64_t m_next = 0;
};

}  // namespace eva
