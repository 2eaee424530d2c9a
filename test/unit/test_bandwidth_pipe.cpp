#include <catch2/catch.hpp>

#include "dram/bandwidth_pipe.hpp"

using namespace eva;

TEST_CASE("The ideal pipe charges bytes / bandwidth plus latency") {
  BandwidthPipe p(64.0, 10.0);  // 64 GB/s: 15.625 ps per byte
  CHECK(p.transfer(0.0, 64) == Approx(1000.0 + 10000.0));
}

TEST_CASE("Concurrent requests queue for the pipe") {
  BandwidthPipe p(64.0, 0.0);
  CHECK(p.transfer(0.0, 64) == Approx(1000.0));
  CHECK(p.transfer(0.0, 64) == Approx(2000.0));     // waited for the first
  CHECK(p.transfer(5000.0, 64) == Approx(6000.0));  // idle gap not reclaimed
  CHECK(p.busy_ps() == Approx(3000.0));
}
