#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <catch2/catch.hpp>

#include "systolic/ws_tiler.hpp"

using namespace eva;

TEST_CASE("Tiles cover every output and weight exactly once, edges included") {
  const std::uint64_t M = 5, K = 70, N = 45;
  const WsTiler t(M, K, N, 32, 32, 2);  // 3 blocks (2, 2, 1 rows), 3 k-tiles, 2 n-tiles
  CHECK(t.blocks() == 3);
  CHECK(t.size() == 3 * 3 * 2);
  std::uint64_t macs = 0, weight_elems = 0;
  std::set<std::uint64_t> weight_offsets;
  for (std::uint64_t i = 0; i < t.size(); ++i) {
    const WsTile x = t.at(i);
    macs += x.m * x.k * x.n;
    if (x.block == 0) {
      weight_elems += x.k * x.n;
      weight_offsets.insert(x.weight_offset);
    }
    CHECK(x.k0 + x.k <= K);
    CHECK(x.n0 + x.n <= N);
  }
  CHECK(macs == M * K * N);
  CHECK(weight_elems == K * N);
  CHECK(weight_offsets.size() == 6);
  // Tile-major storage is dense: the last tile ends at K * N.
  const WsTile last = t.at(t.size() - 1);
  CHECK(last.weight_offset + last.k * last.n == K * N);
  CHECK(last.last_k);
  CHECK(last.last_in_block);
}

TEST_CASE("Blocks of input rows are balanced") {
  const WsTiler t(2500, 64, 64, 32, 32, 1024);
  CHECK(t.blocks() == 3);
  CHECK(t.block_rows(0) == 834);
  CHECK(t.block_rows(1) == 833);
  CHECK(t.block_rows(2) == 833);
  CHECK(t.block_start(2) == 1667);
}

TEST_CASE("Groups of column tiles and passes: every tile once, reduction in order per output tile") {
  const std::uint64_t K = 200, N = 170;  // 7 k-tiles, 6 n-tiles (last narrow)
  for (std::uint64_t group : {1, 2, 4, 6, 9}) {
    for (std::uint64_t passes : {1, 3}) {
      INFO("group " << group << " passes " << passes);
      const WsTiler t(3, K, N, 32, 32, 1024, passes, group);
      REQUIRE(t.size() == 7 * 6 * passes);
      std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> seen;
      std::map<std::uint64_t, std::uint64_t> next_k;  // per column tile, the reduction row expected next
      std::uint64_t open = 0, max_open = 0;
      for (std::uint64_t i = 0; i < t.size(); ++i) {
        const WsTile x = t.at(i);
        CHECK(seen.insert({x.k0, x.n0, x.pass}).second);
        if (x.pass == 0) {
          CHECK(next_k[x.n0] == x.k0);
          next_k[x.n0] = x.k0 + x.k;
        }
        CHECK(x.first_k == (x.k0 == 0 && x.pass == 0));
        CHECK(x.last_k == (x.k0 + x.k == K && x.pass + 1 == passes));
        if (x.first_k) max_open = std::max(max_open, ++open);
        if (x.last_k) --open;
      }
      CHECK(open == 0);
      CHECK(max_open == std::min<std::uint64_t>(group, 6));  // a group's accumulators live together
    }
  }
}
