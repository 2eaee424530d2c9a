#pragma once
// Bank conflicts of a multi-lane access to a banked SRAM, counted exactly from
// the addresses. Word w = addr / bank_width lives in bank w mod banks, at row
// w / banks. In one access every lane presents one address; each bank serves
// `ports` distinct words per cycle; lanes reading the same word share it
// (broadcast); lanes writing the same word are served one after another. The
// access takes max over banks of ceil(words / ports) cycles.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace eva {

class BankModel {
 public:
  BankModel(std::uint64_t banks, std::uint64_t bank_width, std::uint64_t ports)
      : m_banks(banks), m_width(bank_width), m_ports(ports), m_accesses(banks, 0), m_conflicts(banks, 0) {}

  // Cycles one access of all `lanes` takes (0 for no lanes). `repeat`: the
  // same access that many times over (counted as such, evaluated once).
  std::uint64_t access(const std::vector<std::uint64_t>& lanes, bool write, std::uint64_t repeat = 1) {
    if (lanes.empty()) return 0;
    if (distinct_banks(lanes)) {  // one word in each bank reached: one cycle, no conflict
      for (std::uint64_t a : lanes) m_accesses[(a / m_width) % m_banks] += repeat;
      m_cycles += repeat;
      m_words += lanes.size() * repeat;
      return 1;
    }
    m_scratch.clear();
    for (std::uint64_t a : lanes) m_scratch.push_back(a / m_width);
    std::sort(m_scratch.begin(), m_scratch.end(), [this](std::uint64_t x, std::uint64_t y) {
      return x % m_banks != y % m_banks ? x % m_banks < y % m_banks : x < y;
    });
    if (!write) m_scratch.erase(std::unique(m_scratch.begin(), m_scratch.end()), m_scratch.end());
    std::uint64_t cycles = 0;
    for (std::size_t i = 0; i < m_scratch.size();) {
      const std::uint64_t bank = m_scratch[i] % m_banks;
      std::size_t j = i;
      while (j < m_scratch.size() && m_scratch[j] % m_banks == bank) ++j;
      const std::uint64_t words = j - i;
      const std::uint64_t need = (words + m_ports - 1) / m_ports;
      m_accesses[bank] += words * repeat;
      m_conflicts[bank] += (need - 1) * repeat;
      cycles = std::max(cycles, need);
      i = j;
    }
    m_cycles += cycles * repeat;
    m_conflict_cycles += (cycles - 1) * repeat;
    m_words += m_scratch.size() * repeat;
    return cycles;
  }

  // Everything counted so far, to be counted again (a unit that presents the
  // same lanes once and reuses their counts for an identical stream).
  struct Counts {
    std::uint64_t cycles = 0, conflict_cycles = 0, words = 0;
    std::vector<std::uint64_t> accesses, conflicts;  // per bank
  };
  Counts counts() const { return Counts{m_cycles, m_conflict_cycles, m_words, m_accesses, m_conflicts}; }
  // What was counted between `before` and `after` (two counts() of this model), counted again.
  void add_between(const Counts& before, const Counts& after) {
    m_cycles += after.cycles - before.cycles;
    m_conflict_cycles += after.conflict_cycles - before.conflict_cycles;
    m_words += after.words - before.words;
    for (std::size_t b = 0; b < m_accesses.size(); ++b) {
      m_accesses[b] += after.accesses[b] - before.accesses[b];
      m_conflicts[b] += after.conflicts[b] - before.conflicts[b];
    }
  }

  std::uint64_t cycles() const { return m_cycles; }
  // Cycles beyond one per access: what conflicts cost.
  std::uint64_t conflict_cycles() const { return m_conflict_cycles; }
  std::uint64_t words() const { return m_words; }
  const std::vector<std::uint64_t>& bank_accesses() const { return m_accesses; }
  const std::vector<std::uint64_t>& bank_conflicts() const { return m_conflicts; }

 private:
  // Whether every lane reaches a bank of its own (the common pattern of
  // lanes on consecutive words), found without sorting.
  bool distinct_banks(const std::vector<std::uint64_t>& lanes) {
    if (lanes.size() > m_banks) return false;
    if (m_seen.size() != m_banks) m_seen.assign(m_banks, 0);
    ++m_epoch;
    for (std::uint64_t a : lanes) {
      std::uint64_t& seen = m_seen[(a / m_width) % m_banks];
      if (seen == m_epoch) return false;
      seen = m_epoch;
    }
    return true;
  }

  std::uint64_t m_banks, m_width, m_ports;
  std::vector<std::uint64_t> m_seen;  // per bank: the last access that reached it
  std::uint64_t m_epoch = 0;
  std::vector<std::uint64_t> m_accesses, m_conflicts, m_scratch;
  std::uint64_t m_cycles = 0, m_conflict_cycles = 0, m_words = 0;
};

}  // namespace eva
