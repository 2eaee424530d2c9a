#pragma once
// A virtual platform: one accelerator and its DRAM, connected through TLM
// sockets, plus a driver that feeds the accelerator's control a list of
// operation descriptors and records, per op, the time and DRAM traffic it
// took. Several platforms may live side by side in one simulation.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include <systemc>

#include "checker/protocol_checker.hpp"
#include "common/accelerator.hpp"
#include "common/clock.hpp"
#include "common/op_descriptor.hpp"
#include "common/timeline.hpp"
#include "common/worker_pool.hpp"
#include "config/load_arch.hpp"
#include "dram/dram_target.hpp"
#include "fault/fault_injector.hpp"
#include "report/report.hpp"
#include "vp/address_allocator.hpp"

namespace eva {

// The kernel's global quantum for every loosely-timed initiator, from
// sim.quantum_ns. A platform leaves it alone: the top level of a simulation
// (eva-sim's commands, the study runner, an SoC) sets it once.
void set_global_quantum(const SimConfig& sim);

class Platform : public sc_core::sc_module {
 public:
  Platform(const sc_core::sc_module_name& name, const ArchConfig& config);
  ~Platform() override;
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  // Records a timeline of this platform's run (before sc_start): every
  // operation, and up to `max_spans` spans of its units.
  void enable_timeline(std::uint64_t max_spans);
  const Timeline* timeline() const { return m_timeline.get(); }

  // Bytes an op's operands take in this platform's formats.
  OperandBytes operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
    return m_accel->operand_bytes(m, n, k);
  }
  // An FC op's descriptor, its operands placed by `alloc` in this platform's
  // formats.
  GemmDescriptor place_fc(AddressAllocator& alloc, const std::string& name, std::uint64_t m, std::uint64_t n,
                          std::uint64_t k) const;
  Accelerator& accelerator() { return *m_accel; }

  // How a queued op starts under dma.descriptor_overlap=next: overlapping
  // its predecessor's drain (as a descriptor queue runs), or from an idle
  // machine, the DRAM's posted writes drained too (a composed run's chains).
  // Without overlap every op starts when the one before it ends.
  enum class Start { overlapped, idle };
  // Queues an op (before sc_start). Throws InputError if it cannot run here.
  void add(const GemmDescriptor& op, Start start = Start::overlapped);
  void add(const VectorDescriptor& op, Start start = Start::overlapped);
  // After the simulation: the report of everything this platform ran.
  Report report() const;

  DramTarget& dram() { return *m_dram; }
  // The base-protocol checker between the DMA and the DRAM (sim.check_protocol), or nullptr.
  const ProtocolChecker* protocol_checker() const { return m_checker.get(); }
  // The fault injector in front of the DRAM (fault.*), or nullptr.
  const FaultInjector* fault_injector() const { return m_faults.get(); }
  // Called after each operation completes (progress reporting).
  void on_op_done(std::function<void()> f) { m_on_op_done = std::move(f); }
  std::size_t queued_ops() const { return m_ops.size(); }
  // A rough figure of what simulating the queued ops costs in wall time, for
  // sharing platforms out among processes: the DRAM bytes they move, weighted
  // by the memory model (a timed controller steps every device burst, the
  // ideal pipe times a transfer at once), plus a fixed share per op.
  double queued_cost() const;
  // dma.descriptor_overlap=next (before sc_start): each op reports two
  // windows instead of one, both from the instants ops start, so that what
  // follows an op never enters them (a composed run's chains). Op i's body,
  // report 2i, runs from its start to the instant its successor may start
  // (its last GEMM consumed its operands and its predecessor finished); its
  // drain, report 2i+1, from there to its successor's start:
  // empty when one followed it overlapped, up to its end when none did (its
  // statistics up to the DRAM's posted writes drained). Its compute cycles
  // are in its body.
  void set_launch_windows(bool on) { m_launch_windows = on; }
  bool launch_windows() const { return m_launch_windows; }
  // Forgets the queued ops (before sc_start): another process simulates them.
  void drop_ops() { m_ops.clear(); }

 private:
  void driver();
  // dma.descriptor_overlap=next: each op (each of a descriptor's `count`)
  // starts once its predecessor has consumed its streamed operands and the
  // one before that has finished; its input reads wait for the predecessor.
  void overlapped_driver();
  // The DRAM ranges an op (its `head`-th GEMM of `count`) reads as inputs.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> input_ranges(std::size_t op, std::uint64_t head) const;
  // The report of op `i` over the window since the last report (its compute
  // cycles given), finished now (its time, at `end` if given); the window
  // moves on.
  void record(std::size_t i, std::uint64_t compute_cycles, std::optional<sc_core::sc_time> end = std::nullopt);
  struct Window {
    sc_core::sc_time start = sc_core::SC_ZERO_TIME;
    std::uint64_t read = 0, written = 0, conflicts = 0;
    Breakdown energy;
    std::vector<double> stats;
  };
  // Energy of the whole platform so far per module (DRAM included), J.
  Breakdown energy_now() const;
  // Every module's statistics, brought up to date, in one order (the DRAM's
  // first), and their (module, statistic) names.
  std::vector<const StatGroup*> stat_groups(const sc_core::sc_time& at) const;
  std::vector<double> stat_values() const;
  // Sets each operation's bound_by from its statistics' shares.
  void bound_ops(std::vector<OpReport>& ops, const std::vector<const StatGroup*>& groups) const;

  const ArchConfig m_config;
  const ClockDomain m_clock;
  std::unique_ptr<DramTarget> m_dram;
  std::unique_ptr<Accelerator> m_accel;
  std::unique_ptr<ProtocolChecker> m_checker;  // sim.check_protocol
  std::unique_ptr<FaultInjector> m_faults;     // fault.*
  std::vector<std::variant<GemmDescriptor, VectorDescriptor>> m_ops;
  std::vector<Start> m_starts;
  bool m_launch_windows = false;
  Window m_window;
  WorkerPool m_workers;  // overlapped ops
  std::vector<OpReport> m_results;
  std::vector<std::vector<double>> m_op_stats;  // what each operation added to every statistic
  std::vector<std::uint64_t> m_op_conflicts;
  sc_core::sc_time m_end = sc_core::SC_ZERO_TIME;
  std::function<void()> m_on_op_done;
  std::unique_ptr<Timeline> m_timeline;
};

}  // namespace eva
