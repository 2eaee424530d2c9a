// The DRAM models through TLM: the traffic generator (AT) against each preset,
// blocking access through the controller's timing, and the DMA against the
// controller. One simulation per test case.
#include <random>

#include <catch2/catch.hpp>

#include "arch_for_test.hpp"
#include "checker/protocol_checker.hpp"
#include "common/kernel_time.hpp"
#include "config/load_arch.hpp"
#include "dma/dma.hpp"
#include "dram/dram_controller.hpp"
#include "sim_check.hpp"
#include "sram/lane_access.hpp"
#include "sram/sram.hpp"
#include "vp/platform.hpp"
#include "vp/simulate.hpp"

using namespace eva;

namespace {

nlohmann::json bench(const std::string& preset, TrafficPattern pattern) {
  TrafficConfig t;
  t.pattern = pattern;
  t.bytes = 4 << 20;
  const auto r = simulate_dram_bench(load_dram(preset, {}), t);
  for (const auto& p : SystemcReports::problems()) FAIL_CHECK("SystemC: " << p);
  return r;
}

void sequential_reaches(const std::string& preset, double fraction) {
  const auto r = bench(preset, TrafficPattern::seq);
  INFO(r.dump());
  CHECK(r["efficiency"].get<double>() >= fraction);
  CHECK(r["efficiency"].get<double>() <= 1.0 + 1e-9);
  CHECK(r["bytes"] == 4 << 20);
}

}  // namespace

TEST_CASE("Sequential reads reach 99% of peak on ideal") { sequential_reaches("ideal", 0.99); }
TEST_CASE("Sequential reads reach 90% of peak on ddr4-3200") { sequential_reaches("ddr4-3200", 0.90); }
TEST_CASE("Sequential reads reach 90% of peak on lpddr4-4266") { sequential_reaches("lpddr4-4266", 0.90); }
TEST_CASE("Sequential reads reach 90% of peak on lpddr5-6400") { sequential_reaches("lpddr5-6400", 0.90); }
TEST_CASE("Sequential reads reach 90% of peak on hbm2") { sequential_reaches("hbm2", 0.90); }

TEST_CASE("Random 64-byte reads run well below peak on ddr4-3200, and cost more energy per bit") {
  const auto random = bench("ddr4-3200", TrafficPattern::random);
  CHECK(random["efficiency"].get<double>() < 0.9);
  CHECK(random["stats"]["act"].get<double>() > 0.5 * random["requests"].get<double>());  // mostly row misses
  CHECK(random["energy_pj_per_bit"].get<double>() > 0.0);
  CHECK(random["latency_ns_p99"].get<double>() >= random["latency_ns_mean"].get<double>());
}

TEST_CASE("A blocking read through the controller takes the isolated closed-form latency") {
  const DramConfig c = load_dram("ddr4-3200", {});
  DramController dram("dram", c);
  test::BareInitiator init("init");
  init.socket.bind(dram.target_socket);
  sc_core::sc_time took;
  std::vector<std::uint8_t> data(64, 0xab), back(64);
  test::Stimulus s("s", [&] {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    init.access(tlm::TLM_WRITE_COMMAND, 4096, data.data(), 64, d);
    wait(sc_core::sc_time(1, sc_core::SC_US));  // let the write's bank settle
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    init.access(tlm::TLM_READ_COMMAND, 4096, back.data(), 64, d);
    took = sc_core::sc_time_stamp() + d - start;
  });
  test::run_clean();
  // The row is still open: a row hit, tCL + tBURST, after the exit from the
  // power-down the idle microsecond put the channel in (tXP).
  CHECK(took == sc_core::sc_time((c.timing.tXP + c.timing.tCL + c.timing.tBURST) * c.tck_ps, sc_core::SC_PS));
  CHECK(dram.residency(sc_core::sc_time_stamp()).exits >= 1);
  CHECK(back == data);
  CHECK(dram.counts().act == 1);
}

TEST_CASE("DMA against the controller: bandwidth needs requests in flight") {
  DramConfig c = load_dram("ddr4-3200", {"dram.channels=1"});
  DramController dram("dram", c);
  DmaConfig one;
  one.max_outstanding = 1;
  one.burst_bytes = 64;  // one device burst per request
  Dma dma("dma", one);
  ProtocolChecker checker("checker");  // every simulating test checks the base protocol
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(dram.target_socket);
  sc_core::sc_time took;
  const std::uint64_t bytes = 1 << 20;
  test::Stimulus s("s", [&] {
    dma.read(0, bytes, nullptr);
    took = sc_core::sc_time_stamp();
  });
  test::run_clean();
  // One burst at a time: each pays the row-hit latency, so about
  // burst / (tCL + tBURST) of bandwidth, far from the peak.
  const double per_burst_s = (c.timing.tCL + c.timing.tBURST) * c.tck_ps * 1e-12;
  const double achieved = static_cast<double>(bytes) / took.to_seconds();
  CHECK(achieved <= 64.0 / per_burst_s * 1.001);
  CHECK(achieved < 0.3 * c.peak_bytes_per_second());
}

TEST_CASE("The SA accelerator runs on a timed DRAM and reports its commands and energy") {
  ArchRequest req;
  req.arch = "sa";
  req.dram = "lpddr5-6400";
  req.sets = {"systolic.weight_load=overlapped"};
  const Report r = simulate_gemm(test::checked(load_arch(req)), GemmShape{1, 1024, 2048});
  const double scales = 4 * (2 + 1024);  // float32 scales per output channel (baselines/sa/int_datapath.hpp)
  CHECK(r.dram_bytes_read == 1024ull * 2048 + 2048 + scales);
  CHECK(r.stats["dram"]["rd"]["value"].get<double>() == Approx((1024.0 * 2048 + 2048 + scales) / 64).margin(64));
  CHECK(r.energy_breakdown_j.at("dram") > 0.0);
  // Memory-bound: near the 51.2 GB/s roofline.
  CHECK(r.dram_bw_utilization > 0.85);
}

TEST_CASE("SRAM: filled over TLM, lanes read it back through the lookup socket with conflicts counted") {
  SramConfig c;  // EVA's OC SRAM: 128 banks of 2 B
  Sram sram("oc", c, 500.0);
  test::BareInitiator init("init"), lanes("lanes");
  init.socket.bind(sram.target_socket);
  lanes.socket.bind(sram.lookup_socket);
  std::vector<std::uint8_t> fill(4096);
  for (std::size_t i = 0; i < fill.size(); ++i) fill[i] = static_cast<std::uint8_t>(i * 7);
  sc_core::sc_time delay, lane_delay;
  // 32 lanes, each in its own bank: one cycle; the same 32 in one bank: 32.
  LaneAccess spread, same_bank;
  for (std::uint64_t l = 0; l < 32; ++l) {
    spread.addrs.push_back(l * 2);
    same_bank.addrs.push_back(l * 256);
  }
  std::vector<std::uint8_t> out(64);
  std::uint64_t spread_cycles = 0, same_cycles = 0;
  test::Stimulus s("s", [&] {
    delay = sc_core::SC_ZERO_TIME;
    init.access(tlm::TLM_WRITE_COMMAND, 0, fill.data(), 4096, delay);
    tlm::tlm_generic_payload t;
    spread_cycles = lane_transport(lanes.socket, t, spread, false, out.data(), lane_delay);
    same_cycles = lane_transport(lanes.socket, t, same_bank, false, nullptr, lane_delay);
  });
  test::run_clean();
  CHECK(delay == sc_core::sc_time(2.0 * (1 + 4096 / 256), sc_core::SC_NS));  // latency + 16 rows
  CHECK(spread_cycles == 1);
  CHECK(same_cycles == 32);
  CHECK(lane_delay == sc_core::sc_time(2.0 * 33, sc_core::SC_NS));
  CHECK(sram.conflict_cycles() == 31);
  CHECK(std::equal(out.begin(), out.end(), fill.begin()));
}

TEST_CASE("DMA moves 2-D tiles from DRAM into an SRAM and back, data and time") {
  const DramConfig c = load_dram("ddr4-3200", {});
  DramController dram("dram", c);
  SramConfig sc;
  Sram sram("buffer", sc, 500.0);
  Dma dma("dma", DmaConfig{});
  ProtocolChecker checker("checker");  // every simulating test checks the base protocol
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(dram.target_socket);
  ProtocolChecker sram_checker("sram_checker");
  dma.sram_socket.bind(sram_checker.target_socket);
  sram_checker.initiator_socket.bind(sram.target_socket);
  // A 16 x 48 B tile of a row-major matrix with 1000 B rows.
  std::vector<std::uint8_t> matrix(16 * 1000);
  for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<std::uint8_t>(i * 13 + 1);
  dram.storage().write(0, matrix.data(), matrix.size());
  sc_core::sc_time loaded, stored;
  test::Stimulus s("s", [&] {
    dma.wait_for(dma.start_load(200, 48, 16, 1000, 512));
    loaded = sc_core::sc_time_stamp();
    dma.wait_for(dma.start_store(1 << 20, 48, 16, 48, 512));  // back, packed
    stored = sc_core::sc_time_stamp();
  });
  test::run_clean();
  for (std::size_t r = 0; r < 16; ++r)
    CHECK(std::equal(matrix.begin() + static_cast<long>(200 + r * 1000),
                     matrix.begin() + static_cast<long>(248 + r * 1000), sram.data() + 512 + r * 48));
  std::vector<std::uint8_t> back(16 * 48);
  dram.storage().read(1 << 20, back.data(), back.size());
  CHECK(std::equal(back.begin(), back.end(), sram.data() + 512));
  // At least one DRAM access's latency each way, and the SRAM's own cycles.
  CHECK(loaded >= sc_core::sc_time((c.timing.tRCD + c.timing.tCL + c.timing.tBURST) * c.tck_ps, sc_core::SC_PS));
  CHECK(stored > loaded);
}

TEST_CASE("DMI: the DRAM grants a MiB page of its storage, the SRAM all of it") {
  const std::uint64_t mib = 1 << 20;
  const DramConfig c = load_dram("ddr4-3200", {});
  DramController dram("dram", c);
  SramConfig sc;
  Sram sram("buffer", sc, 500.0);
  test::BareInitiator to_dram("to_dram"), to_sram("to_sram");
  to_dram.socket.bind(dram.target_socket);
  to_sram.socket.bind(sram.target_socket);
  tlm::tlm_generic_payload t;
  tlm::tlm_dmi dmi;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(3 * mib + 10000);
  REQUIRE(to_dram.socket->get_direct_mem_ptr(t, dmi));
  CHECK(dmi.get_start_address() == 3 * mib);  // a whole MiB page
  CHECK(dmi.get_end_address() == 4 * mib - 1);
  CHECK(dmi.is_read_write_allowed());
  dmi.get_dmi_ptr()[10000] = 0x5a;  // a write through DMI ...
  std::uint8_t byte = 0;
  t.set_data_ptr(&byte);
  t.set_data_length(1);
  t.set_streaming_width(1);
  CHECK(to_dram.socket->transport_dbg(t) == 1);  // ... is what the debug path reads
  CHECK(byte == 0x5a);
  t.set_address(0);
  REQUIRE(to_sram.socket->get_direct_mem_ptr(t, dmi));
  CHECK(dmi.get_end_address() == 64 * 1024 - 1);
  CHECK(dmi.get_dmi_ptr() == sram.data());
}

TEST_CASE("Posted writes: the controller answers a write once queued, and its bursts still reach the device") {
  const DramConfig waits = load_dram("lpddr5-6400", {"dram.channels=1"});
  const DramConfig posts = load_dram("lpddr5-6400", {"dram.channels=1", "dram.posted_writes=true"});
  DramController dram_waits("dram_waits", waits), dram_posts("dram_posts", posts);
  DmaConfig dc;
  dc.burst_bytes = 64;
  Dma dma_waits("dma_waits", dc), dma_posts("dma_posts", dc);
  ProtocolChecker check_waits("check_waits"), check_posts("check_posts");
  dma_waits.initiator_socket.bind(check_waits.target_socket);
  check_waits.initiator_socket.bind(dram_waits.target_socket);
  dma_posts.initiator_socket.bind(check_posts.target_socket);
  check_posts.initiator_socket.bind(dram_posts.target_socket);
  std::vector<std::uint8_t> data(1024), back(1024);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7);
  sc_core::sc_time waited, posted, drained;
  std::uint64_t pending = 0;
  test::Stimulus a("a", [&] {
    dma_waits.write(8192, data.size(), data.data());
    waited = sc_core::sc_time_stamp();
    CHECK(dram_waits.posted_pending() == 0);
  });
  test::Stimulus b("b", [&] {
    dma_posts.write(8192, data.size(), data.data());
    posted = sc_core::sc_time_stamp();
    pending = dram_posts.posted_pending();
    sc_core::wait(dram_posts.posted_drained());  // what an idle start waits for
    drained = sc_core::sc_time_stamp();
    CHECK(dram_posts.posted_pending() == 0);
    dma_posts.read(8192, back.size(), back.data());
  });
  test::run_clean();
  INFO("answered after the device write " << waited << ", once queued " << posted << ", drained " << drained);
  CHECK(posted < waited);
  CHECK(pending > 0);
  CHECK(drained > posted);
  CHECK(back == data);
  CHECK(dram_posts.counts().wr == data.size() / 64);  // every burst written all the same
  CHECK(dram_waits.counts().wr == dram_posts.counts().wr);
}

TEST_CASE("KernelTime's inline conversions equal the kernel's sc_time functions") {
  REQUIRE(KernelTime::exact());  // the kernel's default 1 ps resolution
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> values(0, (std::uint64_t{1} << 52) - 1);
  std::uniform_real_distribution<double> fraction(0.0, 1.0);
  for (int i = 0; i < 100000; ++i) {
    const KernelTime::Value v = i < 1000 ? static_cast<KernelTime::Value>(i) : values(rng);
    const double ps = sc_core::sc_time::from_value(v).to_seconds() * 1e12;
    REQUIRE(KernelTime::to_ps(v) == ps);
    const double x = ps + fraction(rng) * 1000.0;  // what a pipe returns: any ps, not whole
    REQUIRE(KernelTime::from_ps(x) == sc_core::sc_time(x, sc_core::SC_PS).value());
  }
}
