#pragma once
// What the platform needs of any accelerator model: a socket toward memory,
// the bytes its operands take in its formats, and execution of operation
// descriptors. Each accelerator (models/baselines/*, models/eva) implements it.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "common/energy.hpp"
#include "common/error.hpp"
#include "common/op_descriptor.hpp"
#include "common/stats.hpp"
#include "common/vq_math.hpp"
#include "pack/encoded_gemm.hpp"

namespace eva {

class Dma;  // models/dma: every accelerator moves its operands with one

struct OperandBytes {
  std::uint64_t activations = 0, weights = 0, codebooks = 0, outputs = 0;
};

class Accelerator : public sc_core::sc_module {
 public:
  explicit Accelerator(const sc_core::sc_module_name& name) : sc_module(name) {}

  virtual tlm::tlm_initiator_socket<>& memory_socket() = 0;
  // The DMA behind memory_socket(): a controller fetches descriptors with it
  // and reads its bus-error status after each operation.
  virtual Dma& dma_engine() = 0;
  virtual OperandBytes operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const = 0;
  // Throws InputError when the operation cannot run on this configuration.
  virtual void check(const GemmDescriptor& op) const = 0;
  // Runs one operation from a SystemC thread; returns the compute cycles it
  // would take with memory never late (the unit's closed form).
  virtual std::uint64_t execute(const GemmDescriptor& op) = 0;
  // Runs a non-FC operation on the accelerator's vector unit; returns its
  // compute cycles. Accelerators without a vector unit model refuse it.
  virtual std::uint64_t execute_vector(const VectorDescriptor& op);
  // Throws InputError when the accelerator has no vector unit model.
  virtual void check(const VectorDescriptor& op) const;
  virtual std::vector<const StatGroup*> stat_groups() = 0;
  // VQ accelerators: the bytes of a VQ matrix's indices in their DRAM layout,
  // for a layer run with `m` input rows (others: no VQ weights).
  virtual std::vector<std::uint8_t> vq_index_image(const VqMatrix& w, std::uint64_t m) const;
  virtual std::uint64_t bank_conflict_cycles() const { return 0; }
  // Energy per group of units for a run of `seconds` (leakage included), J,
  // and area per group, mm2: the sums over every PricedUnit among this
  // module's descendants and its priced parts (one function for every
  // accelerator). DRAM is the platform's.
  Breakdown energy_breakdown_j(double seconds) const;
  Breakdown area_breakdown_mm2() const;
  // The power drawn whatever the accelerator does (every unit's leakage), W:
  // what a unit's energy grows by per second of run at its counts so far.
  double static_power_w() const;
  // Dense accelerators: encodes x (M x K) and W (K x N), row-major floats,
  // into this accelerator's formats. Throws InputError where functional runs
  // are not modelled.
  virtual EncodedGemm encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                                  std::uint64_t n, std::uint64_t k) const;

 protected:
  // Priced parts that are not modules of their own (the buffers still counted
  // by BufferTraffic); the derived accelerator registers them once.
  void add_priced_part(const PricedUnit& part) { m_parts.push_back(&part); }

 private:
  std::vector<const PricedUnit*> priced_units() const;
  std::vector<const PricedUnit*> m_parts;
};

// Runs the `op.count` GEMMs of a descriptor one after the other, operand i at
// its address plus i times its stride; returns their compute cycles. The
// platform's driver and the peripheral's control both run descriptors so.
inline std::uint64_t execute_each(Accelerator& accel, const GemmDescriptor& op) {
  std::uint64_t cycles = 0;
  for (std::uint64_t i = 0; i < op.count; ++i) {
    GemmDescriptor one = op;
    one.count = 1;
    one.act_addr += i * op.act_stride;
    one.weight_addr += i * op.weight_stride;
    one.out_addr += i * op.out_stride;
    cycles += accel.execute(one);
  }
  return cycles;
}

inline std::vector<const PricedUnit*> Accelerator::priced_units() const {
  std::vector<const PricedUnit*> units;
  std::vector<const sc_core::sc_object*> todo(get_child_objects().begin(), get_child_objects().end());
  while (!todo.empty()) {
    const sc_core::sc_object* o = todo.front();
    todo.erase(todo.begin());
    if (const auto* p = dynamic_cast<const PricedUnit*>(o)) units.push_back(p);
    for (const sc_core::sc_object* c : o->get_child_objects()) todo.push_back(c);
  }
  units.insert(units.end(), m_parts.begin(), m_parts.end());
  return units;
}

inline Breakdown Accelerator::energy_breakdown_j(double seconds) const {
  Breakdown b;
  for (const PricedUnit* u : priced_units()) b[u->energy_group()] += u->energy_j(seconds);
  return b;
}

inline Breakdown Accelerator::area_breakdown_mm2() const {
  Breakdown b;
  for (const PricedUnit* u : priced_units()) b[u->energy_group()] += u->area_mm2();
  return b;
}

inline double Accelerator::static_power_w() const {
  double w = 0.0;
  for (const PricedUnit* u : priced_units()) w += u->energy_j(1.0) - u->energy_j(0.0);
  return w;
}

inline EncodedGemm Accelerator::encode_gemm(const std::vector<float>&, const std::vector<float>&, std::uint64_t,
                                            std::uint64_t, std::uint64_t) const {
  throw InputError(std::string(basename()) + ": functional dense GEMMs are not modelled (use vq-gemv for VQ formats)");
}

inline std::uint64_t Accelerator::execute_vector(const VectorDescriptor& op) {
  throw std::logic_error(std::string(name()) + ": no vector unit model for " + op.name);
}

inline void Accelerator::check(const VectorDescriptor& op) const {
  throw InputError(std::string(basename()) + ": no vector unit model for '" + op.name + "' yet (modelled: eva)");
}

inline std::vector<std::uint8_t> Accelerator::vq_index_image(const VqMatrix&, std::uint64_t) const {
  throw std::logic_error(std::string(name()) + ": does not hold VQ weights");
}

}  // namespace eva
