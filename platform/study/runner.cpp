#include "study/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>

#include <unistd.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "process/process.hpp"
#include "study/progress.hpp"
#include "vp/address_allocator.hpp"
#include "vp/platform.hpp"

namespace eva {

struct Runner::Queued {
  explicit Queued(double capacity) : alloc(capacity, true) {}
  AddressAllocator alloc;
  std::map<std::string, std::size_t> index;  // signature -> op index in the platform (cached mode)
  std::size_t ops = 0;
  std::vector<std::vector<std::size_t>> slots;  // per workload, per op: its op index in the platform
  // Descriptor overlap: chains of ops, each op queued to run after its
  // predecessor (Platform::set_launch_windows). Its windows by "predecessor's
  // signature (empty: from idle)\nits signature[\nend]" -> its op index;
  // the signature the last queued op ran, and whether another may follow it
  // overlapped (not after an "end" one, whose drain must be its own).
  std::map<std::string, std::size_t> windows;
  std::string last;
  bool open = false;
  // Per workload, per op: the terms of its cost.
  std::vector<std::vector<std::vector<Term>>> terms;
};

Runner::Runner(const std::vector<ArchConfig>& archs, bool direct) : m_archs(archs), m_direct(direct) {
  if (!archs.empty()) set_global_quantum(archs.front().sim);
  for (std::size_t i = 0; i < archs.size(); ++i) {
    m_platforms.push_back(std::make_unique<Platform>(sc_core::sc_gen_unique_name("vp"), archs[i]));
    if (!direct && archs[i].dma.descriptor_overlap == DescriptorOverlap::next)
      m_platforms.back()->set_launch_windows(true);
    m_queued.push_back(std::make_unique<Queued>(archs[i].dram.capacity_bytes()));
  }
}

Runner::~Runner() = default;

std::size_t Runner::queue(std::size_t arch, const WorkloadOp& op, const std::string* signature, Platform::Start start) {
  Platform& p = *m_platforms[arch];
  Queued& q = *m_queued[arch];
  if (signature) {
    const auto [it, fresh] = q.index.emplace(*signature, q.ops);
    if (!fresh) return it->second;
  }
  const std::size_t slot = q.ops++;
  // Direct runs report the platform's ops as they are: named in full.
  const std::string name = m_direct ? op.qualified_name() : op.name;
  if (op.kind == WorkloadOp::Kind::vector) {
    VectorDescriptor v;
    v.name = name;
    v.op = op.vop;
    v.rows = op.rows;
    v.cols = op.cols;
    const std::uint64_t bytes = op.rows * op.cols * 2;
    v.in_addr = q.alloc.take(bytes, op.name.c_str());
    v.in2_addr = vector_op_binary(op.vop) ? q.alloc.take(bytes, op.name.c_str()) : v.in_addr;
    v.out_addr = q.alloc.take(bytes, op.name.c_str());
    p.add(v, start);
    return slot;
  }
  const FormatConfig& formats = m_archs[arch].formats;
  const bool fp16_head = op.is_lm_head() && formats.lm_head == LmHead::fp16;
  if (op.kind == WorkloadOp::Kind::fc && !fp16_head) {
    p.add(p.place_fc(q.alloc, name, op.m, op.n, op.k), start);
    return slot;
  }
  // A dense operand: attention over `count` caches, each with its own
  // activations and outputs, or an FP16 LM head.
  GemmDescriptor g;
  g.name = name;
  g.m = op.m;
  g.n = op.n;
  g.k = op.k;
  // Composed, one head stands for all (weighted by the count), except under
  // descriptor overlap, where the heads overlap each other as they do direct.
  g.count = m_direct || p.launch_windows() ? op.count : 1;
  g.operand = fp16_head ? GemmOperand::fp16_weights : GemmOperand::kv_cache;
  const std::uint64_t operand = fp16_head ? op.k * op.n * 2 : formats.kv_bytes(op.k * op.n);
  g.act_stride = (op.m * op.k * 2 + 63) / 64 * 64;
  g.weight_stride = (operand + 63) / 64 * 64;
  g.out_stride = (op.m * op.n * 2 + 63) / 64 * 64;
  g.act_addr = q.alloc.take(g.act_stride * g.count, op.name.c_str());
  g.weight_addr = q.alloc.take(g.weight_stride * g.count, op.name.c_str());
  g.out_addr = q.alloc.take(g.out_stride * g.count, op.name.c_str());
  p.add(g, start);
  return slot;
}

std::size_t Runner::chained(std::size_t arch, const Link& before, const Link& a, const Link& b, bool end) {
  Queued& q = *m_queued[arch];
  const std::string key = a.signature + "\n" + b.signature + (end ? "\nend" : "");
  if (const auto it = q.windows.find(key); it != q.windows.end()) return it->second;
  if (a.op && !(q.open && q.last == a.signature)) {
    // A new chain: `a` after the op before it (from idle), as `a` would run
    // in the workload; or `a` from idle where it comes first.
    if (before.op) {
      const std::size_t first = queue(arch, *before.op, nullptr, Platform::Start::idle);
      q.windows.emplace("\n" + before.signature, first);
      const std::size_t second = queue(arch, *a.op, nullptr, Platform::Start::overlapped);
      q.windows.emplace(before.signature + "\n" + a.signature, second);
    } else {
      q.windows.emplace("\n" + a.signature, queue(arch, *a.op, nullptr, Platform::Start::idle));
    }
  }
  const std::size_t i = queue(arch, *b.op, nullptr, a.op ? Platform::Start::overlapped : Platform::Start::idle);
  q.windows.emplace(key, i);
  q.last = b.signature;
  q.open = !end;
  return i;
}

std::size_t Runner::add(const Workload& w) {
  std::vector<std::string> signatures;
  if (!m_direct) {
    signatures.reserve(w.ops.size());
    for (const WorkloadOp& op : w.ops) signatures.push_back(op.signature());
  }
  // Under descriptor overlap an attention op runs all its heads: its count
  // is part of what it is.
  std::vector<std::string> counted = signatures;
  for (std::size_t i = 0; i < counted.size(); ++i)
    if (w.ops[i].kind == WorkloadOp::Kind::attention) counted[i] += fmt::format(" x{}", w.ops[i].count);
  for (std::size_t a = 0; a < m_archs.size(); ++a) {
    const bool overlap = !m_direct && m_archs[a].dma.descriptor_overlap == DescriptorOverlap::next;
    std::vector<std::size_t> slots;
    std::vector<std::vector<Term>> terms;
    slots.reserve(w.ops.size());
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      const WorkloadOp& op = w.ops[i];
      try {
        if (!overlap) {  // composed, each op alone from an idle machine; direct, as queued
          slots.push_back(queue(a, op, m_direct ? nullptr : &signatures[i],
                                m_direct ? Platform::Start::overlapped : Platform::Start::idle));
          continue;
        }
        // After the previous op (the first from idle): its body; the
        // workload's last one also its drain.
        const bool last = i + 1 == w.ops.size();
        const auto link = [&](std::size_t back) {
          return back > i ? Link{} : Link{&w.ops[i - back], counted[i - back]};
        };
        const std::size_t index = chained(a, link(2), link(1), link(0), last);
        std::vector<Term> t = {{2 * index, 1.0}};
        if (last) t.push_back({2 * index + 1, 1.0});
        slots.push_back(t.front().slot);
        terms.push_back(std::move(t));
      } catch (const InputError& e) {
        throw InputError(fmt::format("--arch {}: {} (layer {}): {}", m_archs[a].name, op.name, op.layer, e.what()));
      }
    }
    m_queued[a]->slots.push_back(std::move(slots));
    m_queued[a]->terms.push_back(std::move(terms));
  }
  m_workloads.push_back(w);
  return m_workloads.size() - 1;
}

void Runner::run_all(const std::vector<Runner*>& runners, bool quiet, unsigned jobs) {
  const auto wall0 = std::chrono::steady_clock::now();
  std::vector<Platform*> all;
  for (Runner* r : runners)
    for (const auto& p : r->m_platforms) all.push_back(p.get());
  std::vector<Report> reports(all.size());
  std::uint64_t total = 0;
  bool timelines = false;
  for (const Platform* p : all) {
    total += p->queued_ops();
    timelines = timelines || p->timeline();
  }
  if (all.size() <= 1 || timelines) {
    // In this process, one kernel: a single platform, or timelines, which
    // stay in the memory of the process that records them.
    Progress progress("simulating", total, quiet);
    for (Platform* p : all) p->on_op_done([&progress] { progress.step(); });
    sc_core::sc_start();
    progress.finish();
    for (std::size_t i = 0; i < all.size(); ++i) reports[i] = all[i]->report();
  } else {
    // Each platform alone in a process forked after elaboration, `jobs` at a
    // time, the costliest (by its estimate) first. Alone, a platform's figures
    // do not depend on which others a command runs beside it: two platforms in
    // one kernel share its queue of timed events, whose order at equal times
    // follows everything in it.
    jobs = std::max(1u, std::min(jobs, static_cast<unsigned>(all.size())));
    std::vector<double> cost(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) cost[i] = all[i]->queued_cost();
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return cost[x] > cost[y]; });
    struct Child {
      std::size_t platform;
      std::string path;
    };
    std::map<pid_t, Child> running;
    std::optional<std::string> failure;
    bool input_failure = false;
    Progress progress(fmt::format("simulating ({} at a time, one process each)", jobs), total, quiet);
    const auto start = [&](std::size_t i) {
      std::string path = (std::filesystem::temp_directory_path() / "eva-sim-share-XXXXXX").string();
      const int fd = ::mkstemp(path.data());
      if (fd < 0) throw std::runtime_error("run: cannot create a temporary file");
      ::close(fd);
      std::cout.flush();
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) {
        std::remove(path.c_str());
        throw std::runtime_error("run: cannot fork");
      }
      if (pid == 0) {  // platform i alone; its report goes back through the file
        nlohmann::json out;
        int code = 0;
        try {
          for (std::size_t k = 0; k < all.size(); ++k)
            if (k != i) all[k]->drop_ops();
          sc_core::sc_start();
          out["report"] = report_state(all[i]->report());
        } catch (const InputError& e) {
          out = {{"error", e.what()}, {"input", true}};
          code = 2;
        } catch (const std::exception& e) {
          out = {{"error", e.what()}, {"input", false}};
          code = 1;
        }
        std::ofstream(path) << out.dump();
        std::_Exit(code);
      }
      running.emplace(pid, Child{i, std::move(path)});
    };
    std::size_t next = 0;
    try {
      while (next < order.size() || !running.empty()) {
        while (!failure && running.size() < jobs && next < order.size()) start(order[next++]);
        if (running.empty()) break;
        const auto [pid, status] = wait_process();
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        const Child c = it->second;
        running.erase(it);
        std::ifstream in(c.path);
        const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        in.close();
        std::remove(c.path.c_str());
        if (j.is_discarded() || j.contains("error") || status != 0) {
          if (!failure) {
            failure = j.is_object() && j.contains("error")
                          ? j["error"].get<std::string>()
                          : fmt::format("a simulating process ended with status {}", status);
            input_failure = j.is_object() && j.value("input", false);
          }
          continue;
        }
        reports[c.platform] = report_from_state(j["report"]);
        progress.step(all[c.platform]->queued_ops());
      }
    } catch (...) {
      for (const auto& [pid, c] : running) {
        wait_process(pid);
        std::remove(c.path.c_str());
      }
      throw;
    }
    progress.finish();
    if (failure) {
      if (input_failure) throw InputError(*failure);
      throw std::runtime_error(*failure);
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::size_t i = 0;
  for (Runner* r : runners) {
    r->m_wall_s = wall;
    for (std::size_t a = 0; a < r->m_platforms.size(); ++a) r->m_results.push_back(std::move(reports[i++]));
  }
}

void Runner::enable_timelines() {
  for (std::size_t a = 0; a < m_platforms.size(); ++a)
    m_platforms[a]->enable_timeline(static_cast<std::uint64_t>(m_archs[a].sim.trace_max_spans));
}

std::string Runner::trace_json() const {
  std::vector<std::pair<std::string, const Timeline*>> processes;
  for (std::size_t a = 0; a < m_platforms.size(); ++a)
    if (m_platforms[a]->timeline()) processes.emplace_back(m_archs[a].name, m_platforms[a]->timeline());
  return eva::trace_json(processes);
}

const Report& Runner::simulation(std::size_t arch) const { return m_results.at(arch); }

std::size_t Runner::simulated_ops() const { return m_queued.empty() ? 0 : m_queued.front()->ops; }

Report Runner::report(std::size_t arch, std::size_t w, bool with_ops) const {
  const Report& sim = m_results.at(arch);
  const Workload& work = m_workloads.at(w);
  const ArchConfig& c = m_archs[arch];
  Report r;
  r.arch = c.name;
  r.area_mm2 = sim.area_mm2;
  r.area_breakdown_mm2 = sim.area_breakdown_mm2;
  r.static_power_w = sim.static_power_w;
  r.warnings = sim.warnings;
  r.tokens = work.tokens;
  r.sim_wall_s = m_wall_s;
  if (m_direct) {  // the platform ran exactly this workload
    r = sim;
    r.tokens = work.tokens;
    r.sim_wall_s = m_wall_s;
    for (std::size_t i = 0; i < r.ops.size() && i < work.ops.size(); ++i) r.ops[i].kind = work.ops[i].kind_name();
    return r;
  }
  const std::vector<std::size_t>& slots = m_queued[arch]->slots.at(w);
  const std::vector<std::vector<Term>>* terms =
      m_queued[arch]->terms.at(w).empty() ? nullptr : &m_queued[arch]->terms.at(w);
  double energy = 0.0;
  // Statistics and bank conflicts: each operation's share, as often as it occurs.
  r.stat_keys = sim.stat_keys;
  r.stat_totals.assign(sim.stat_keys.size(), 0.0);
  const auto count = [](double v) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, v))); };
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    const WorkloadOp& op = work.ops[i];
    const auto times = static_cast<double>(op.kind == WorkloadOp::Kind::attention ? op.count : 1);  // without overlap
    // The simulated ops this one costs as: itself, `times` over, or (overlap)
    // its windows in chains.
    const std::vector<Term> sum = terms ? (*terms)[i] : std::vector<Term>{{slots[i], times}};
    OpReport o = sim.ops.at(slots[i]);  // the names, the shape and what bounds it
    if (with_ops) o.name = op.qualified_name();
    o.kind = op.kind_name();
    o.count = op.count;
    o.work_ops = op.work_ops();
    double cycles = 0, compute = 0, read = 0, written = 0, conflicts = 0;
    o.seconds = 0;
    o.energy_j = 0;
    o.energy_breakdown_j.clear();
    for (const Term& t : sum) {
      const OpReport& s = sim.ops.at(t.slot);
      cycles += t.weight * static_cast<double>(s.cycles);
      compute += t.weight * static_cast<double>(s.compute_cycles);
      read += t.weight * static_cast<double>(s.dram_bytes_read);
      written += t.weight * static_cast<double>(s.dram_bytes_written);
      o.seconds += t.weight * s.seconds;
      o.energy_j += t.weight * s.energy_j;
      for (const auto& [module, j] : s.energy_breakdown_j) o.energy_breakdown_j[module] += t.weight * j;
      const std::vector<double>& share = sim.op_stats.at(t.slot);
      for (std::size_t k = 0; k < share.size() && k < r.stat_totals.size(); ++k)
        r.stat_totals[k] += share[k] * t.weight;
      conflicts += t.weight * static_cast<double>(sim.op_conflicts.at(t.slot));
    }
    o.cycles = count(cycles);
    o.compute_cycles = count(compute);
    o.dram_bytes_read = count(read);
    o.dram_bytes_written = count(written);
    for (const auto& [module, j] : o.energy_breakdown_j) r.energy_breakdown_j[module] += j;
    r.sram_bank_conflict_cycles += count(conflicts);
    r.cycles += o.cycles;
    r.seconds += o.seconds;
    r.dram_bytes_read += o.dram_bytes_read;
    r.dram_bytes_written += o.dram_bytes_written;
    r.work_ops += o.work_ops;
    energy += o.energy_j;
    if (with_ops) r.ops.push_back(std::move(o));
  }
  r.energy_j = energy;
  const double bytes = static_cast<double>(r.dram_bytes_read + r.dram_bytes_written);
  r.dram_bw_utilization = r.seconds > 0 ? bytes / (c.dram.peak_bytes_per_second() * r.seconds) : 0.0;
  if (with_ops) {
    r.config = sim.config;
    r.stats = stats_with(sim.stats, r.stat_keys, r.stat_totals);
  }
  return r;
}

}  // namespace eva
