#pragma once
// Runs workloads (workloads/workload.hpp) on one or more architectures in a
// single elaboration: one virtual platform per architecture, side by side.
//
// An operation's cost depends only on its signature (kind and shape; for
// attention, the KV length is its N or K), so by default each distinct
// signature is simulated once per architecture, one instance of it (an
// attention op's `count` heads cost count times one), and a workload's report
// is composed from those costs. `direct` simulates every operation in order
// instead: the reference the composition is checked against.
//
// Under dma.descriptor_overlap=next an operation's cost also depends on the
// one before it, whose drain hides the start of its loads. A composed run
// then simulates chains: each distinct pair (previous, operation) once, the
// operation queued after the last one simulated when that was its
// predecessor, else after its predecessor run after the op before that.
// The platform samples each op's windows at the instants ops start
// (Platform::set_launch_windows), so nothing of a successor enters them;
// an operation costs its pair's body, the workload's last one also its
// drain. An attention op runs all its heads (docs/CONVENTIONS.md).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/load_arch.hpp"
#include "report/report.hpp"
#include "vp/platform.hpp"
#include "workload.hpp"

namespace eva {

class Runner {
 public:
  explicit Runner(const std::vector<ArchConfig>& archs, bool direct = false);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Queues what `w` needs (before run()). Throws InputError if an operation
  // cannot run on an architecture. Returns the workload's handle.
  std::size_t add(const Workload& w);
  // Simulates everything queued, with a progress bar unless `quiet`: every
  // platform of every runner built so far. Each platform runs alone in a
  // copy of this process forked after elaboration, `jobs` of them at a time,
  // the costliest first (Platform::queued_cost), so its figures are the same
  // whatever runs beside it and whatever `jobs` is. A single platform, or
  // platforms recording timelines, run here in one kernel.
  void run(bool quiet = true, unsigned jobs = 1) { run_all({this}, quiet, jobs); }
  static void run_all(const std::vector<Runner*>& runners, bool quiet, unsigned jobs = 1);
  // The report of workload `w` (a handle from add) on architecture `arch`.
  // `with_ops`: list every operation, with the settings and module
  // statistics (false: the totals only, for compositions of many workloads).
  Report report(std::size_t arch, std::size_t w, bool with_ops = true) const;
  // Architecture `arch`'s platform report after run(): every distinct
  // operation it simulated, its settings and module statistics.
  const Report& simulation(std::size_t arch) const;
  const std::vector<ArchConfig>& archs() const { return m_archs; }
  // Records every platform's timeline in the coming run (see Platform).
  void enable_timelines();
  // The trace-event JSON of every platform's timeline, a process each.
  std::string trace_json() const;
  // Distinct operations simulated per architecture.
  std::size_t simulated_ops() const;

 private:
  struct Queued;
  // Queues `op` on `arch` unless `signature` is queued already (nullptr:
  // always); returns its op index in the platform.
  std::size_t queue(std::size_t arch, const WorkloadOp& op, const std::string* signature, Platform::Start start);
  // An operation's cost as a sum of simulated ops' figures, each `weight`
  // times (a composed run under descriptor overlap subtracts some).
  struct Term {
    std::size_t slot;
    double weight;
  };
  // Descriptor overlap, composed: the op index of `b` run after `a`, which
  // ran after `before` (an op and its signature; none: from idle), its drain
  // its own if `end`; queued if new, after the last queued op when that ran
  // `a` and may be followed, else after `a` queued after `before`.
  struct Link {
    const WorkloadOp* op = nullptr;
    std::string signature;
  };
  std::size_t chained(std::size_t arch, const Link& before, const Link& a, const Link& b, bool end);

  std::vector<ArchConfig> m_archs;
  bool m_direct;
  std::vector<std::unique_ptr<Platform>> m_platforms;
  std::vector<std::unique_ptr<Queued>> m_queued;  // per arch
  std::vector<Workload> m_workloads;
  std::vector<Report> m_results;  // per arch: the platform's report after run()
  double m_wall_s = 0.0;
};

}  // namespace eva
