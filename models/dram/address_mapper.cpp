#include "dram/address_mapper.hpp"

#include <sstream>

namespace eva {

namespace {

unsigned log2u(std::uint64_t v) {
  unsigned b = 0;
  while ((1ull << b) < v) ++b;
  return b;
}

}  // namespace

bool AddressMapper::parse(const std::string& order, std::array<Field, fields>& out) {
  static const char* names[fields] = {"ch", "ra", "bg", "ba", "ro", "co"};
  std::stringstream in(order);
  std::string item;
  std::array<bool, fields> seen{};
  std::size_t n = 0;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    int found = -1;
    for (int f = 0; f < fields; ++f)
      if (item == names[f]) found = f;
    if (found < 0 || seen[found] || n >= fields) return false;
    seen[found] = true;
    out[n++] = static_cast<Field>(found);
  }
  return n == fields;
}

AddressMapper::AddressMapper(const std::string& order, std::uint64_t burst_bytes,
                             std::array<std::uint64_t, fields> counts) {
  std::array<Field, fields> msb_first{};
  parse(order, msb_first);
  m_burst_shift = log2u(burst_bytes);
  unsigned shift = m_burst_shift;  // the burst offset sits below every field
  for (int i = fields - 1; i >= 0; --i) {
    const Field f = msb_first[static_cast<std::size_t>(i)];
    const unsigned bits = log2u(counts[f]);
    m_shift[f] = shift;
    m_mask[f] = (1ull << bits) - 1;
    shift += bits;
  }
}

AddressMapper::AddressMapper(const DramConfig& c)
    : AddressMapper(c.address_mapping, c.burst_bytes(),
                    {static_cast<std::uint64_t>(c.channels), static_cast<std::uint64_t>(c.ranks),
                     static_cast<std::uint64_t>(c.bank_groups), static_cast<std::uint64_t>(c.banks_per_group),
                     static_cast<std::uint64_t>(c.rows), c.row_bytes() / c.burst_bytes()}) {}

}  // namespace eva
