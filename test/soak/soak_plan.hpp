#pragma once
// The soak's plan (docs/ARCHITECTURE.md, "The soak"): from a seed, batches of
// random descriptors for one architecture, valid and invalid, the memory they
// need, and what the register interface must report for each. The generator
// knows the rules of docs/REGISTERS.md and docs/DESCRIPTORS.md and models the
// ring and chains to predict DESC_DONE, DESC_FAILED, ERROR_CODE and
// ERROR_ADDR; the accelerators' own formats come from the packing library
// (models/pack). Plain C++: no SystemC.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "arch/arch_config.hpp"
#include "periph/descriptor_codec.hpp"

namespace eva::soak {

// A small deterministic generator (splitmix64): the same plan from the same
// seed on every platform, unlike the standard library's distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next();
  // Uniform in [lo, hi].
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi);
  // Log-uniform in [lo, hi]: small values as often as large ones.
  std::uint64_t log_between(std::uint64_t lo, std::uint64_t hi);
  double uniform();  // [0, 1)
  double normal();
  bool chance(double p) { return uniform() < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(between(0, v.size() - 1))];
  }

 private:
  std::uint64_t m_state;
};

// Bytes the host puts in memory before a batch.
struct Segment {
  std::uint64_t addr = 0;
  std::vector<std::uint8_t> bytes;
};

// One functional GEMM's outputs inside an output block, and what they must be.
struct OutputExpect {
  std::uint64_t addr = 0, bytes = 0, m = 0, n = 0;
  std::vector<std::uint8_t> reference_fp16;  // the packing library's FP16 reference (none: any value)
  std::uint64_t tolerance_q24 = 0;           // and its tolerance rule
  std::vector<std::uint8_t> parameters;      // the op's codebook_addr bytes (sa, ant: s_y)
  std::vector<std::uint8_t> exact;           // sa: the output codes themselves (else empty)
};

// Memory a descriptor writes to, filled with random bytes before the batch.
// Every byte outside `outputs` must keep them; the outputs must hold their
// values if the descriptor completed, and keep them if it never ran.
struct OutputBlock {
  Segment canary;
  std::size_t record = 0;             // the owner, an index into Batch::records
  bool functional = false;            // else timing only: nothing may be written at all
  std::vector<OutputExpect> outputs;  // functional: where the results go
};

// garbage: a functional GEMM on random bytes (FP16 infinities and NaNs, any
// codes and scales): it must complete and write only its outputs.
enum class Category { functional, garbage, timing, attention, vector, invalid };
const char* category_name(Category c);

// One descriptor in memory (a ring entry or a chained one).
struct Record {
  std::uint64_t index = 0;  // the descriptor's number in the run, for replays
  std::uint64_t addr = 0;
  DescriptorBytes bytes{};
  bool in_memory = true;  // false: at or beyond the end of memory (not written)
  std::uint64_t next = 0;
  Category category = Category::functional;
  // What running it gives: NONE, a decoder or check error (it does not run),
  // or DATA_BUS_ERROR (it runs, with undefined results), with ERROR_ADDR in
  // [error_lo, error_hi].
  regs::ErrorCode error = regs::ErrorCode::none;
  std::uint64_t error_lo = 0, error_hi = 0;
  std::string what;
  std::size_t entry = 0;  // the ring entry whose chain it belongs to
};

// A failure the register interface must report, in order.
struct Failure {
  regs::ErrorCode code = regs::ErrorCode::none;
  std::uint64_t addr_lo = 0, addr_hi = 0;  // ERROR_ADDR in [lo, hi]
  std::size_t record = 0;                  // index into Batch::records (RING_CONFIG: none)
};

// How the host queues a batch and waits for it.
enum class Mode {
  irq,          // queue all, one doorbell, wait on the interrupt, clear DONE and ERROR as they come
  trickle,      // one entry and one doorbell at a time, a random pause between them, interrupt
  poll,         // queue all, one doorbell, interrupt disabled, poll STATUS; errors stay latched
  late_enable,  // queue and ring with ENABLE clear (ignored), then set ENABLE
  pause,        // clear ENABLE while the batch runs (the entry in flight ends, no other starts), then set it
  reset,        // soft reset while the batch runs: the ring stops, the registers return to reset
};
const char* mode_name(Mode m);

// A doorbell the peripheral must refuse with RING_CONFIG, before the batch.
enum class Misconfig { none, tail_beyond, size_zero };

struct Ring {
  std::uint64_t base = 0;
  std::uint32_t size = 0;
};

struct Batch {
  std::uint64_t index = 0;
  bool soft_reset = false;  // CTRL.SOFT_RESET first (the accelerator idle)
  bool program_ring = false;
  Ring ring;  // the ring in use (programmed first if program_ring: HEAD and TAIL to 0)
  Misconfig misconfig = Misconfig::none;
  std::uint32_t bad_tail = 0;  // tail_beyond: the RING_TAIL written
  Mode mode = Mode::irq;
  std::uint32_t first_slot = 0;      // RING_TAIL before the batch
  std::vector<std::size_t> entries;  // the ring entries' records, from first_slot on
  std::vector<Record> records;
  std::vector<Segment> inputs;  // descriptors and operands: the accelerator must not change them
  std::vector<OutputBlock> outputs;
  // Expected, by the ring and chain rules.
  std::uint64_t done = 0, failed = 0;  // DESC_DONE and DESC_FAILED increments
  std::vector<Failure> failures;       // the descriptors that fail, in order
  std::vector<std::uint32_t> runs;     // per record: completed runs
  std::vector<bool> ran;               // per record: started executing (completed or DATA_BUS_ERROR)
  std::uint32_t last_slot() const;     // RING_TAIL after the batch
};

// What the generator needs of the accelerator: its operands' bytes for an
// M x K by K x N GEMM of weights (the rig asks Accelerator::operand_bytes).
struct OperandSizes {
  std::uint64_t activations = 0, weights = 0, codebooks = 0, outputs = 0;
};
using OperandSizer = std::function<OperandSizes(std::uint64_t m, std::uint64_t n, std::uint64_t k)>;

class Generator {
 public:
  Generator(const ArchConfig& arch, std::uint64_t seed, OperandSizer sizes);

  // The next batch; descriptors are numbered from 0 across batches.
  Batch next();
  std::uint64_t descriptors() const { return m_descriptors; }

 private:
  struct Arena;
  Record& add_record(Batch& b, Arena& a, std::size_t entry);
  void make_valid(Batch& b, Arena& a, std::size_t r, Category c);
  void make_functional(Batch& b, Arena& a, std::size_t r);
  void make_garbage(Batch& b, Arena& a, std::size_t r);
  void make_timing(Batch& b, Arena& a, std::size_t r);
  void make_attention(Batch& b, Arena& a, std::size_t r);
  void make_vector(Batch& b, Arena& a, std::size_t r);
  void make_invalid(Batch& b, Arena& a, std::size_t r);
  void make_unsupported(Batch& b, Arena& a, std::size_t r);
  void make_data_bus_error(Batch& b, Arena& a, std::size_t r);
  // The expectations, by running the ring and chain rules over the records.
  void predict(Batch& b) const;

  // A legal address for `bytes` anywhere in memory (not written).
  std::uint64_t anywhere(std::uint64_t bytes);
  // An address where [addr, addr + bytes) is not wholly in memory.
  std::uint64_t outside(std::uint64_t bytes);
  std::vector<std::uint8_t> random_bytes(std::uint64_t n);
  OutputBlock& add_output_block(Batch& b, Arena& a, std::size_t r, std::uint64_t bytes, std::uint64_t& at);

  const ArchConfig m_arch;
  Rng m_rng;
  OperandSizer m_sizes;
  std::uint64_t m_capacity = 0;
  std::vector<std::uint64_t> m_windows;  // data windows' bases, window_bytes each
  Ring m_ring;
  bool m_ring_programmed = false;  // since the last reset
  bool m_ring_usable = false;      // wholly in memory
  bool m_top_in_use = false;       // this batch has data at the end of memory
  std::uint32_t m_tail = 0;
  std::uint64_t m_batches = 0, m_descriptors = 0;
};

}  // namespace eva::soak
