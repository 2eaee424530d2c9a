#include <algorithm>
#include <deque>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <catch2/catch.hpp>

#include "arch/accelerators.hpp"
#include "bus/local_bus.hpp"
#include "checker/protocol_checker.hpp"
#include "config/load_arch.hpp"
#include "dma/dma.hpp"
#include "dram/ideal_dram.hpp"
#include "sim_check.hpp"
#include "sram/sram.hpp"

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

// A DMA bound to an ideal DRAM through a protocol checker (every simulating
// test checks the base protocol).
struct CheckedDma {
  IdealDram dram;
  Dma dma;
  ProtocolChecker checker{"checker"};
  CheckedDma(const DramConfig& d, const DmaConfig& c) : dram("dram", d), dma("dma", c) {
    dma.initiator_socket.bind(checker.target_socket);
    checker.initiator_socket.bind(dram.target_socket);
  }
};

DmaConfig bursts_of(int bytes) {
  DmaConfig c;
  c.burst_bytes = bytes;
  return c;
}
}  // namespace

// A temporally decoupled initiator: each access returns at once with its time
// annotated, and the next carries the local time on.
TEST_CASE("Ideal DRAM: a blocking access is annotated, bytes / bandwidth + latency, through the same pipe") {
  IdealDram dram("dram", ideal(64.0, 30.0));
  test::BareInitiator init("init");
  init.socket.bind(dram.target_socket);
  sc_time first_done, second_done, returned_at;
  test::Stimulus s("s", [&] {
    std::vector<std::uint8_t> buf(64);
    sc_time delay = sc_core::SC_ZERO_TIME;
    REQUIRE(init.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 64, delay) == tlm::TLM_OK_RESPONSE);
    first_done = sc_core::sc_time_stamp() + delay;
    init.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 64, delay);  // issued when the first returned, locally
    second_done = sc_core::sc_time_stamp() + delay;
    returned_at = sc_core::sc_time_stamp();
  });
  test::run_clean();
  CHECK(returned_at == sc_core::SC_ZERO_TIME);      // never waited
  CHECK(first_done == sc_time(1.0 + 30.0, SC_NS));  // 64 B at 64 GB/s = 1 ns
  CHECK(second_done == sc_time(2 * 31.0, SC_NS));
  CHECK(dram.bytes_read() == 128);
}

TEST_CASE("Ideal DRAM: out-of-range requests and empty byte enables get error responses") {
  DramConfig c = ideal(64.0, 0.0);
  c.capacity_gib = 1.0;
  IdealDram dram("dram", c);
  test::BareInitiator init("init");
  init.socket.bind(dram.target_socket);
  tlm::tlm_response_status beyond{}, empty_enables{};
  test::Stimulus s("s", [&] {
    std::vector<std::uint8_t> buf(64), be(64, 0xff);
    sc_time d = sc_core::SC_ZERO_TIME;
    beyond = init.access(tlm::TLM_WRITE_COMMAND, (1ull << 30) - 32, buf.data(), 64, d);
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(0);
    t.set_data_ptr(buf.data());
    t.set_data_length(64);
    t.set_streaming_width(64);
    t.set_byte_enable_ptr(be.data());
    t.set_byte_enable_length(0);
    init.socket->b_transport(t, d);
    empty_enables = t.get_response_status();
  });
  test::run_clean();
  CHECK(beyond == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(empty_enables == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
}

namespace {

// Byte enables, every other byte: disabled bytes are neither written nor read.
void honours_byte_enables(const DramConfig& c) {
  const std::unique_ptr<DramTarget> dram = make_dram("dram", c);
  test::BareInitiator init("init");
  init.socket.bind(dram->target_socket);
  std::vector<std::uint8_t> got(8, 0xee);
  test::Stimulus s("s", [&] {
    std::vector<std::uint8_t> ones(8, 0x11), twos(8, 0x22);
    std::uint8_t every_other[8] = {0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0};
    sc_time d = sc_core::SC_ZERO_TIME;
    REQUIRE(init.access(tlm::TLM_WRITE_COMMAND, 64, ones.data(), 8, d) == tlm::TLM_OK_RESPONSE);
    REQUIRE(init.access(tlm::TLM_WRITE_COMMAND, 64, twos.data(), 8, d, every_other) == tlm::TLM_OK_RESPONSE);
    REQUIRE(init.access(tlm::TLM_READ_COMMAND, 64, got.data(), 8, d, every_other) == tlm::TLM_OK_RESPONSE);
  });
  test::run_clean();
  CHECK(got == std::vector<std::uint8_t>{0x22, 0xee, 0x22, 0xee, 0x22, 0xee, 0x22, 0xee});
  std::vector<std::uint8_t> stored(8);
  dram->storage().read(64, stored.data(), 8);
  CHECK(stored == std::vector<std::uint8_t>{0x22, 0x11, 0x22, 0x11, 0x22, 0x11, 0x22, 0x11});
}

}  // namespace

TEST_CASE("Ideal DRAM honours byte enables") { honours_byte_enables(ideal(64.0, 0.0)); }
TEST_CASE("DDR4 controller honours byte enables") { honours_byte_enables(load_dram("ddr4-3200", {})); }

TEST_CASE("DMA: a sequential read reaches at least 99% of the ideal DRAM's peak") {
  CheckedDma rig(ideal(64.0, 0.0), DmaConfig{});
  IdealDram& dram = rig.dram;
  Dma& dma = rig.dma;
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
  ProtocolChecker checker("checker");  // every simulating test checks the base protocol
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(dram.target_socket);
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
  CheckedDma rig(ideal(64.0, 20.0), bursts_of(16));
  IdealDram& dram = rig.dram;
  Dma& dma = rig.dma;
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
  ProtocolChecker checker("checker");  // every simulating test checks the base protocol
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(dram.target_socket);
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

namespace {

// A memory from another library: it knows nothing of TimingOnly, honours byte
// enables, takes each request at once (END_REQ) and sends BEGIN_RESP on the
// backward path annotated with `latency` (legal in the base protocol: the
// response is due that much later).
class ForeignMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ForeignMemory> socket{"socket"};
  std::vector<std::uint8_t> bytes = std::vector<std::uint8_t>(4096, 0xab);
  std::uint64_t write_requests = 0;

  ForeignMemory(const sc_core::sc_module_name& name, sc_time latency) : sc_module(name), m_latency(latency) {
    socket.register_nb_transport_fw(this, &ForeignMemory::fw);
    SC_HAS_PROCESS(ForeignMemory);
    SC_METHOD(respond);
    sensitive << m_pending;
    dont_initialize();
  }

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_time&) {
    if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
    write_requests += t.is_write() ? 1 : 0;
    const unsigned char* be = t.get_byte_enable_ptr();
    for (unsigned i = 0; i < t.get_data_length(); ++i) {
      if (be && be[i % t.get_byte_enable_length()] != TLM_BYTE_ENABLED) continue;
      std::uint8_t& cell = bytes.at(t.get_address() + i);
      t.is_write() ? cell = t.get_data_ptr()[i] : t.get_data_ptr()[i] = cell;
    }
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    m_queue.push_back(&t);
    m_pending.notify(sc_core::SC_ZERO_TIME);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void respond() {
    while (!m_queue.empty()) {
      tlm::tlm_generic_payload* t = m_queue.front();
      m_queue.pop_front();
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      sc_time delay = m_latency;
      socket->nb_transport_bw(*t, phase, delay);
    }
  }

  sc_time m_latency;
  std::deque<tlm::tlm_generic_payload*> m_queue;
  sc_core::sc_event m_pending;
};

}  // namespace

TEST_CASE("DMA: a BEGIN_RESP annotated with a delay completes the burst when it is due") {
  ForeignMemory mem("mem", sc_time(100, SC_NS));
  Dma dma("dma", DmaConfig{});
  ProtocolChecker checker("checker");  // every simulating test checks the base protocol
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(mem.socket);
  std::iota(mem.bytes.begin(), mem.bytes.begin() + 256, 0);
  std::vector<std::uint8_t> got(256);
  sc_time done;
  test::Stimulus s("s", [&] {
    dma.read(0, 256, got.data());  // its bursts in flight together
    done = sc_core::sc_time_stamp();
  });
  test::run_clean();
  CHECK(std::equal(got.begin(), got.end(), mem.bytes.begin()));
  CHECK(done == sc_time(100, SC_NS));
}

TEST_CASE("DMA: a timing-only write leaves a memory that ignores TimingOnly untouched") {
  ForeignMemory mem("mem", sc_time(10, SC_NS));
  Dma dma("dma", DmaConfig{});
  ProtocolChecker checker("checker");  // every simulating test checks the base protocol
  dma.initiator_socket.bind(checker.target_socket);
  checker.initiator_socket.bind(mem.socket);
  test::Stimulus s("s", [&] { dma.write(128, 1000, nullptr); });
  test::run_clean();
  CHECK(std::all_of(mem.bytes.begin(), mem.bytes.end(), [](std::uint8_t b) { return b == 0xab; }));
  const auto burst = static_cast<std::uint64_t>(DmaConfig{}.burst_bytes);
  CHECK(mem.write_requests == (1000 + burst - 1) / burst);  // the transfer happened
}

namespace {

// A DMA, its ideal DRAM and an SRAM, for running one script of transfers
// with and without exclusive timing.
struct ExclusiveRig {
  IdealDram dram;
  Sram sram;
  Dma dma;
  ExclusiveRig(const char* name, bool exclusive)
      : dram(sc_core::sc_gen_unique_name(name), ideal(32.0, 40.0)),
        sram(sc_core::sc_gen_unique_name(name), SramConfig{}, 500.0),
        dma(sc_core::sc_gen_unique_name(name), [] {
          DmaConfig c;
          c.burst_bytes = 64;
          c.max_outstanding = 8;  // few slots: the window, not the pipe, often limits
          return c;
        }()) {
    dma.initiator_socket.bind(dram.target_socket);
    dma.sram_socket.bind(sram.target_socket);
    if (exclusive) dma.set_exclusive_timer(dram.burst_timer());
  }
};

// Two threads start transfers of every kind at staggered times: timing-only
// loads and stores through the SRAM, data-less reads and writes, 2-D blocks,
// and functional transfers that must take the socket, queued among the others.
void exclusive_script(ExclusiveRig& r, std::vector<sc_time>& ends, std::vector<std::uint8_t>& data) {
  std::vector<Dma::Transfer> open;
  open.push_back(r.dma.start_load(0, 4096, 1, 4096, 0, true));
  open.push_back(r.dma.start_read(1 << 20, 100, 7, 300, nullptr));
  sc_core::wait(37, SC_NS);
  open.push_back(r.dma.start_store(2 << 20, 1000, 3, 4096, 8192, true));
  open.push_back(r.dma.start_write(3 << 20, 640, 1, 640, data.data()));  // carries data: the socket
  open.push_back(r.dma.start_load(4 << 20, 96, 16, 1024, 16384, true, 128));
  for (auto& t : open) {
    Dma::wait_for(t);
    ends.push_back(sc_core::sc_time_stamp());
  }
  r.dma.read(3 << 20, 640, data.data() + 640);  // functional, after the others
  ends.push_back(sc_core::sc_time_stamp());
  for (int i = 0; i < 20; ++i) {  // a stream of small loads, each waited for
    r.dma.read(static_cast<std::uint64_t>(i) << 16, 64 * static_cast<std::uint64_t>(i + 1), nullptr);
    ends.push_back(sc_core::sc_time_stamp());
  }
}

void exclusive_side(ExclusiveRig& r, std::vector<sc_time>& ends) {
  sc_core::wait(55, SC_NS);
  for (int i = 0; i < 6; ++i) {
    Dma::wait_for(r.dma.start_store(5 << 20, 512, 2, 512, 32768, true));
    ends.push_back(sc_core::sc_time_stamp());
    sc_core::wait(static_cast<double>(i * 13), SC_NS);
  }
}

}  // namespace

TEST_CASE("DMA: exclusive timing gives every transfer the same end and the DRAM the same traffic as the socket") {
  ExclusiveRig fast("fast", true), socket("socket", false);
  std::vector<sc_time> fast_ends, socket_ends, fast_side, socket_side;
  std::vector<std::uint8_t> fast_data(1280), socket_data(1280);
  std::iota(fast_data.begin(), fast_data.begin() + 640, 1);
  std::iota(socket_data.begin(), socket_data.begin() + 640, 1);
  test::Stimulus a("a", [&] { exclusive_script(fast, fast_ends, fast_data); });
  test::Stimulus b("b", [&] { exclusive_side(fast, fast_side); });
  test::Stimulus c("c", [&] { exclusive_script(socket, socket_ends, socket_data); });
  test::Stimulus d("d", [&] { exclusive_side(socket, socket_side); });
  test::run_clean();
  REQUIRE(fast_ends.size() == 26);
  CHECK(fast_ends == socket_ends);
  CHECK(fast_side == socket_side);
  CHECK(fast.dram.bytes_read() == socket.dram.bytes_read());
  CHECK(fast.dram.bytes_written() == socket.dram.bytes_written());
  CHECK(fast.dram.stats().get(0) == socket.dram.stats().get(0));  // requests
  CHECK(fast.dram.stats().get(1) == socket.dram.stats().get(1));
  CHECK(fast.dma.stats().get(0) == socket.dma.stats().get(0));  // bursts
  CHECK(fast.sram.stats().get(0) == socket.sram.stats().get(0));
  CHECK(std::equal(fast_data.begin() + 640, fast_data.end(), fast_data.begin()));  // the data went and came back
  CHECK(fast.dma.exclusive_transfers() >= 20);  // the rest were queued behind data on the socket
  CHECK(fast.dma.exclusive_transfers() < 32);
  CHECK(socket.dma.exclusive_transfers() == 0);
}

TEST_CASE("DMA: a transfer's state is not reused while its end's notification is pending for the next delta") {
  // A data-less read ends through exclusive_done(), which notifies its end
  // for the next delta; a load started in that same delta (a thread woken at
  // that time runs after the method) is notified at once for its own end.
  // Were the read's state, no longer held, reused for the load, the pending
  // notification would swallow the load's, and its waiter would never wake.
  ExclusiveRig r("reuse", true);
  sc_time read_took, load_took, load_end;
  bool load_done = false;
  test::Stimulus s("s", [&] {
    sc_time t0 = sc_core::sc_time_stamp();
    Dma::wait_for(r.dma.start_read(0, 64, 1, 64, nullptr));  // alone: how long each takes from idle
    read_took = sc_core::sc_time_stamp() - t0;
    sc_core::wait(1, SC_NS);
    t0 = sc_core::sc_time_stamp();
    Dma::wait_for(r.dma.start_load(4096, 64, 1, 64, 0, true));
    load_took = sc_core::sc_time_stamp() - t0;
    sc_core::wait(1000, SC_NS);                  // idle again
    r.dma.start_read(8192, 64, 1, 64, nullptr);  // not held: its state goes back to the pool
    sc_core::wait(read_took);                    // its end, in the delta of its notification
    const Dma::Transfer load = r.dma.start_load(12288, 64, 1, 64, 0, true);
    t0 = sc_core::sc_time_stamp();
    Dma::wait_for(load);
    load_end = sc_core::sc_time_stamp() - t0;
    load_done = load.done();
  });
  test::run_clean();
  REQUIRE(read_took > sc_core::SC_ZERO_TIME);
  CHECK(load_done);
  CHECK(load_end == load_took);
  CHECK(r.dma.exclusive_transfers() == 4);
}

TEST_CASE("Ideal DRAM: a transfer's run of bursts gets the times and window of timing them one by one") {
  // The pipe inline (IdealDram::time_run) against the default, which calls
  // time_burst() per burst; both with the DMA's window of 4 slots.
  IdealDram inline_dram("inline_dram", ideal(51.2, 45.0)), one_by_one("one_by_one", ideal(51.2, 45.0));
  BurstWindow w_inline, w_one;
  for (BurstWindow* w : {&w_inline, &w_one}) {
    w->reset(4);
    for (int i = 0; i < 4; ++i) w->insert(0);
  }
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::uint64_t> rows(1, 5), row_bytes(1, 700), gap(0, 300), idle(0, 40000);
  BurstWindow::Value now = 0;
  for (int i = 0; i < 3000; ++i) {
    now += i % 7 == 0 ? idle(rng) : 0;  // now and then the pipe drains
    const std::uint64_t r = rows(rng), b = row_bytes(rng), stride = b + gap(rng);
    const tlm::tlm_command cmd = i % 3 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND;
    const auto end_inline = inline_dram.time_run(cmd, 0x1000, r, b, stride, 64, now, w_inline);
    const auto end_one = one_by_one.BurstTimer::time_run(cmd, 0x1000, r, b, stride, 64, now, w_one);
    REQUIRE(end_inline == end_one);
    REQUIRE(end_inline > now);
    REQUIRE(w_inline.last_send == w_one.last_send);
    REQUIRE(w_inline.front() == w_one.front());
  }
  // The pipes are in the same state too: the next burst's time is the same.
  CHECK(inline_dram.time_burst(tlm::TLM_READ_COMMAND, 0, 64, now) ==
        one_by_one.time_burst(tlm::TLM_READ_COMMAND, 0, 64, now));
}

TEST_CASE("Burst window: a run gives each burst the address, length and time of take() and sent() one by one") {
  // A memory that answers out of order (random latencies), so that a response
  // often goes into the window ahead of later ones; rows shorter and longer
  // than a burst, empty ones and ragged ends.
  BurstWindow run, one;
  for (BurstWindow* w : {&run, &one}) {
    w->reset(5);
    for (int i = 0; i < 5; ++i) w->insert(0);
  }
  std::mt19937_64 rng(23);
  std::uniform_int_distribution<std::uint64_t> rows(0, 4), row_bytes(0, 300), gap(0, 100), latency(1, 900),
      idle(0, 3000), burst_of(1, 3);
  BurstWindow::Value now = 0;
  std::size_t out_of_order = 0;
  for (int i = 0; i < 3000; ++i) {
    now += idle(rng);
    const std::uint64_t r = rows(rng), b = row_bytes(rng), stride = b + gap(rng), burst = 32 * burst_of(rng);
    // The run's bursts as its timer sees them, with the latencies drawn for them.
    struct Seen {
      std::uint64_t addr, len;
      BurstWindow::Value at, response;
    };
    std::vector<Seen> seen;
    const BurstWindow::Value end =
        run.run(0x4000, r, b, stride, burst, now, [&](std::uint64_t addr, std::uint64_t len, BurstWindow::Value at) {
          const BurstWindow::Value response = at + latency(rng);
          seen.push_back(Seen{addr, len, at, response});
          return response;
        });
    // The same bursts burst by burst.
    BurstWindow::Value latest = 0;
    std::size_t k = 0;
    for (std::uint64_t row = 0; row < r; ++row)
      for (std::uint64_t col = 0;;) {
        const std::uint64_t len = std::min(burst, b - col);
        REQUIRE(k < seen.size());
        CHECK(seen[k].addr == 0x4000 + row * stride + col);
        CHECK(seen[k].len == len);
        const BurstWindow::Value at = one.take(now);
        REQUIRE(seen[k].at == at);
        if (k > 0 && seen[k].response < seen[k - 1].response) ++out_of_order;
        one.sent(at, seen[k].response);
        latest = std::max(latest, seen[k].response);
        ++k;
        col += burst;
        if (col >= b) break;
      }
    CHECK(k == seen.size());
    CHECK(end == latest);
    REQUIRE(run.last_send == one.last_send);
    REQUIRE(run.front() == one.front());
  }
  CHECK(out_of_order > 1000);  // responses out of order: the window sorted them
}

TEST_CASE("Local bus: an access goes to the first window that holds it, whichever window the last one went to") {
  // Windows b and c overlap in [0x1800, 0x2000): b, attached first, holds it.
  LocalBus bus("bus");
  Sram a("a", SramConfig{}, 500.0), b("b", SramConfig{}, 500.0), c("c", SramConfig{}, 500.0);
  bus.attach(a.target_socket, 0x0, 0x1000);
  bus.attach(b.target_socket, 0x1000, 0x1000);
  bus.attach(c.target_socket, 0x1800, 0x1000);
  test::BareInitiator host("host");
  host.socket.bind(bus.target_socket);
  std::vector<tlm::tlm_response_status> status;
  test::Stimulus s("s", [&] {
    const auto write = [&](std::uint64_t addr, std::uint8_t value) {
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      status.push_back(host.access(tlm::TLM_WRITE_COMMAND, addr, &value, 1, d));
    };
    write(0x2400, 1);  // only c holds it
    write(0x1900, 2);  // b and c: b
    write(0x1900, 3);  // again, with b found last
    write(0x2400, 4);
    write(0x0010, 5);  // a, alone
    write(0x0011, 6);
    write(0x1910, 7);  // b, after a
    write(0x3000, 8);  // none
  });
  test::run_clean();
  REQUIRE(status.size() == 8);
  for (std::size_t i = 0; i < 7; ++i) CHECK(status[i] == tlm::TLM_OK_RESPONSE);
  CHECK(status[7] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(c.data()[0x2400 - 0x1800] == 4);
  CHECK(b.data()[0x1900 - 0x1000] == 3);
  CHECK(c.data()[0x1900 - 0x1800] == 0);  // never written through c
  CHECK(a.data()[0x10] == 5);
  CHECK(a.data()[0x11] == 6);
  CHECK(b.data()[0x1910 - 0x1000] == 7);
}

TEST_CASE("DMA: reads touching held ranges wait, in order, until released, and other transfers go on") {
  CheckedDma rig(ideal(64.0, 0.0), bursts_of(64));
  IdealDram& dram = rig.dram;
  Dma& dma = rig.dma;
  std::vector<std::uint8_t> written(128), got(128);
  std::iota(written.begin(), written.end(), 7);
  sc_time free_read, write_done, inside_done, straddle_done;
  bool held_at_release = false;
  test::Stimulus s("s", [&] {
    dma.hold_reads({{0x1000, 0x2000}});
    Dma::Transfer inside = dma.start_read(0x1000, 128, 1, 128, got.data());
    Dma::Transfer straddle = dma.start_read(0xfc0, 128, 1, 128, nullptr);  // its last 64 B are in the range
    dma.read(0x4000, 256, nullptr);                                        // outside: goes on at once
    free_read = sc_core::sc_time_stamp();
    dma.write(0x1000, 128, written.data());  // writes into the range are never held
    write_done = sc_core::sc_time_stamp();
    sc_core::wait(sc_time(100, SC_NS));
    held_at_release = !inside.done() && !straddle.done();
    dma.release_held_reads();
    Dma::wait_for(inside);
    inside_done = sc_core::sc_time_stamp();
    Dma::wait_for(straddle);
    straddle_done = sc_core::sc_time_stamp();
  });
  test::run_clean();
  CHECK(free_read == sc_time(4, SC_NS));  // 256 B at 64 GB/s, nothing ahead of it
  CHECK(write_done == sc_time(6, SC_NS));
  CHECK(held_at_release);
  CHECK(got == written);  // the held read saw the write made before its release
  const sc_time released = sc_time(106, SC_NS);
  CHECK(inside_done == released + sc_time(2, SC_NS));
  CHECK(straddle_done == released + sc_time(4, SC_NS));  // after the first held, in order
  CHECK(dram.bytes_read() == 512);
}
