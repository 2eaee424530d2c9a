// The DRAM models through TLM: the traffic generator (AT) against each preset,
// blocking access through the controller's timing, and the DMA against the
// controller. One simulation per test case.
#include <random>

#include <sys/wait.h>
#include <unistd.h>

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

namespace {

// A DMA, a timed controller and an SRAM, for running one script of transfers
// with the controller running itself and the DMA ahead of the kernel, and
// with every burst through the kernel's events.
struct RunAheadRig {
  DramController dram;
  Sram sram;
  Dma dma;
  RunAheadRig(const char* name, bool ahead, const DramConfig& c)
      : dram(sc_core::sc_gen_unique_name(name), c),
        sram(sc_core::sc_gen_unique_name(name), SramConfig{}, 500.0),
        dma(sc_core::sc_gen_unique_name(name), [] {
          DmaConfig d;
          d.burst_bytes = 128;
          d.max_outstanding = 24;
          return d;
        }()) {
    dma.initiator_socket.bind(dram.target_socket);
    dma.sram_socket.bind(sram.target_socket);
    if (ahead) dma.set_run_ahead_target(dram.run_ahead_target());
    dma.set_self_check(true);
  }
};

// Two threads start transfers of every kind at staggered times: long
// timing-only loads (run ahead), 2-D blocks, data-less reads, reads and
// writes that carry data, and stores through the SRAM (which keep the DMA on
// the kernel's events while queued).
void run_ahead_script(RunAheadRig& r, std::vector<sc_core::sc_time>& ends, std::vector<std::uint8_t>& data,
                      double& write_steps, double& drain_steps) {
  std::vector<Dma::Transfer> open;
  open.push_back(r.dma.start_load(0, 64 * 1024, 1, 64 * 1024, 0, true));
  open.push_back(r.dma.start_read(1 << 20, 200, 9, 4096, nullptr));
  sc_core::wait(331, sc_core::SC_NS);
  open.push_back(r.dma.start_write(3 << 20, 1024, 1, 1024, data.data()));
  open.push_back(r.dma.start_load(4 << 20, 96, 40, 8192, 16384, true, 128));
  open.push_back(r.dma.start_store(2 << 20, 1000, 3, 4096, 8192, true));
  open.push_back(r.dma.start_load(6 << 20, 32 * 1024, 1, 32 * 1024, 0, true));
  for (auto& t : open) {
    Dma::wait_for(t);
    ends.push_back(sc_core::sc_time_stamp());
  }
  r.dma.read(3 << 20, 1024, data.data() + 1024);  // the data back
  ends.push_back(sc_core::sc_time_stamp());
  for (int i = 0; i < 12; ++i) {  // loads waited for one by one, from idle
    Dma::wait_for(r.dma.start_load(static_cast<std::uint64_t>(i) << 18, 2048 * static_cast<std::uint64_t>(i + 1), 1,
                                   2048 * static_cast<std::uint64_t>(i + 1), 0, true));
    ends.push_back(sc_core::sc_time_stamp());
  }
  // Writes alone (data-less, then carrying data over what was read back):
  // the time steps run ahead meanwhile (posted: up to where one could end).
  const auto steps = static_cast<double>(r.dram.run_ahead_steps());
  const Dma::Transfer blank = r.dma.start_write(5 << 20, 4096, 64, 4096, nullptr);
  r.dma.write(3 << 20, 1024, data.data() + 1024);
  Dma::wait_for(blank);
  ends.push_back(sc_core::sc_time_stamp());
  write_steps = static_cast<double>(r.dram.run_ahead_steps()) - steps;
  // A load while a write drains (posted: the write ended when it was taken),
  // the drain waited for as an idle start waits for it, and a load started
  // then: the run ahead must stop where the drain wakes its waiter.
  const auto before = static_cast<double>(r.dram.run_ahead_steps());
  Dma::wait_for(r.dma.start_write(7 << 20, 24 * 1024, 1, 24 * 1024, nullptr));
  ends.push_back(sc_core::sc_time_stamp());
  const Dma::Transfer during = r.dma.start_read(9 << 20, 4096, 64, 4096, nullptr);
  while (r.dram.posted_pending() > 0) sc_core::wait(r.dram.posted_drained());
  ends.push_back(sc_core::sc_time_stamp());
  const Dma::Transfer after = r.dma.start_load(10 << 20, 16 * 1024, 1, 16 * 1024, 0, true);
  Dma::wait_for(during);
  ends.push_back(sc_core::sc_time_stamp());
  Dma::wait_for(after);
  ends.push_back(sc_core::sc_time_stamp());
  drain_steps = static_cast<double>(r.dram.run_ahead_steps()) - before;
  // Short reads queued ahead of writes: the bursts ahead of the first write,
  // counted as their responses come and their jobs leave (write_could_end).
  std::vector<Dma::Transfer> batch;
  for (int i = 0; i < 40; ++i) {
    const std::uint64_t at = static_cast<std::uint64_t>(i) << 12;
    batch.push_back(r.dma.start_read((15 << 20) + at, 384, 1, 384, nullptr));
    if (i % 13 == 12) batch.push_back(r.dma.start_write((16 << 20) + at, 1024, 1, 1024, nullptr));
  }
  for (const Dma::Transfer& t : batch) Dma::wait_for(t);
  ends.push_back(sc_core::sc_time_stamp());
  // Two descriptors sharing the DMA: a read held for the other's output, a
  // write queued ahead of the reads, and the held read released to the front.
  batch.clear();
  r.dma.hold_reads({{17 << 20, (17 << 20) + 4096}});
  for (int i = 0; i < 30; ++i) {
    const std::uint64_t at = static_cast<std::uint64_t>(i) << 12;
    batch.push_back(r.dma.start_read((18 << 20) + at, 384, 1, 384, nullptr));
    if (i == 10) batch.push_back(r.dma.start_read(17 << 20, 16 * 1024, 1, 16 * 1024, nullptr));  // held
    if (i == 20) batch.push_back(r.dma.start_write(19 << 20, 64 * 1024, 1, 64 * 1024, nullptr));
  }
  sc_core::wait(100, sc_core::SC_NS);  // the write still queued
  r.dma.release_held_reads();
  for (const Dma::Transfer& t : batch) Dma::wait_for(t);
  ends.push_back(sc_core::sc_time_stamp());
}

void run_ahead_side(RunAheadRig& r, std::vector<sc_core::sc_time>& ends) {
  sc_core::wait(517, sc_core::SC_NS);
  for (int i = 0; i < 8; ++i) {
    Dma::wait_for(r.dma.start_load((8 << 20) + (static_cast<std::uint64_t>(i) << 16), 8192, 1, 8192, 32768, true));
    ends.push_back(sc_core::sc_time_stamp());
    sc_core::wait(static_cast<double>(i * 47 + 3), sc_core::SC_NS);  // another process acting meanwhile
  }
  // A write queued behind a load, so that it leaves while running ahead, and
  // waited for first: whatever its end wakes must happen at that end.
  const Dma::Transfer load = r.dma.start_load(12 << 20, 16 * 1024, 1, 16 * 1024, 0, true);
  Dma::wait_for(r.dma.start_write(13 << 20, 2048, 1, 2048, nullptr));
  ends.push_back(sc_core::sc_time_stamp());
  r.dma.read(14 << 20, 512, nullptr);
  ends.push_back(sc_core::sc_time_stamp());
  Dma::wait_for(load);
  ends.push_back(sc_core::sc_time_stamp());
}

// What a run of the script gives: every transfer's end (ps), the command
// counts, the energy, the DMA's bursts, the SRAM's accesses, whether the data
// came back, and (last) the time steps run ahead while a write drained,
// while only writes were queued, and in all.
std::vector<double> run_ahead_run(bool ahead, const DramConfig& c) {
  RunAheadRig r("rig", ahead, c);
  std::vector<sc_core::sc_time> ends, side;
  std::vector<std::uint8_t> data(2048);
  for (std::size_t i = 0; i < 1024; ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 1);
  double write_steps = 0, drain_steps = 0;
  test::Stimulus a("a", [&] { run_ahead_script(r, ends, data, write_steps, drain_steps); });
  test::Stimulus b("b", [&] { run_ahead_side(r, side); });
  test::run_clean();
  std::vector<double> out;
  for (const auto& t : ends) out.push_back(t.to_seconds() * 1e12);
  for (const auto& t : side) out.push_back(t.to_seconds() * 1e12);
  const DramCommandCounts n = r.dram.counts();
  for (const std::uint64_t v : {n.act, n.pre, n.rd, n.wr, n.ref}) out.push_back(static_cast<double>(v));
  out.push_back(r.dram.energy_j(sc_core::sc_time_stamp()));
  out.push_back(r.dma.stats().get(0));
  out.push_back(r.sram.stats().get(0));
  out.push_back(std::equal(data.begin() + 1024, data.end(), data.begin()) ? 1.0 : 0.0);
  out.push_back(drain_steps);
  out.push_back(write_steps);
  out.push_back(static_cast<double>(r.dram.run_ahead_steps()));
  return out;
}

// The same run with every burst on the kernel's events, in a child process
// of its own (one simulation per process: no other process may act in the
// run-ahead run, or it would bound every run ahead).
std::vector<double> socket_run_in_child(const DramConfig& c) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    const std::vector<double> out = run_ahead_run(false, c);
    const std::size_t n = out.size();
    bool ok = write(fds[1], &n, sizeof n) == static_cast<ssize_t>(sizeof n);
    ok = ok && write(fds[1], out.data(), n * sizeof(double)) == static_cast<ssize_t>(n * sizeof(double));
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::size_t n = 0;
  std::vector<double> out;
  if (read(fds[0], &n, sizeof n) == static_cast<ssize_t>(sizeof n) && n < 4096) {
    out.resize(n);
    std::size_t got = 0;
    while (got < n * sizeof(double)) {
      const ssize_t r = read(fds[0], reinterpret_cast<char*>(out.data()) + got, n * sizeof(double) - got);
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    if (got != n * sizeof(double)) out.clear();
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return out;
}

void run_ahead_matches_socket(const std::string& preset, const std::vector<std::string>& sets) {
  const DramConfig c = load_dram(preset, sets);
  const std::vector<double> socket = socket_run_in_child(c);  // before this process elaborates anything
  const std::vector<double> ahead = run_ahead_run(true, c);
  REQUIRE(ahead.size() == 26 + 11 + 5 + 7);
  REQUIRE(socket.size() == ahead.size());
  for (std::size_t i = 0; i + 3 < ahead.size(); ++i) {
    INFO("figure " << i);
    CHECK(ahead[i] == socket[i]);  // the same, to the last bit
  }
  CHECK(ahead[ahead.size() - 4] == 1.0);  // the data went and came back
  INFO("time steps run ahead: " << ahead.back() << ", while writing: " << ahead[ahead.size() - 2]
                                << ", while a write drained: " << ahead[ahead.size() - 3]);
  CHECK(ahead.back() > 1000);
  CHECK(ahead[ahead.size() - 3] > 100);  // posted or not
  CHECK(socket.back() == 0);
  CHECK(ahead[ahead.size() - 2] > 100);  // posted or not
}

}  // namespace

TEST_CASE("Run ahead: lpddr5-6400 with short queues gives every transfer the same end and the same commands") {
  run_ahead_matches_socket("lpddr5-6400",
                           {"dram.read_queue=6", "dram.write_queue=8", "dram.write_high=6", "dram.write_low=2"});
}

TEST_CASE("Run ahead: ddr4-3200, closed page, gives every transfer the same end and the same commands") {
  run_ahead_matches_socket("ddr4-3200", {"dram.page_policy=closed", "dram.ranks=2"});
}

TEST_CASE("Run ahead: ddr4-3200 with posted writes gives every transfer the same end and the same commands") {
  run_ahead_matches_socket("ddr4-3200",
                           {"dram.posted_writes=true", "dram.write_queue=8", "dram.write_high=6", "dram.write_low=0"});
}

namespace {

// Two controllers of one preset, one with channel classes and one with every
// channel on its own, each behind a DMA of its own, driven by the same
// pseudo-random script in one simulation.
struct ClassRig {
  DramController dram;
  Sram sram;
  Dma dma;
  ClassRig(const char* name, bool share, const DramConfig& c, int dma_burst)
      : dram(sc_core::sc_gen_unique_name(name), c, share),
        sram(sc_core::sc_gen_unique_name(name), SramConfig{}, 500.0),
        dma(sc_core::sc_gen_unique_name(name), [dma_burst] {
          DmaConfig d;
          d.burst_bytes = dma_burst;
          d.max_outstanding = 16;
          return d;
        }()) {
    dma.initiator_socket.bind(dram.target_socket);
    dma.sram_socket.bind(sram.target_socket);
  }
};

// Transfers of every kind and of sizes and alignments that give channels
// the same bursts (256 B on a 256-B boundary) and others that do not (16 B,
// 100 B, 4 KiB from an odd 32 B), a few outstanding at a time, with pauses
// short and long (power-down, refreshes while idle); each transfer's end
// goes to `ends`.
void class_script(ClassRig& r, std::uint64_t seed, std::vector<sc_core::sc_time>& ends) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng); };
  static const std::uint64_t sizes[] = {16, 32, 64, 100, 128, 256, 256, 256, 512, 1024, 4096, 4096, 8192, 3000};
  std::vector<Dma::Transfer> open;
  for (int i = 0; i < 160; ++i) {
    const std::uint64_t bytes = sizes[pick(std::size(sizes))];
    const std::uint64_t rows = 1 + pick(3) / 2;
    const bool aligned = pick(3) != 0;
    const std::uint64_t addr = (seed << 24) + pick(1 << 10) * 4096 + (aligned ? 0 : 32 * pick(8) + 16 * pick(2));
    const std::uint64_t stride = bytes + 256 * pick(4);
    switch (pick(4)) {
      case 0:
        open.push_back(r.dma.start_load(addr, bytes, rows, stride, 0, true));
        break;
      case 1:
        open.push_back(r.dma.start_read(addr, bytes, rows, stride, nullptr));
        break;
      case 2:
        open.push_back(r.dma.start_write(addr, bytes, rows, stride, nullptr));
        break;
      default:
        open.push_back(r.dma.start_store(addr, bytes, rows, stride, 0, true));
        break;
    }
    if (open.size() >= 1 + pick(4)) {
      for (auto& t : open) {
        Dma::wait_for(t);
        ends.push_back(sc_core::sc_time_stamp());
      }
      open.clear();
    }
    const std::uint64_t pause = pick(10);
    if (pause >= 7) sc_core::wait(static_cast<double>(pause == 9 ? 20000 + pick(20000) : pick(2000)), sc_core::SC_NS);
  }
  for (auto& t : open) {
    Dma::wait_for(t);
    ends.push_back(sc_core::sc_time_stamp());
  }
}

// The figures of one rig: every end (ps), the command counts, the energy,
// the controller's statistics (data bus, power-down), the DMA's bursts.
std::vector<double> class_figures(const ClassRig& r, const std::vector<sc_core::sc_time>& ends) {
  std::vector<double> out;
  for (const auto& t : ends) out.push_back(t.to_seconds() * 1e12);
  const DramCommandCounts n = r.dram.counts();
  for (const std::uint64_t v : {n.act, n.pre, n.rd, n.wr, n.ref}) out.push_back(static_cast<double>(v));
  out.push_back(r.dram.energy_j(sc_core::sc_time_stamp()));
  const DramChannel::Residency res = r.dram.residency(sc_core::sc_time_stamp());
  for (const auto v : {res.idle_active, res.idle_precharged, res.down_active, res.down_precharged})
    out.push_back(static_cast<double>(v));
  out.push_back(static_cast<double>(res.exits));
  for (const auto& s : r.dram.stats().stats()) out.push_back(s.value);
  for (const auto& s : r.dma.stats().stats()) out.push_back(s.value);
  return out;
}

void classes_match_channels_alone(const std::string& preset, const std::vector<std::string>& sets, int dma_burst) {
  const DramConfig c = load_dram(preset, sets);
  ClassRig shared("shared", true, c, dma_burst), alone("alone", false, c, dma_burst);
  std::vector<sc_core::sc_time> ends[2][2];
  test::Stimulus s0("s0", [&] { class_script(shared, 1, ends[0][0]); });
  test::Stimulus s1("s1", [&] { class_script(shared, 2, ends[0][1]); });
  test::Stimulus a0("a0", [&] { class_script(alone, 1, ends[1][0]); });
  test::Stimulus a1("a1", [&] { class_script(alone, 2, ends[1][1]); });
  test::run_clean();
  std::vector<sc_core::sc_time> all[2];
  for (int k = 0; k < 2; ++k) {
    all[k] = ends[k][0];
    all[k].insert(all[k].end(), ends[k][1].begin(), ends[k][1].end());
  }
  shared.dram.flush_stats(sc_core::sc_time_stamp());
  alone.dram.flush_stats(sc_core::sc_time_stamp());
  const std::vector<double> a = class_figures(shared, all[0]), b = class_figures(alone, all[1]);
  REQUIRE(all[0].size() == 2 * 160);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("figure " << i);
    CHECK(a[i] == b[i]);  // the same, to the last bit
  }
  // The classes did split and merge: the comparison is not of two
  // controllers that never shared a channel.
  INFO("splits " << shared.dram.class_splits() << ", merges " << shared.dram.class_merges());
  CHECK(shared.dram.class_splits() > 10);
  CHECK(shared.dram.class_merges() > 10);
  CHECK(alone.dram.class_splits() == 0);
  CHECK(alone.dram.channel_classes() == static_cast<std::size_t>(c.channels));
}

}  // namespace

TEST_CASE("Channel classes: lpddr5-6400 gives the same ends, commands, energy and residency as channels alone") {
  classes_match_channels_alone("lpddr5-6400", {}, 256);
}

TEST_CASE("Channel classes: ddr4-3200, two ranks, closed page, posted writes, the same as channels alone") {
  classes_match_channels_alone("ddr4-3200", {"dram.ranks=2", "dram.page_policy=closed", "dram.posted_writes=true"},
                               128);
}

TEST_CASE("Channel classes: hbm2's sixteen channels, short queues, the same as channels alone") {
  classes_match_channels_alone(
      "hbm2", {"dram.read_queue=4", "dram.write_queue=4", "dram.write_high=3", "dram.write_low=1"}, 1024);
}
