#pragma once
// The soak's platform: an accelerator behind its Peripheral (models/periph),
// its DMA through the base-protocol checker to its DRAM, and a host thread
// that runs the plan's batches (soak_plan.hpp) through the registers and
// checks each against what the registers and memory show afterwards.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "arch/arch_config.hpp"
#include "checker/protocol_checker.hpp"
#include "common/accelerator.hpp"
#include "dram/dram_target.hpp"
#include "periph/peripheral.hpp"
#include "soak_plan.hpp"

namespace eva::soak {

struct Options {
  std::uint64_t seed = 1;
  std::uint64_t count = 100;  // descriptors, at least (whole batches)
  bool verbose = false;
  double timeout_ms = 1000.0;  // simulated time a batch may take
};

// What the run did and found, for the summary.
struct Stats {
  std::uint64_t batches = 0, descriptors = 0;
  std::map<Category, std::uint64_t> generated;
  std::uint64_t completed = 0;                      // DESC_DONE over the run
  std::map<regs::ErrorCode, std::uint64_t> failed;  // DESC_FAILED by ERROR_CODE (RING_CONFIG: doorbells)
  std::uint64_t dropped = 0;                        // never fetched: after a failure in their chain, or a reset
  std::uint64_t outputs_checked = 0, exact_checked = 0, untouched_checked = 0;
  double worst_of_tolerance = 0.0;  // max over outputs of |y - reference| / tolerance
  std::map<Mode, std::uint64_t> modes;
  std::uint64_t soft_resets = 0, ring_moves = 0;
  std::vector<std::string> mismatches;
  std::uint64_t replay_count = 0;  // --count that replays the first mismatch's batch
};

class SoakRig : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<SoakRig> host_socket{"host_socket"};

  SoakRig(const sc_core::sc_module_name& name, const ArchConfig& arch, const Options& options);
  SoakRig(const SoakRig&) = delete;
  SoakRig& operator=(const SoakRig&) = delete;

  const Stats& stats() const { return m_stats; }
  bool finished() const { return m_finished; }
  std::uint64_t generated() const { return m_generator.descriptors(); }
  // The batch and descriptors being run (to name them when the simulation stops).
  std::string where() const;

 private:
  void host();  // SC_THREAD: every batch, then sc_stop()
  void run_batch(const Batch& b);
  void misconfigured_doorbell(const Batch& b);
  struct Observed {
    std::uint32_t code;
    std::uint64_t addr;
    std::string message;  // the peripheral's (not a register): what failed where
  };
  bool wait_interrupts(const Batch& b, std::vector<Observed>& observed);
  bool poll_done(const Batch& b);
  void check_memory(const Batch& b, std::uint64_t reset_head);
  void check_failures(const Batch& b, const std::vector<Observed>& observed);
  struct Traffic {
    std::uint64_t read, written, busy;  // DRAM_READ, DRAM_WRITTEN, CYCLES_BUSY
  };
  void check_counters(const Batch& b, const Traffic& before);

  // Register accesses through the peripheral's socket (a refused one is a mismatch).
  std::uint32_t rd(regs::Reg r);
  std::uint64_t rd64(regs::Reg lo);
  void wr(regs::Reg r, std::uint32_t v);
  void access(tlm::tlm_command cmd, regs::Reg r, std::uint8_t* four_bytes);
  void mismatch(const std::string& what);
  std::string record_name(const Batch& b, std::size_t r) const;

  const ArchConfig m_arch;
  const Options m_options;
  std::unique_ptr<DramTarget> m_dram;
  std::unique_ptr<Accelerator> m_accel;
  std::unique_ptr<ProtocolChecker> m_checker;
  std::unique_ptr<Peripheral> m_periph;
  sc_core::sc_signal<bool> m_irq{"irq"};
  Generator m_generator;
  Rng m_host_rng;  // the host's pauses

  std::uint64_t m_done = 0, m_failed = 0;  // DESC_DONE and DESC_FAILED expected
  std::uint32_t m_tail = 0;
  std::string m_where = "before the first batch";  // where(): the batch being run
  std::size_t m_reported_problems = 0;
  bool m_finished = false;
  Stats m_stats;
};

}  // namespace eva::soak
