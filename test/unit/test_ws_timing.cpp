#include <catch2/catch.hpp>

#include "systolic/ws_timing.hpp"

using namespace eva;

namespace {

// A tile of INT8 weights, the load path counted in rows when load_rows > 0.
WsTiming timing(WeightLoad mode, int rows = 32, int cols = 32, int load_rows = 4, int overhead = 0) {
  SystolicConfig c;
  c.rows = rows;
  c.cols = cols;
  c.weight_load = mode;
  c.load_rows_per_cycle = load_rows;
  c.tile_overhead_cycles = overhead;
  return WsTiming(c, static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols));
}

}  // namespace

TEST_CASE("paper: M + R + C per 32x32 tile, as the EVA artifact's WS()") {
  // Artifact base.py: ceil(n/H)*ceil(k/W)*m + H + W per tile, 1 x 4096 x 4096.
  CHECK(timing(WeightLoad::paper).gemm_cycles(128 * 128, 1) == 128ull * 128 * (1 + 64));
  CHECK(timing(WeightLoad::paper, 32, 32, 4, 2).tile_cycles(1) == 67);  // ANT
  CHECK(timing(WeightLoad::paper, 32, 32, 4, 4).tile_cycles(8) == 76);  // FIGNA
}

TEST_CASE("scalesim: 2R + C + M - 2 per fold, as SCALE-Sim v2's WS demand matrices") {
  CHECK(timing(WeightLoad::scalesim).tile_cycles(1) == 95);
  CHECK(timing(WeightLoad::scalesim, 16, 8).tile_cycles(100) == 32 + 8 + 100 - 2);
  CHECK(timing(WeightLoad::scalesim).gemm_cycles(6, 10) == 6 * (64 + 32 + 10 - 2));
}

TEST_CASE("overlapped: first load, then max(M, L) per tile, then one drain") {
  const WsTiming t = timing(WeightLoad::overlapped);  // L = 32 / 4 = 8
  CHECK(t.load_cycles == 8);
  CHECK(t.gemm_cycles(1, 1) == 8 + 1 + 62);
  CHECK(t.gemm_cycles(100, 1) == 8 + 99 * 8 + 1 + 62);     // load-bound
  CHECK(t.gemm_cycles(100, 20) == 8 + 99 * 20 + 20 + 62);  // stream-bound
  CHECK(timing(WeightLoad::overlapped, 32, 32, 1).gemm_cycles(3, 4) == 32 + 2 * 32 + 4 + 62);
}

TEST_CASE("overlapped: a tile loads in its bytes over the load path's width, so narrow weights load faster") {
  SystolicConfig c;  // 32 x 32, 128 B per cycle, rows not counted
  c.weight_load = WeightLoad::overlapped;
  REQUIRE(c.load_rows_per_cycle == 0);
  REQUIRE(c.load_bytes_per_cycle == 128);
  CHECK(WsTiming(c, 32 * 32).load_cycles == 8);       // INT8: 4 rows a cycle
  CHECK(WsTiming(c, 32 * 32 / 2).load_cycles == 4);   // 4-bit: 8 rows a cycle
  CHECK(WsTiming(c, 32 * 32 * 2).load_cycles == 16);  // FP16 (a KV cache as weights)
  CHECK(WsTiming(c, 1).load_cycles == 1);
  c.load_bytes_per_cycle = 64;
  CHECK(WsTiming(c, 32 * 32 / 2).load_cycles == 8);
  c.load_rows_per_cycle = 1;  // counted in rows: the format does not matter
  CHECK(WsTiming(c, 32 * 32 / 2).load_cycles == 32);
}

TEST_CASE("Block sums agree with the single-block closed form and chain blocks") {
  for (WeightLoad mode : {WeightLoad::paper, WeightLoad::scalesim, WeightLoad::overlapped}) {
    const WsTiming t = timing(mode);
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> one = {{40, 7}};
    CHECK(t.gemm_cycles_blocks(one) == t.gemm_cycles(40, 7));
  }
  const WsTiming o = timing(WeightLoad::overlapped);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> two = {{3, 20}, {3, 5}};
  // start 8; tiles stream 20,20,20 then 5,5,5 (each at least L = 8 apart)
  CHECK(o.gemm_cycles_blocks(two) == 8 + 20 + 20 + 20 + 8 + 8 + 5 + 62);
}
