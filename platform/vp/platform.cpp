#include "vp/platform.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "arch/accelerators.hpp"
#include "arch/arch_warnings.hpp"
#include "common/error.hpp"
#include "dma/dma.hpp"

namespace eva {

namespace {

nlohmann::json stats_json(const std::vector<const StatGroup*>& groups) {
  nlohmann::json j = nlohmann::json::object();
  for (const StatGroup* g : groups)
    for (const Stat& s : g->stats())
      j[g->name()][s.name] = {{"value", s.value}, {"unit", s.unit}, {"description", s.description}};
  return j;
}

}  // namespace

void set_global_quantum(const SimConfig& sim) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(sim.quantum_ns, sc_core::SC_NS));
}

Platform::Platform(const sc_core::sc_module_name& name, const ArchConfig& config)
    : sc_module(name), m_config(config), m_clock(config.clock_mhz) {
  m_dram = make_dram("dram", config.dram);
  m_accel = make_accelerator(config);
  // DMA -> [checker] -> [fault injector] -> DRAM
  tlm::tlm_target_socket<>* memory = &m_dram->target_socket;
  if (config.fault.enabled()) {
    m_faults = std::make_unique<FaultInjector>("fault_injector", config.fault);
    m_faults->initiator_socket.bind(*memory);
    memory = &m_faults->target_socket;
  }
  if (config.sim.check_protocol) {
    m_checker = std::make_unique<ProtocolChecker>("dma_dram_checker");
    m_checker->initiator_socket.bind(*memory);
    memory = &m_checker->target_socket;
  }
  m_accel->memory_socket().bind(*memory);
  // The DMA is the DRAM's only initiator here: with nothing between them, it
  // may time its data-less bursts against an ideal DRAM directly, and a timed
  // controller may run itself and the DMA ahead of the kernel.
  if (config.sim.exclusive_dma && !m_faults && !m_checker && config.dma.response_timeout_ns == 0.0) {
    m_accel->dma_engine().set_exclusive_timer(m_dram->burst_timer());
    m_accel->dma_engine().set_run_ahead_target(m_dram->run_ahead_target());
  }
  SC_HAS_PROCESS(Platform);
  SC_THREAD(driver);
}

double Platform::queued_cost() const {
  // Measured on LLaMA-2-7B decode steps run directly: per byte, the ideal
  // pipe takes about a fifteenth of LPDDR5's wall time; an op's set-up is
  // worth about 256 KiB of bursts (docs/PERFORMANCE.md).
  const double per_byte = m_config.dram.kind == DramKind::timed ? 1.0 : 1.0 / 15, per_op = 256.0 * 1024;
  double cost = 0;
  for (const auto& op : m_ops) {
    double bytes = 0, count = 1;
    if (const auto* g = std::get_if<GemmDescriptor>(&op)) {
      const OperandBytes b = m_accel->operand_bytes(g->m, g->n, g->k);
      bytes = static_cast<double>(b.activations + b.weights + b.codebooks + b.outputs);
      count = static_cast<double>(g->count);
    } else {
      const auto& v = std::get<VectorDescriptor>(op);
      bytes = static_cast<double>(v.rows * v.cols) * 2.0 * (vector_op_binary(v.op) ? 3 : 2);  // FP16 in and out
    }
    cost += count * (bytes * per_byte + per_op);
  }
  return cost;
}

void Platform::add(const GemmDescriptor& op, Start start) {
  m_accel->check(op);
  m_ops.emplace_back(op);
  m_starts.push_back(start);
}

void Platform::add(const VectorDescriptor& op, Start start) {
  m_accel->check(op);
  m_ops.emplace_back(op);
  m_starts.push_back(start);
}

GemmDescriptor Platform::place_fc(AddressAllocator& alloc, const std::string& name, std::uint64_t m, std::uint64_t n,
                                  std::uint64_t k) const {
  const OperandBytes b = operand_bytes(m, n, k);
  GemmDescriptor op;
  op.name = name;
  op.m = m;
  op.n = n;
  op.k = k;
  op.act_addr = alloc.take(b.activations, name.c_str());
  op.weight_addr = alloc.take(b.weights, name.c_str());
  op.codebook_addr = alloc.take(b.codebooks, name.c_str());
  op.out_addr = alloc.take(b.outputs, name.c_str());
  return op;
}

Platform::~Platform() { Timeline::attach(*this, nullptr); }

void Platform::enable_timeline(std::uint64_t max_spans) {
  m_timeline = std::make_unique<Timeline>(max_spans);
  Timeline::attach(*this, m_timeline.get());
}

Breakdown Platform::energy_now() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  Breakdown b = m_accel->energy_breakdown_j(now.to_seconds());
  b["dram"] = m_dram->energy_j(now);
  return b;
}

void Platform::bound_ops(std::vector<OpReport>& ops, const std::vector<const StatGroup*>& groups) const {
  // Where each unit's busy cycles are among the statistics.
  std::vector<std::size_t> array, epilogue, lookup, conflicts, vector;
  std::size_t i = 0;
  for (const StatGroup* g : groups)
    for (const Stat& s : g->stats()) {
      const std::string& m = g->name();
      if (m == "systolic" && s.name == "busy_cycles") array.push_back(i);
      if (m.rfind("epilogue_", 0) == 0 && s.name == "busy_cycles") epilogue.push_back(i);
      if (m == "lookup" && s.name == "cycles") lookup.push_back(i);
      if (m == "lookup" && s.name == "conflict_cycles") conflicts.push_back(i);
      if (m == "vector" && s.name == "busy_cycles") vector.push_back(i);
      ++i;
    }
  const auto most = [](const std::vector<double>& d, const std::vector<std::size_t>& at) {
    double v = 0;
    for (std::size_t a : at) v = std::max(v, a < d.size() ? d[a] : 0.0);
    return v;
  };
  const double cycles_per_byte = m_config.clock_mhz * 1e6 / m_dram->peak_bytes_per_second();
  for (std::size_t o = 0; o < ops.size() && o < m_op_stats.size(); ++o) {
    const std::vector<double>& d = m_op_stats[o];
    OpLoad load;
    load.memory_cycles = static_cast<double>(ops[o].dram_bytes_read + ops[o].dram_bytes_written) * cycles_per_byte;
    load.array_cycles = most(d, array);
    load.epilogue_cycles = most(d, epilogue);
    load.lookup_cycles = most(d, lookup);
    load.vector_cycles = most(d, vector);
    // A unit that counts no busy cycles: the op's closed-form compute time.
    if (load.array_cycles + load.epilogue_cycles + load.lookup_cycles + load.vector_cycles == 0)
      load.array_cycles = static_cast<double>(ops[o].compute_cycles);
    load.conflict_cycles = std::max(most(d, conflicts), static_cast<double>(m_op_conflicts[o]));
    ops[o].bound_by = bound_by(load);
  }
}

std::vector<const StatGroup*> Platform::stat_groups(const sc_core::sc_time& at) const {
  m_dram->flush_stats(at);
  std::vector<const StatGroup*> groups = {&m_dram->stats()};
  for (const StatGroup* g : m_accel->stat_groups()) groups.push_back(g);
  return groups;
}

std::vector<double> Platform::stat_values() const {
  std::vector<double> v;
  for (const StatGroup* g : stat_groups(sc_core::sc_time_stamp()))
    for (const Stat& s : g->stats()) v.push_back(s.value);
  return v;
}

void Platform::record(std::size_t i, std::uint64_t compute_cycles, std::optional<sc_core::sc_time> end) {
  const auto& any = m_ops[i];
  OpReport r;
  if (const auto* op = std::get_if<GemmDescriptor>(&any)) {
    r.name = op->name;
    r.m = op->m;
    r.n = op->n;
    r.k = op->k;
    r.count = op->count;
    r.work_ops = 2.0 * static_cast<double>(op->m * op->n * op->k * op->count);
  } else {
    const auto& v = std::get<VectorDescriptor>(any);
    r.name = v.name;
    r.m = v.rows;
    r.n = v.cols;
  }
  r.compute_cycles = compute_cycles;
  // A bus error does not stop the DMA (a controller with registers reports
  // it); a run of the command line fails on it, naming the operation.
  if (const Dma::BusError& e = m_accel->dma_engine().bus_error())
    throw std::runtime_error(fmt::format("{}: {}: {}", m_accel->dma_engine().name(), r.name, e.message()));
  Window& w = m_window;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time until = end.value_or(now);
  r.cycles = until > w.start ? m_clock.to_cycles(until - w.start) : 0;
  r.dram_bytes_read = m_dram->bytes_read() - w.read;
  r.dram_bytes_written = m_dram->bytes_written() - w.written;
  r.seconds = until > w.start ? (until - w.start).to_seconds() : 0.0;
  if (m_timeline) m_timeline->op(r.name, w.start, std::max(until, w.start));
  Breakdown energy = energy_now();
  for (const auto& [module, j] : energy) {
    r.energy_breakdown_j[module] = j - w.energy[module];
    r.energy_j += j - w.energy[module];
  }
  std::vector<double> stats = stat_values();
  std::vector<double> delta(stats.size());
  for (std::size_t s = 0; s < delta.size(); ++s) delta[s] = stats[s] - w.stats[s];
  m_op_stats.push_back(std::move(delta));
  const std::uint64_t conflicts = m_accel->bank_conflict_cycles();
  m_op_conflicts.push_back(conflicts - w.conflicts);
  w = Window{now, m_dram->bytes_read(), m_dram->bytes_written(), conflicts, std::move(energy), std::move(stats)};
  m_results.push_back(r);
}

void Platform::driver() {
  m_window = Window{sc_core::sc_time_stamp(),        m_dram->bytes_read(), m_dram->bytes_written(),
                    m_accel->bank_conflict_cycles(), energy_now(),         stat_values()};
  if (m_config.dma.descriptor_overlap == DescriptorOverlap::next) {
    overlapped_driver();  // sets m_end
    return;
  }
  for (std::size_t i = 0; i < m_ops.size(); ++i) {
    const auto& any = m_ops[i];
    std::uint64_t cycles;
    if (const auto* op = std::get_if<GemmDescriptor>(&any))
      cycles = execute_each(*m_accel, *op);
    else
      cycles = m_accel->execute_vector(std::get<VectorDescriptor>(any));
    record(i, cycles);
    if (m_on_op_done) m_on_op_done();
  }
  m_end = sc_core::sc_time_stamp();
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> Platform::input_ranges(std::size_t i, std::uint64_t head) const {
  if (const auto* op = std::get_if<GemmDescriptor>(&m_ops[i])) {
    const std::uint64_t bytes =
        op->operand == GemmOperand::weights ? operand_bytes(op->m, op->n, op->k).activations : op->m * op->k * 2;
    const std::uint64_t first = op->act_addr + head * op->act_stride;
    return {{first, first + bytes}};
  }
  const auto& v = std::get<VectorDescriptor>(m_ops[i]);
  const std::uint64_t bytes = v.rows * v.cols * 2;  // FP16
  return {{v.in_addr, v.in_addr + bytes}, {v.in2_addr, v.in2_addr + bytes}};
}

void Platform::overlapped_driver() {
  // One step per GEMM of a descriptor (its `count`) or per vector op.
  struct Step {
    std::size_t op;
    std::uint64_t head;
    bool last;
  };
  std::vector<Step> steps;
  for (std::size_t i = 0; i < m_ops.size(); ++i) {
    const auto* g = std::get_if<GemmDescriptor>(&m_ops[i]);
    const std::uint64_t count = g ? g->count : 1;
    for (std::uint64_t h = 0; h < count; ++h) steps.push_back({i, h, h + 1 == count});
  }
  Dma& dma = m_accel->dma_engine();
  std::size_t done = 0;             // steps finished, in order
  std::size_t held = steps.size();  // the step whose input reads wait for its predecessor
  std::vector<std::uint64_t> cycles(m_ops.size(), 0);
  std::vector<bool> ended(steps.size(), false);
  sc_core::sc_event finished;
  WorkerPool::Group running;
  const bool windows = m_launch_windows;
  // Step s may start once its predecessor consumed its operands (or
  // finished) and the one before it finished: at most two in flight.
  const auto released = [&](std::size_t s) { return done + 1 >= s && (done + 1 > s || dma.consumed()); };
  const auto wait_released = [&](std::size_t s) {
    while (!released(s)) sc_core::wait(finished | dma.consumed_event());
  };
  const auto wait_drained = [&] {
    while (m_dram->posted_pending() > 0) sc_core::wait(m_dram->posted_drained());
  };
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const Step step = steps[s];
    // The windows of the op before (launch windows) close as an op starts.
    const bool closes = windows && s > 0 && step.head == 0;
    if (step.head == 0 && m_starts[step.op] == Start::idle) {
      if (closes) {  // the predecessor's body, then its drain alone
        wait_released(s);
        record(steps[s - 1].op, 0);
      }
      while (done < s) sc_core::wait(finished);
      if (closes) {
        const sc_core::sc_time end = sc_core::sc_time_stamp();
        wait_drained();
        record(steps[s - 1].op, 0, end);
      }
    } else {
      wait_released(s);
      if (closes) {  // its body; no drain alone
        record(steps[s - 1].op, 0);
        record(steps[s - 1].op, 0);
      }
    }
    // An op's inputs are its predecessor's outputs; the heads of one op are
    // independent of each other.
    if (done < s && step.head == 0) {
      dma.hold_reads(input_ranges(step.op, step.head));
      held = s;
    }
    dma.clear_consumed();
    m_workers.start(
        running,
        [this, step, s, windows, &steps, &done, &ended, &held, &cycles, &finished, &dma] {
          if (const auto* g = std::get_if<GemmDescriptor>(&m_ops[step.op])) {
            GemmDescriptor one = *g;
            one.count = 1;
            one.act_addr += step.head * g->act_stride;
            one.weight_addr += step.head * g->weight_stride;
            one.out_addr += step.head * g->out_stride;
            cycles[step.op] += m_accel->execute(one);
          } else {
            cycles[step.op] += m_accel->execute_vector(std::get<VectorDescriptor>(m_ops[step.op]));
          }
          // Heads of one op may end out of order (nothing holds one for
          // another); ops end in order, their inputs held for their
          // predecessors' outputs. `done` counts the steps ended in order.
          ended[s] = true;
          for (; done < steps.size() && ended[done]; ++done) {
            if (steps[done].last) {
              if (!windows) record(steps[done].op, cycles[steps[done].op]);
              if (m_on_op_done) m_on_op_done();
            }
            if (held == done + 1) {  // the next op's inputs are written now
              dma.release_held_reads();
              held = steps.size();
            }
          }
          finished.notify(sc_core::SC_ZERO_TIME);
        },
        "op");
  }
  if (windows && !steps.empty()) {  // the last op's body and drain
    wait_released(steps.size());
    record(steps.back().op, 0);
  }
  running.wait();
  m_end = sc_core::sc_time_stamp();
  if (windows && !steps.empty()) {
    wait_drained();
    record(steps.back().op, 0, m_end);
    for (std::size_t i = 0; i < m_ops.size(); ++i) m_results[2 * i].compute_cycles = cycles[i];
  }
}

Report Platform::report() const {
  Report r;
  r.arch = m_config.name;
  r.ops = m_results;
  // The statistics brought up to date once (the DRAM's counters flushed).
  const std::vector<const StatGroup*> groups = stat_groups(m_end);
  bound_ops(r.ops, groups);
  r.cycles = m_clock.to_cycles(m_end);
  r.seconds = m_end.to_seconds();
  r.dram_bytes_read = m_dram->bytes_read();
  r.dram_bytes_written = m_dram->bytes_written();
  const double bytes = static_cast<double>(r.dram_bytes_read + r.dram_bytes_written);
  r.dram_bw_utilization = r.seconds > 0 ? bytes / (m_dram->peak_bytes_per_second() * r.seconds) : 0.0;
  r.energy_breakdown_j = m_accel->energy_breakdown_j(r.seconds);
  r.energy_breakdown_j["dram"] = m_dram->energy_j(m_end);
  double energy = 0.0;
  for (const auto& [module, joules] : r.energy_breakdown_j) energy += joules;
  r.energy_j = energy;
  r.area_breakdown_mm2 = m_accel->area_breakdown_mm2();
  for (const auto& [module, mm2] : r.area_breakdown_mm2) r.area_mm2 += mm2;
  r.static_power_w = m_accel->static_power_w();
  for (const OpReport& op : m_results) r.work_ops += op.work_ops;
  r.sram_bank_conflict_cycles = m_accel->bank_conflict_cycles();
  r.warnings = arch_warnings(m_config);
  r.config = {{"setting", setting_name(m_config)},
              {"clock_mhz", m_config.clock_mhz},
              {"systolic",
               {{"rows", m_config.systolic.rows},
                {"cols", m_config.systolic.cols},
                {"weight_load", std::string(enum_name(m_config.systolic.weight_load))}}},
              {"dram",
               {{"preset", m_config.dram.preset},
                {"bandwidth_gbps", m_config.dram.bandwidth_gbps},
                {"latency_ns", m_config.dram.latency_ns}}}};
  for (const StatGroup* g : groups)
    for (const Stat& s : g->stats()) {
      r.stat_keys.emplace_back(g->name(), s.name);
      r.stat_totals.push_back(s.value);
    }
  // Built as a composed report's are, so the two agree by construction.
  r.stats = stats_with(stats_json(groups), r.stat_keys, r.stat_totals);
  r.op_stats = m_op_stats;
  r.op_conflicts = m_op_conflicts;
  return r;
}

}  // namespace eva
