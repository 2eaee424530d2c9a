// The epilogue unit as a module: its lanes reach the OC SRAM through its
// lookup socket, and the SRAM's bank model sees the addresses they present.
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "common/fp16.hpp"
#include "epilogue/epilogue_unit.hpp"
#include "sim_check.hpp"
#include "sram/sram.hpp"

using namespace eva;

namespace {

SramConfig oc_sram(int banks) {
  SramConfig c;
  c.size_kib = 64;
  c.banks = banks;
  c.bank_width_bytes = 2;
  return c;
}

// One unit of `adder_inputs` lanes over an OC SRAM of `banks` FP16 banks.
struct Bench {
  EpilogueConfig config;
  SramConfig oc;
  Sram sram;
  EpilogueUnit unit;
  Bench(int adder_inputs, int banks)
      : config{1, adder_inputs},
        oc(oc_sram(banks)),
        sram("oc", oc, 500.0),
        unit("unit", config, 0, static_cast<std::uint64_t>(banks), 500.0, UnitPower()) {
    unit.lookup_socket.bind(sram.lookup_socket);
  }
  // Runs `job` and returns the unit's cycles and the simulated time it took.
  std::pair<std::uint64_t, sc_core::sc_time> run(const EpilogueUnit::Job& job) {
    sc_core::sc_time took;
    test::Stimulus s("s", [&] {
      unit.start(job);
      while (unit.busy()) sc_core::wait(unit.done());
      took = sc_core::sc_time_stamp();
    });
    test::run_clean();
    return {unit.last_cycles(), took};
  }
};

}  // namespace

TEST_CASE("Epilogue unit: lanes in their own banks take one cycle per column, no conflict") {
  Bench b(8, 8);
  EpilogueUnit::Job job;
  job.cols = 10;
  job.rows = 8;
  const auto [cycles, took] = b.run(job);
  CHECK(cycles == 10);
  CHECK(took == sc_core::sc_time(20.0, sc_core::SC_NS));
  CHECK(b.sram.conflict_cycles() == 0);
  CHECK(b.unit.stat(EpilogueUnit::lookups) == 80);
}

TEST_CASE("Epilogue unit: two lanes on one OC bank conflict, in timing mode") {
  // 8 lanes over 4 banks: rows r and r + 4 share bank r, two cycles a column.
  Bench b(8, 4);
  EpilogueUnit::Job job;
  job.cols = 10;
  job.rows = 8;
  const auto [cycles, took] = b.run(job);
  CHECK(cycles == 20);
  CHECK(took == sc_core::sc_time(40.0, sc_core::SC_NS));
  CHECK(b.sram.conflict_cycles() == 10);
  CHECK(b.unit.stat(EpilogueUnit::conflict_cycles) == 10);
}

TEST_CASE("Epilogue unit: functional lookups read the entries the indices name and sum them per input row") {
  // 2 sub-vectors x 2 input rows = 4 OC rows over 4 banks; 4 entries.
  Bench b(4, 4);
  std::vector<half_bits> oc(4 * 4);
  for (std::uint64_t e = 0; e < 4; ++e)
    for (std::uint64_t r = 0; r < 4; ++r) oc[e * 4 + r] = float_to_half(static_cast<float>(10 * e + r));
  std::memcpy(b.sram.data(), oc.data(), oc.size() * 2);
  // Column 0 looks up entries 1 (v = 0) and 3 (v = 1); column 1 entries 2 and 0.
  const std::vector<std::uint32_t> indices = {1, 3, 2, 0};
  std::vector<float> partial(2 * 2, 0.0f);
  EpilogueUnit::Job job;
  job.cols = 2;
  job.rows = 4;
  job.m = 2;
  job.entries = 4;
  job.indices = indices.data();
  job.partial = partial.data();
  const auto [cycles, took] = b.run(job);
  CHECK(cycles == 2);
  // Row r = v x 2 + mm: input row mm sums entry(v) at rows mm and 2 + mm.
  CHECK(partial[0 * 2 + 0] == (10 + 0) + (30 + 2));
  CHECK(partial[1 * 2 + 0] == (10 + 1) + (30 + 3));
  CHECK(partial[0 * 2 + 1] == (20 + 0) + (0 + 2));
  CHECK(partial[1 * 2 + 1] == (20 + 1) + (0 + 3));
  CHECK(b.sram.conflict_cycles() == 0);
}
