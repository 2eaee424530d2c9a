#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "dram/sparse_storage.hpp"

using namespace eva;

TEST_CASE("Sparse storage reads zeros until written, across page boundaries") {
  SparseStorage s;
  std::vector<std::uint8_t> out(10000, 0xff);
  s.read(1ull << 40, out.data(), out.size());
  CHECK(std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 0; }));
  CHECK(s.pages_allocated() == 0);

  std::vector<std::uint8_t> in(SparseStorage::page_bytes + 200);  // the end of one page, all the next, a bit more
  std::iota(in.begin(), in.end(), 0);
  const std::uint64_t addr = 3 * SparseStorage::page_bytes - 100;
  s.write(addr, in.data(), in.size());
  CHECK(s.pages_allocated() == 3);
  std::vector<std::uint8_t> back(in.size());
  s.read(addr, back.data(), back.size());
  CHECK(back == in);
}
