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
