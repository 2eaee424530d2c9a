#include "soak_rig.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "arch/accelerators.hpp"
#include "common/report_handler.hpp"
#include "pack/image.hpp"

namespace eva::soak {

namespace {

using regs::ErrorCode;
using regs::Reg;
using sc_core::SC_NS;
using sc_core::sc_time;

constexpr std::uint32_t done_bit = regs::status_done.mask(), error_bit = regs::status_error.mask(),
                        busy_bit = regs::status_busy.mask();

std::string code_name(std::uint32_t code) {
  return code <= static_cast<std::uint32_t>(ErrorCode::chain_limit) ? error_name(static_cast<ErrorCode>(code))
                                                                    : fmt::format("code {}", code);
}

}  // namespace

SoakRig::SoakRig(const sc_core::sc_module_name& name, const ArchConfig& arch, const Options& options)
    : sc_module(name),
      m_arch(arch),
      m_options(options),
      m_dram(make_dram("dram", arch.dram)),
      m_accel(make_accelerator(arch)),
      m_generator(arch, options.seed,
                  [this](std::uint64_t m, std::uint64_t n, std::uint64_t k) {
                    const OperandBytes b = m_accel->operand_bytes(m, n, k);
                    return OperandSizes{b.activations, b.weights, b.codebooks, b.outputs};
                  }),
      m_host_rng(options.seed ^ 0x5eed) {
  if (arch.sim.check_protocol) {
    m_checker = std::make_unique<ProtocolChecker>("checker");
    m_accel->memory_socket().bind(m_checker->target_socket);
    m_checker->initiator_socket.bind(m_dram->target_socket);
  } else {
    m_accel->memory_socket().bind(m_dram->target_socket);
  }
  m_periph = std::make_unique<Peripheral>("periph", *m_accel, peripheral_config(arch));
  m_periph->irq(m_irq);
  host_socket.bind(m_periph->target_socket);
  SC_HAS_PROCESS(SoakRig);
  SC_THREAD(host);
}

std::string SoakRig::where() const { return m_where; }

// ---- registers ----------------------------------------------------------------

void SoakRig::access(tlm::tlm_command cmd, Reg r, std::uint8_t* b) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(static_cast<std::uint32_t>(r));
  t.set_data_ptr(b);
  t.set_data_length(4);
  t.set_streaming_width(4);
  sc_time d = sc_core::SC_ZERO_TIME;
  host_socket->b_transport(t, d);
  wait(d);
  if (t.get_response_status() != tlm::TLM_OK_RESPONSE)
    mismatch(fmt::format("{} of register 0x{:x}: {}", cmd == tlm::TLM_READ_COMMAND ? "read" : "write",
                         static_cast<std::uint32_t>(r), t.get_response_string()));
}

std::uint32_t SoakRig::rd(Reg r) {
  std::uint8_t b[4] = {};
  access(tlm::TLM_READ_COMMAND, r, b);
  return static_cast<std::uint32_t>(b[0] | b[1] << 8 | b[2] << 16) | static_cast<std::uint32_t>(b[3]) << 24;
}

std::uint64_t SoakRig::rd64(Reg lo) {
  const std::uint64_t low = rd(lo);
  return low | static_cast<std::uint64_t>(rd(static_cast<Reg>(static_cast<std::uint32_t>(lo) + 4))) << 32;
}

void SoakRig::wr(Reg r, std::uint32_t v) {
  std::uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
  access(tlm::TLM_WRITE_COMMAND, r, b);
}

void SoakRig::mismatch(const std::string& what) {
  std::string m = fmt::format("seed {}, {}: {}", m_options.seed, where(), what);
  if (m_stats.mismatches.empty()) m_stats.replay_count = m_generator.descriptors();
  if (m_stats.mismatches.size() < 50) std::cerr << "MISMATCH " << m << "\n";
  m_stats.mismatches.push_back(std::move(m));
}

std::string SoakRig::record_name(const Batch& b, std::size_t r) const {
  const Record& rec = b.records[r];
  return fmt::format("descriptor {} at 0x{:x} ({})", rec.index, rec.addr, rec.what);
}

// ---- the host ---------------------------------------------------------------------

void SoakRig::host() {
  while (m_generator.descriptors() < m_options.count) {
    const Batch b = m_generator.next();
    m_where = fmt::format("batch {} (descriptors {} to {}, mode {})", b.index, b.records.front().index,
                          b.records.back().index, mode_name(b.mode));
    run_batch(b);
    for (; m_reported_problems < SystemcReports::problems().size(); ++m_reported_problems)
      mismatch("SystemC: " + SystemcReports::problems()[m_reported_problems]);
  }
  m_where = "after the last batch";
  m_finished = true;
  sc_core::sc_stop();
}

void SoakRig::run_batch(const Batch& b) {
  ++m_stats.batches;
  ++m_stats.modes[b.mode];
  for (const Record& r : b.records) ++m_stats.generated[r.category];
  if (m_options.verbose) {
    std::cout << fmt::format("batch {}: mode {}, ring 0x{:x} x {}, slots from {}{}{}\n", b.index, mode_name(b.mode),
                             b.ring.base, b.ring.size, b.first_slot, b.soft_reset ? ", soft reset first" : "",
                             b.misconfig != Misconfig::none ? ", a misconfigured doorbell first" : "");
    for (std::size_t r = 0; r < b.records.size(); ++r)
      std::cout << fmt::format("  entry {}: {} -> {}\n", b.records[r].entry, record_name(b, r),
                               b.records[r].error == ErrorCode::none ? "runs" : error_name(b.records[r].error));
  }

  if (b.soft_reset) {
    wr(Reg::ctrl, regs::ctrl_soft_reset.mask());
    ++m_stats.soft_resets;
    for (Reg r : {Reg::ctrl, Reg::status, Reg::error_code, Reg::ring_size, Reg::ring_head, Reg::ring_tail})
      if (const std::uint32_t v = rd(r))
        mismatch(fmt::format("after a soft reset, register 0x{:x} reads 0x{:x}", static_cast<std::uint32_t>(r), v));
    if (rd64(Reg::desc_done_lo) != 0 || rd64(Reg::desc_failed_lo) != 0)
      mismatch("after a soft reset, DESC_DONE or DESC_FAILED is not 0");
    m_done = m_failed = 0;
    m_tail = 0;
  }
  if (b.program_ring) {
    wr(Reg::ring_base_lo, static_cast<std::uint32_t>(b.ring.base));
    wr(Reg::ring_base_hi, static_cast<std::uint32_t>(b.ring.base >> 32));
    wr(Reg::ring_size, b.ring.size);
    const std::uint64_t base = rd(Reg::ring_base_lo) | static_cast<std::uint64_t>(rd(Reg::ring_base_hi)) << 32;
    const std::uint32_t size = rd(Reg::ring_size), head = rd(Reg::ring_head), tail = rd(Reg::ring_tail);
    if (base != b.ring.base || size != b.ring.size || head != 0 || tail != 0)
      mismatch(fmt::format("the ring reads back as 0x{:x} x {}, HEAD {}, TAIL {} (written 0x{:x} x {})", base, size,
                           head, tail, b.ring.base, b.ring.size));
    m_tail = 0;
    ++m_stats.ring_moves;
  }
  const bool irq = b.mode != Mode::poll;
  const std::uint32_t enable = regs::ctrl_enable.mask(), irq_enable = irq ? regs::ctrl_irq_enable.mask() : 0;
  wr(Reg::ctrl, (b.mode == Mode::late_enable ? 0 : enable) | irq_enable);
  if (b.misconfig != Misconfig::none) misconfigured_doorbell(b);
  if (m_tail != b.first_slot)
    mismatch(fmt::format("the host's RING_TAIL {} is not the plan's {}", m_tail, b.first_slot));

  // Memory: descriptors and operands, and the outputs' canaries.
  SparseStorage& mem = m_dram->storage();
  for (const Segment& s : b.inputs) mem.write(s.addr, s.bytes.data(), s.bytes.size());
  for (const OutputBlock& o : b.outputs) mem.write(o.canary.addr, o.canary.bytes.data(), o.canary.bytes.size());

  // The traffic counters before the batch (their growth is checked after it).
  const Traffic before{rd64(Reg::dram_read_lo), rd64(Reg::dram_written_lo), rd64(Reg::cycles_busy_lo)};
  const std::uint32_t last = b.last_slot();
  std::vector<Observed> observed;
  std::uint64_t reset_head = ~0ull;
  switch (b.mode) {
    case Mode::irq:
      wr(Reg::ring_tail, last);
      wr(Reg::doorbell, 1);
      wait_interrupts(b, observed);
      break;
    case Mode::trickle:
      for (std::size_t e = 0; e < b.entries.size(); ++e) {
        wr(Reg::ring_tail, static_cast<std::uint32_t>((b.first_slot + e + 1) % b.ring.size));
        wr(Reg::doorbell, 1);
        wait(sc_time(static_cast<double>(m_host_rng.between(0, 3000)), SC_NS));
      }
      wait_interrupts(b, observed);
      break;
    case Mode::poll:
      wr(Reg::ring_tail, last);
      wr(Reg::doorbell, 1);
      if (poll_done(b)) {
        const std::uint32_t status = rd(Reg::status);
        if (status & error_bit)
          observed.push_back({rd(Reg::error_code), rd64(Reg::error_addr_lo), m_periph->error_message()});
        if (m_irq.read()) mismatch("the interrupt is high with CTRL.IRQ_ENABLE clear");
        wr(Reg::status, done_bit | error_bit);
      }
      break;
    case Mode::late_enable: {
      wr(Reg::ring_tail, last);
      wr(Reg::doorbell, 1);  // ENABLE clear: ignored
      wait(sc_time(static_cast<double>(m_host_rng.between(1, 2000)), SC_NS));
      const std::uint32_t status = rd(Reg::status), head = rd(Reg::ring_head);
      if (status != 0 || head != b.first_slot)
        mismatch(fmt::format("a doorbell with CTRL.ENABLE clear: STATUS 0x{:x}, RING_HEAD {} (expected 0, {})", status,
                             head, b.first_slot));
      wr(Reg::ctrl, enable | irq_enable);
      wait_interrupts(b, observed);
      break;
    }
    case Mode::pause: {
      wr(Reg::ring_tail, last);
      wr(Reg::doorbell, 1);
      wait(sc_time(static_cast<double>(m_host_rng.log_between(1, 20000)), SC_NS));
      wr(Reg::ctrl, irq_enable);  // ENABLE clear: the entry in flight ends, no other starts
      const std::uint32_t cleared = rd(Reg::ring_head);
      const sc_time deadline = sc_core::sc_time_stamp() + sc_time(m_options.timeout_ms, sc_core::SC_MS);
      while ((rd(Reg::status) & busy_bit) && sc_core::sc_time_stamp() <= deadline)
        wait(sc_time(static_cast<double>(m_host_rng.between(10, 1000)), SC_NS));
      const std::uint32_t head = rd(Reg::ring_head);
      wait(sc_time(static_cast<double>(m_host_rng.log_between(1, 20000)), SC_NS));
      const std::uint32_t status = rd(Reg::status), later = rd(Reg::ring_head);
      if ((status & busy_bit) || later != head || (head + b.ring.size - cleared) % b.ring.size > 1)
        mismatch(fmt::format("with CTRL.ENABLE clear: STATUS 0x{:x}, RING_HEAD {} when cleared, {} once idle, {} later",
                             status, cleared, head, later));
      wr(Reg::ctrl, enable | irq_enable);
      wait_interrupts(b, observed);
      break;
    }
    case Mode::reset: {
      wr(Reg::ring_tail, last);
      wr(Reg::doorbell, 1);
      wait(sc_time(static_cast<double>(m_host_rng.log_between(1, 50000)), SC_NS));
      reset_head = rd(Reg::ring_head);
      wr(Reg::ctrl, regs::ctrl_soft_reset.mask());
      ++m_stats.soft_resets;
      // The operation in flight runs to its end, with no effect on the registers.
      const sc_time deadline = sc_core::sc_time_stamp() + sc_time(m_options.timeout_ms, sc_core::SC_MS);
      while (rd(Reg::status) & busy_bit) {
        if (sc_core::sc_time_stamp() > deadline) {
          mismatch("STATUS.BUSY still set long after a soft reset");
          break;
        }
        wait(sc_time(static_cast<double>(m_host_rng.between(10, 1000)), SC_NS));
      }
      for (Reg r : {Reg::ctrl, Reg::status, Reg::error_code, Reg::ring_size, Reg::ring_head, Reg::ring_tail})
        if (const std::uint32_t v = rd(r))
          mismatch(fmt::format("after a soft reset during a batch, register 0x{:x} reads 0x{:x}",
                               static_cast<std::uint32_t>(r), v));
      if (rd64(Reg::desc_done_lo) != 0 || rd64(Reg::desc_failed_lo) != 0)
        mismatch("after a soft reset during a batch, DESC_DONE or DESC_FAILED is not 0");
      wait(sc_time(1, SC_NS));
      if (m_irq.read()) mismatch("the interrupt is high after a soft reset");
      m_done = m_failed = 0;
      m_tail = 0;
      break;
    }
  }

  if (b.mode != Mode::reset) {
    check_failures(b, observed);
    check_counters(b, before);
    m_tail = last;
  }
  check_memory(b, reset_head);
}

// A doorbell with RING_TAIL beyond the ring or RING_SIZE 0: RING_CONFIG at the
// ring's base, no descriptor counted; ignored while CTRL.ENABLE is clear.
void SoakRig::misconfigured_doorbell(const Batch& b) {
  if (b.misconfig == Misconfig::tail_beyond)
    wr(Reg::ring_tail, b.bad_tail);
  else
    wr(Reg::ring_size, 0);
  wr(Reg::doorbell, 1);
  wait(sc_time(static_cast<double>(m_host_rng.between(1, 100)), SC_NS));
  const std::uint32_t status = rd(Reg::status);
  if (b.mode == Mode::late_enable) {
    if (status != 0) mismatch(fmt::format("a misconfigured doorbell with ENABLE clear: STATUS 0x{:x}", status));
  } else {
    ++m_stats.failed[ErrorCode::ring_config];
    const std::uint32_t code = rd(Reg::error_code);
    const std::uint64_t addr = rd64(Reg::error_addr_lo);
    if (status != error_bit || code != static_cast<std::uint32_t>(ErrorCode::ring_config) || addr != b.ring.base)
      mismatch(fmt::format(
          "a doorbell with {}: STATUS 0x{:x}, ERROR_CODE {}, ERROR_ADDR 0x{:x} (expected 0x{:x}, "
          "RING_CONFIG, 0x{:x})",
          b.misconfig == Misconfig::tail_beyond ? fmt::format("RING_TAIL {}", b.bad_tail) : std::string("RING_SIZE 0"),
          status, code_name(code), addr, error_bit, b.ring.base));
    if (b.mode != Mode::poll && !m_irq.read()) mismatch("no interrupt for RING_CONFIG");
    if (rd64(Reg::desc_failed_lo) != m_failed) mismatch("RING_CONFIG counted as a failed descriptor");
    wr(Reg::status, error_bit);
  }
  if (b.misconfig == Misconfig::tail_beyond) {
    wr(Reg::ring_tail, m_tail);
  } else {
    wr(Reg::ring_size, b.ring.size);  // HEAD and TAIL back to 0
    m_tail = 0;
  }
}

// Waits on the interrupt until the ring is empty, reading and clearing each
// error as it comes; false (a mismatch) if it never comes.
bool SoakRig::wait_interrupts(const Batch& b, std::vector<Observed>& observed) {
  const sc_time deadline = sc_core::sc_time_stamp() + sc_time(m_options.timeout_ms, sc_core::SC_MS);
  const std::uint32_t last = b.last_slot();
  for (;;) {
    if (!m_irq.read()) {
      const sc_time now = sc_core::sc_time_stamp();
      if (now < deadline) wait(deadline - now, m_irq.posedge_event());
      if (!m_irq.read()) {
        mismatch(fmt::format("no interrupt within {} ms (RING_HEAD {}, expected {})", m_options.timeout_ms,
                             rd(Reg::ring_head), last));
        return false;
      }
    }
    const std::uint32_t status = rd(Reg::status);
    if (!(status & (done_bit | error_bit))) {
      // The line follows STATUS a delta cycle or two later: with register
      // accesses that take no time (periph.register_cycles 0) the host can
      // see it high just after clearing the bits. It must not stay high.
      wait(sc_time(1, SC_NS));
      if (m_irq.read() && !(rd(Reg::status) & (done_bit | error_bit))) {
        mismatch(fmt::format("the interrupt is high with STATUS 0x{:x}", status));
        return false;
      }
      continue;
    }
    if (status & error_bit) {
      observed.push_back({rd(Reg::error_code), rd64(Reg::error_addr_lo), m_periph->error_message()});
      wr(Reg::status, error_bit);
    }
    if (status & done_bit) {
      wr(Reg::status, done_bit);
      const std::uint32_t head = rd(Reg::ring_head), now = rd(Reg::status);
      if (head == last && !(now & busy_bit)) {
        // Idle: what was raised since the first read of STATUS is all there is.
        if (now & error_bit) {
          observed.push_back({rd(Reg::error_code), rd64(Reg::error_addr_lo), m_periph->error_message()});
          wr(Reg::status, error_bit);
        }
        if (now & done_bit) wr(Reg::status, done_bit);
        break;
      }
    }
  }
  wait(sc_time(1, SC_NS));
  if (const std::uint32_t status = rd(Reg::status)) mismatch(fmt::format("STATUS 0x{:x} after clearing it", status));
  if (m_irq.read()) mismatch("the interrupt stays high after DONE and ERROR are cleared");
  return true;
}

// Polls STATUS until the ring is empty; false (a mismatch) on a timeout.
bool SoakRig::poll_done(const Batch& b) {
  const sc_time deadline = sc_core::sc_time_stamp() + sc_time(m_options.timeout_ms, sc_core::SC_MS);
  const std::uint32_t last = b.last_slot();
  for (;;) {
    const std::uint32_t status = rd(Reg::status);
    if ((status & done_bit) && !(status & busy_bit) && rd(Reg::ring_head) == last) return true;
    if (sc_core::sc_time_stamp() > deadline) {
      mismatch(fmt::format("the ring not empty after {} ms (STATUS 0x{:x}, RING_HEAD {}, expected {})",
                           m_options.timeout_ms, status, rd(Reg::ring_head), last));
      return false;
    }
    wait(sc_time(static_cast<double>(m_host_rng.log_between(1, 20000)), SC_NS));
  }
}

// Every failure reported with its code and address: one by one with the
// interrupt, the first of the batch when polling (ERROR latches the first).
void SoakRig::check_failures(const Batch& b, const std::vector<Observed>& observed) {
  const std::size_t expected = b.mode == Mode::poll ? std::min<std::size_t>(1, b.failures.size()) : b.failures.size();
  for (std::size_t i = 0; i < std::max(expected, observed.size()); ++i) {
    if (i >= expected) {
      mismatch(fmt::format("an unexpected error: ERROR_CODE {}, ERROR_ADDR 0x{:x} ({})", code_name(observed[i].code),
                           observed[i].addr, observed[i].message));
      continue;
    }
    const Failure& f = b.failures[i];
    const std::string who = record_name(b, f.record);
    if (i >= observed.size()) {
      mismatch(fmt::format("{}: no error reported (expected {})", who, error_name(f.code)));
      continue;
    }
    const Observed& o = observed[i];
    if (o.code != static_cast<std::uint32_t>(f.code) || o.addr < f.addr_lo || o.addr > f.addr_hi)
      mismatch(fmt::format("{}: ERROR_CODE {}, ERROR_ADDR 0x{:x} (expected {} in [0x{:x}, 0x{:x}]); {}", who,
                           code_name(o.code), o.addr, error_name(f.code), f.addr_lo, f.addr_hi, o.message));
  }
  for (const Failure& f : b.failures) ++m_stats.failed[f.code];
}

void SoakRig::check_counters(const Batch& b, const Traffic& before) {
  // Each fetch reads a descriptor (a failed burst counts as issued); each run
  // of a functional GEMM writes its outputs; a completed descriptor takes
  // busy cycles (a fetch refused at once by the memory may take none).
  std::uint64_t fetches = b.done, written = 0;
  for (const Failure& f : b.failures) fetches += f.code != ErrorCode::chain_limit;
  for (const OutputBlock& o : b.outputs)
    if (o.functional)
      for (const OutputExpect& e : o.outputs) written += b.runs[o.record] * e.bytes;
  const Traffic after{rd64(Reg::dram_read_lo), rd64(Reg::dram_written_lo), rd64(Reg::cycles_busy_lo)};
  if (after.read - before.read < fetches * regs::desc_bytes || after.written - before.written < written ||
      (b.done > 0 && after.busy == before.busy))
    mismatch(fmt::format(
        "DRAM_READ +{}, DRAM_WRITTEN +{}, CYCLES_BUSY +{} for {} descriptor fetches and {} B of "
        "outputs",
        after.read - before.read, after.written - before.written, after.busy - before.busy, fetches, written));
  if (const std::uint32_t code = rd(Reg::error_code))
    mismatch(fmt::format("ERROR_CODE {} once cleared", code_name(code)));
  m_done += b.done;
  m_failed += b.failed;
  m_stats.completed += b.done;
  const std::uint64_t done = rd64(Reg::desc_done_lo), failed = rd64(Reg::desc_failed_lo);
  const std::uint32_t head = rd(Reg::ring_head), tail = rd(Reg::ring_tail);
  if (done != m_done || failed != m_failed)
    mismatch(fmt::format("DESC_DONE {}, DESC_FAILED {} (expected {}, {})", done, failed, m_done, m_failed));
  if (head != b.last_slot() || tail != b.last_slot())
    mismatch(fmt::format("RING_HEAD {}, RING_TAIL {} (expected {} both)", head, tail, b.last_slot()));
  m_done = done;  // no cascade from one mismatch
  m_failed = failed;
}

// Inputs unchanged; each output block as its descriptor's fate says.
void SoakRig::check_memory(const Batch& b, std::uint64_t reset_head) {
  const SparseStorage& mem = m_dram->storage();
  std::vector<std::uint8_t> got;
  const auto read = [&](std::uint64_t addr, std::uint64_t n) {
    got.resize(n);
    mem.read(addr, got.data(), n);
  };
  for (const Segment& s : b.inputs) {
    read(s.addr, s.bytes.size());
    if (got != s.bytes) {
      const auto at = std::mismatch(got.begin(), got.end(), s.bytes.begin()).first - got.begin();
      mismatch(
          fmt::format("memory the accelerator only reads changed at 0x{:x}", s.addr + static_cast<std::uint64_t>(at)));
    }
  }
  // A reset during the batch: the entries before RING_HEAD (read just before
  // it) completed; that one and the next two may have started; none later.
  const std::uint64_t finished = b.mode == Mode::reset ? (reset_head + b.ring.size - b.first_slot) % b.ring.size : 0;
  const auto undecided = [&](std::size_t r) {
    return b.mode == Mode::reset && b.records[r].entry >= finished && b.records[r].entry <= finished + 2;
  };
  const auto skipped = [&](std::size_t r) { return b.mode == Mode::reset && b.records[r].entry > finished + 2; };
  for (std::size_t r = 0; r < b.records.size(); ++r)
    if (b.records[r].in_memory && b.records[r].error == ErrorCode::none && !undecided(r) && (skipped(r) || !b.ran[r]))
      ++m_stats.dropped;
  for (const OutputBlock& o : b.outputs) {
    const std::size_t r = o.record;
    const Record& rec = b.records[r];
    read(o.canary.addr, o.canary.bytes.size());
    // Bytes the descriptor may write: its outputs, if functional and started.
    const bool started = !skipped(r) && (undecided(r) || b.ran[r]);
    const bool completed = !skipped(r) && !undecided(r) && b.runs[r] > 0 && rec.error == ErrorCode::none;
    std::vector<bool> writable(got.size(), false);
    if (o.functional && started)
      for (const OutputExpect& e : o.outputs)
        for (std::uint64_t i = 0; i < e.bytes; ++i) writable[e.addr - o.canary.addr + i] = true;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!writable[i] && got[i] != o.canary.bytes[i]) {
        mismatch(fmt::format("{}: byte 0x{:x} changed ({}; the outputs {} written)", record_name(b, r),
                             o.canary.addr + i, o.functional ? "outside its outputs" : "a timing-only operation",
                             started ? "may be" : "must not be"));
        break;
      }
    if (!o.functional) {
      ++m_stats.untouched_checked;
      continue;
    }
    if (!completed) continue;
    for (const OutputExpect& e : o.outputs) {
      if (e.reference_fp16.empty()) continue;  // random operands: any value
      std::vector<std::uint8_t> out(got.begin() + static_cast<std::ptrdiff_t>(e.addr - o.canary.addr),
                                    got.begin() + static_cast<std::ptrdiff_t>(e.addr - o.canary.addr + e.bytes));
      const std::vector<double> y = decode_outputs(m_arch, e.m, e.n, out, e.parameters);
      const OutputCheck c = check_outputs(y, e.reference_fp16, e.tolerance_q24);
      ++m_stats.outputs_checked;
      if (c.tolerance > 0) m_stats.worst_of_tolerance = std::max(m_stats.worst_of_tolerance, c.worst / c.tolerance);
      if (!c.ok) {
        const auto h =
            static_cast<half_bits>(e.reference_fp16[2 * c.worst_at] | e.reference_fp16[2 * c.worst_at + 1] << 8);
        mismatch(
            fmt::format("{}: output {} (row {}, column {}) at 0x{:x} is {}, the reference {}: |y - ref| {} > "
                        "tolerance {}",
                        record_name(b, r), c.worst_at, c.worst_at / e.n, c.worst_at % e.n, e.addr, y[c.worst_at],
                        half_to_float(h), c.worst, c.tolerance));
      }
      if (!e.exact.empty()) {
        ++m_stats.exact_checked;
        if (out != e.exact) {
          const auto at = std::mismatch(out.begin(), out.end(), e.exact.begin()).first - out.begin();
          mismatch(fmt::format("{}: output byte {} at 0x{:x} is 0x{:02x}, the requantised reference 0x{:02x}",
                               record_name(b, r), at, e.addr + static_cast<std::uint64_t>(at),
                               out[static_cast<std::size_t>(at)], e.exact[static_cast<std::size_t>(at)]));
        }
      }
    }
  }
}

}  // namespace eva::soak
