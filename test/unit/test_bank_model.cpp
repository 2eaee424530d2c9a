#include <catch2/catch.hpp>

#include "sram/bank_model.hpp"

using namespace eva;

TEST_CASE("SRAM banks: all lanes in different banks take one cycle") {
  BankModel m(32, 2, 1);
  std::vector<std::uint64_t> lanes;
  for (std::uint64_t l = 0; l < 32; ++l) lanes.push_back(l * 2 + 64 * 2 * l);  // bank l, row l
  CHECK(m.access(lanes, false) == 1);
  CHECK(m.conflict_cycles() == 0);
}

TEST_CASE("SRAM banks: all lanes in one bank, different rows, take one cycle per lane") {
  BankModel m(32, 2, 1);
  std::vector<std::uint64_t> lanes;
  for (std::uint64_t l = 0; l < 16; ++l) lanes.push_back(l * 32 * 2);  // bank 0, row l
  CHECK(m.access(lanes, false) == 16);
  CHECK(m.conflict_cycles() == 15);
  CHECK(m.bank_accesses()[0] == 16);
  CHECK(m.bank_conflicts()[0] == 15);
}

TEST_CASE("SRAM banks: lanes reading one word share it") {
  BankModel m(8, 4, 1);
  const std::vector<std::uint64_t> same(8, 40);
  CHECK(m.access(same, false) == 1);
}

TEST_CASE("SRAM banks: writes to one word serialize") {
  BankModel m(8, 4, 1);
  const std::vector<std::uint64_t> same(8, 40);
  CHECK(m.access(same, true) == 8);
}

TEST_CASE("SRAM banks: the worked example of 8 lanes over 8 banks") {
  // Entries of one bank word each, bank = index mod 8: bank 3 serves 3, 11, 19
  // (the two 3s share): 3 cycles.
  BankModel m(8, 1, 1);
  CHECK(m.access({3, 11, 19, 3, 5, 13, 0, 8}, false) == 3);
}

TEST_CASE("SRAM banks: two ports halve the conflict") {
  BankModel m(4, 8, 2);
  CHECK(m.access({0, 32, 64, 96}, false) == 2);  // four rows of bank 0, two per cycle
  CHECK(m.access({0, 32, 64}, false) == 2);
}

TEST_CASE("Bank model: every pattern, lanes in banks of their own or not, counts as the definition says") {
  // The definition, by brute force: per bank the distinct words (reads share
  // a word, writes do not), each bank `ports` words a cycle.
  const std::uint64_t banks = 8, width = 2, ports = 2;
  BankModel m(banks, width, ports);
  std::vector<std::uint64_t> accesses(banks, 0);
  std::uint64_t cycles = 0, words = 0;
  std::uint64_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 33;
  };
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::uint64_t> lanes;
    const std::uint64_t n = 1 + next() % 12, base = next() % 64;
    const bool consecutive = i % 2 == 0;  // half the patterns on consecutive words (often a bank each)
    for (std::uint64_t l = 0; l < n; ++l)
      lanes.push_back(consecutive ? (base + l) * width : (next() % 40) * width + next() % 2);
    const bool write = i % 3 == 0;
    const std::uint64_t repeat = 1 + i % 4;
    std::vector<std::vector<std::uint64_t>> per_bank(banks);
    for (std::uint64_t a : lanes) per_bank[(a / width) % banks].push_back(a / width);
    std::uint64_t expect = 0;
    for (std::uint64_t b = 0; b < banks; ++b) {
      auto& w = per_bank[b];
      std::sort(w.begin(), w.end());
      if (!write) w.erase(std::unique(w.begin(), w.end()), w.end());
      accesses[b] += w.size() * repeat;
      words += w.size() * repeat;
      expect = std::max<std::uint64_t>(expect, (w.size() + ports - 1) / ports);
    }
    cycles += expect * repeat;
    REQUIRE(m.access(lanes, write, repeat) == expect);
  }
  CHECK(m.cycles() == cycles);
  CHECK(m.words() == words);
  CHECK(m.bank_accesses() == accesses);
}
