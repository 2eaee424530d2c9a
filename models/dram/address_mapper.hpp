#pragma once
// Splits a byte address into channel, rank, bank group, bank, row and column
// (burst index within the row) by a configurable bit order, most significant
// field first: "ro,ra,ba,co,bg,ch" puts consecutive bursts on different
// channels, then bank groups (so streams use tCCD_S), then along a row.
#include <array>
#include <cstdint>
#include <string>

#include "dram/dram_config.hpp"

namespace eva {

struct DramAddress {
  std::uint32_t channel = 0, rank = 0, bank_group = 0, bank = 0, row = 0, column = 0;
};

class AddressMapper {
 public:
  enum Field { ch, ra, bg, ba, ro, co, fields };

  // Counts must be powers of two (checked by the config's validation).
  AddressMapper(const std::string& order, std::uint64_t burst_bytes, std::array<std::uint64_t, fields> counts);
  // The mapping of a timed DRAM configuration.
  explicit AddressMapper(const DramConfig& c);

  DramAddress decode(std::uint64_t addr) const {
    DramAddress a;
    decode(addr, a);
    return a;
  }
  // The same, into `out` field by field: a whole copy would be read back in
  // wider pieces than it was stored in (no store-to-load forwarding).
  void decode(std::uint64_t addr, DramAddress& out) const {
    // Each field's shift and mask are fixed by the order: no loop per address.
    const auto at = [&](Field f) { return static_cast<std::uint32_t>((addr >> m_shift[f]) & m_mask[f]); };
    out.channel = at(ch);
    out.rank = at(ra);
    out.bank_group = at(bg);
    out.bank = at(ba);
    out.row = at(ro);
    out.column = at(co);
  }

  // True when the channel is the lowest field: burst b goes to channel
  // b mod channels, and every other field comes from b / channels.
  bool channel_lowest() const { return m_shift[ch] == m_burst_shift; }
  // The channel field's width in bits.
  unsigned channel_bits() const { return static_cast<unsigned>(__builtin_popcountll(m_mask[ch])); }

  // Parses an order string into fields MSB first; false if it is not a
  // permutation of ro, ra, bg, ba, co, ch.
  static bool parse(const std::string& order, std::array<Field, fields>& out);

 private:
  std::array<unsigned, fields> m_shift{};      // per field: its lowest bit in the byte address
  std::array<std::uint64_t, fields> m_mask{};  // and its mask once shifted down
  unsigned m_burst_shift = 0;                  // the burst offset's bits
};

}  // namespace eva
