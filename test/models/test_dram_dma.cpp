#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "dma/dma.hpp"
#include "dram/ideal_dram.hpp"
#include "sim_check.hpp"

using namespace eva;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

DramConfig ideal(double gbps, double latency_ns) {
  DramConfig c;
  c.bandwidth_gbps = gbps;
  c.latency_ns = latency_ns;
  return c;
}

}  // namespace

TEST_CASE("Ideal DRAM: a blocking access takes bytes / bandwidth + latency, through the same pipe") {
  IdealDram dram("dram", ideal(64.0, 30.0));
  test::BareInitiator init("init");
  init.socket.bind(dram.target_socket);
  sc_time first_done, second_done;
  test::Stimulus s("s", [&] {
    std::vector<std::uint8_t> buf(64);
    sc_time delay = sc_core::SC_ZERO_TIME;
    REQUIRE(init.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 64, delay) == tlm::TLM_OK_RESPONSE);
    first_done = sc_core::sc_time_stamp() + delay;
    delay = sc_core::SC_ZERO_TIME;
    init.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 64, delay);
    second_done = sc_core::sc_time_stamp() + delay;
  });
  test::run_clean();
  CHECK(first_done == sc_time(1.0 + 30.0, SC_NS));  // 64 B at 64 GB/s = 1 ns
  CHECK(second_done == sc_time(2 * 31.0, SC_NS));   // issued after the first returned
  CHECK(dram.bytes_read() == 128);
}

TEST_CASE("Ideal DRAM: out-of-range and byte-enabled requests get error responses") {
  DramConfig c = ideal(64.0, 0.0);
  c.capacity_gib = 1.0;
  IdealDram dram("dram", c);
  test::BareInitiator init("init");
  init.socket.bind(dram.target_socket);
  tlm::tlm_response_status beyond{}, enables{};
  test::Stimulus s("s", [&] {
    std::vector<std::uint8_t> buf(64), be(64, 0xff);
    sc_time d = sc_core::SC_ZERO_TIME;
    beyond = init.access(tlm::TLM_WRITE_COMMAND, (1ull << 30) - 32, buf.data(), 64, d);
    enables = init.access(tlm::TLM_WRITE_COMMAND, 0, buf.data(), 64, d, be.data());
  });
  test::run_clean();
  CHECK(beyond == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(enables == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
}

TEST_CASE("DMA: a sequential read reaches at least 99% of the ideal DRAM's peak") {
  IdealDram dram("dram", ideal(64.0, 0.0));
  Dma dma("dma", DmaConfig{});
  dma.initiator_socket.bind(dram.target_socket);
  const std::uint64_t bytes = 8 << 20;
  sc_time took;
  test::Stimulus s("s", [&] {
    dma.read(0, bytes, nullptr);
    took = sc_core::sc_time_stamp();
  });
  test::run_clean();
  const double peak = 64e9;
  CHECK(static_cast<double>(bytes) / took.to_seconds() >= 0.99 * peak);
  CHECK(static_cast<double>(bytes) / took.to_seconds() <= peak * 1.000001);
  CHECK(dram.bytes_read() == bytes);
}

TEST_CASE("DMA: with latency, bandwidth comes from the requests in flight") {
  // 4 bursts of 64 B in flight against 100 ns of latency: each window of 4
  // bursts takes 100 ns plus its own transfer, far below the 64 GB/s peak.
  IdealDram dram("dram", ideal(64.0, 100.0));
  DmaConfig dc;
  dc.burst_bytes = 64;
  dc.max_outstanding = 4;
  Dma dma("dma", dc);
  dma.initiator_socket.bind(dram.target_socket);
  const std::uint64_t bytes = 64 * 4 * 100;  // 100 windows
  sc_time took;
  test::Stimulus s("s", [&] {
    dma.read(0, bytes, nullptr);
    took = sc_core::sc_time_stamp();
  });
  test::run_clean();
  // Burst i + 4 issues when burst i completes: a window every 1 ns + 100 ns.
  CHECK(took.to_seconds() * 1e9 == Approx(100 * 101.0 + 3.0).epsilon(0.001));
}

TEST_CASE("DMA: functional 2-D writes and reads move the data through the DRAM") {
  IdealDram dram("dram", ideal(64.0, 20.0));
  DmaConfig dc;
  dc.burst_bytes = 16;
  Dma dma("dma", dc);
  dma.initiator_socket.bind(dram.target_socket);
  std::vector<std::uint8_t> tile(5 * 40), back(5 * 40);
  std::iota(tile.begin(), tile.end(), 1);
  test::Stimulus s("s", [&] {
    dma.write_2d(1000, 40, 5, 100, tile.data());  // 5 rows of 40 B, 100 B apart
    dma.read_2d(1000, 40, 5, 100, back.data());
  });
  test::run_clean();
  CHECK(back == tile);
  std::vector<std::uint8_t> gap(60);
  dram.storage().read(1040, gap.data(), gap.size());  // between rows: untouched
  CHECK(std::all_of(gap.begin(), gap.end(), [](std::uint8_t b) { return b == 0; }));
  CHECK(dram.bytes_written() == 200);
}

TEST_CASE("DMA: an access beyond DRAM capacity is a recorded bus error, not a silent success or a throw") {
  DramConfig c = ideal(64.0, 0.0);
  c.capacity_gib = 1.0;
  IdealDram dram("dram", c);
  DmaConfig dc;
  dc.burst_bytes = 64;
  Dma dma("dma", dc);
  dma.initiator_socket.bind(dram.target_socket);
  bool first_failed = false, second_failed = true, third_failed = false;
  Dma::BusError first, after_clear;
  test::Stimulus s("s", [&] {
    // Two bursts: the first fits, the second starts at the capacity.
    Dma::Transfer t = dma.start_read((1ull << 30) - 64, 128, 1, 128, nullptr);
    Dma::wait_for(t);
    first_failed = t.failed();
    first = dma.bus_error();
    Dma::Transfer good = dma.start_read(0, 128, 1, 128, nullptr);
    Dma::wait_for(good);
    second_failed = good.failed();
    CHECK(dma.bus_error().addr == first.addr);  // sticky: the first error stays
    dma.clear_bus_error();
    after_clear = dma.bus_error();
    Dma::Transfer write = dma.start_write((1ull << 30) + 4096, 64, 1, 64, nullptr);
    Dma::wait_for(write);
    third_failed = write.failed();
  });
  test::run_clean();
  CHECK(first_failed);
  CHECK(first.status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(first.addr == 1ull << 30);
  CHECK(first.bytes == 64);
  CHECK_FALSE(first.write);
  CHECK_FALSE(second_failed);
  CHECK_FALSE(static_cast<bool>(after_clear));
  CHECK(third_failed);
  CHECK(dma.bus_error().write);
  CHECK(dma.bus_error().addr == (1ull << 30) + 4096);
  CHECK(dma.bus_error().message() == "write of 64 B at 0x40001000 failed: TLM_ADDRESS_ERROR_RESPONSE");
  double bus_errors = -1.0;
  for (const Stat& st : dma.stats().stats())
    if (st.name == "bus_errors") bus_errors = st.value;
  CHECK(bus_errors == 2.0);
}
