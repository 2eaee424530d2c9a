// Builds the EVA accelerator and a DDR4 DRAM from the C++ presets, binds them,
// runs one GEMM in timing mode and prints the cycles it took.
//   gemm_cycles [arch [dram [m n k]]]   default: eva ddr4-3200 1 4096 4096
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include <systemc>
// After <systemc>, which it needs.
#include <tlm_utils/tlm_quantumkeeper.h>

#include "arch/accelerators.hpp"
#include "arch/presets.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"

namespace {

// Hands the accelerator one descriptor from a SystemC thread and times it.
class Driver : public sc_core::sc_module {
 public:
  Driver(const sc_core::sc_module_name& name, eva::Accelerator& accel, const eva::GemmDescriptor& op)
      : sc_module(name), m_accel(accel), m_op(op) {
    SC_HAS_PROCESS(Driver);
    SC_THREAD(run);
  }
  sc_core::sc_time elapsed() const { return m_elapsed; }

 private:
  void run() {
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    m_accel.execute(m_op);
    m_elapsed = sc_core::sc_time_stamp() - start;
  }
  eva::Accelerator& m_accel;
  eva::GemmDescriptor m_op;
  sc_core::sc_time m_elapsed = sc_core::SC_ZERO_TIME;
};

// Operands one after another, each on a 4 KiB boundary.
std::uint64_t place(std::uint64_t& next, std::uint64_t bytes) {
  const std::uint64_t at = next;
  next += (bytes + 4095) / 4096 * 4096;
  return at;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::string arch_name = argc > 1 ? argv[1] : "eva";
  const std::string dram_name = argc > 2 ? argv[2] : "ddr4-3200";
  const std::uint64_t m = argc > 5 ? std::strtoull(argv[3], nullptr, 10) : 1;
  const std::uint64_t n = argc > 5 ? std::strtoull(argv[4], nullptr, 10) : 4096;
  const std::uint64_t k = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 4096;
  try {
    const eva::ArchConfig arch = eva::presets::arch(arch_name, dram_name);
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(arch.sim.quantum_ns, sc_core::SC_NS));
    std::unique_ptr<eva::DramTarget> dram = eva::make_dram("dram", arch.dram);
    std::unique_ptr<eva::Accelerator> accel = eva::make_accelerator(arch);
    accel->memory_socket().bind(dram->target_socket);

    const eva::OperandBytes bytes = accel->operand_bytes(m, n, k);
    std::uint64_t next = 0;
    eva::GemmDescriptor op;
    op.m = m;
    op.n = n;
    op.k = k;
    op.act_addr = place(next, bytes.activations);
    op.weight_addr = place(next, bytes.weights);
    op.codebook_addr = place(next, bytes.codebooks);
    op.out_addr = place(next, bytes.outputs);
    accel->check(op);
    Driver driver("driver", *accel, op);

    sc_core::sc_start();
    const std::uint64_t cycles = eva::ClockDomain(arch.clock_mhz).to_cycles(driver.elapsed());
    std::cout << arch.name << " on " << arch.dram.preset << ": GEMM " << m << "x" << n << "x" << k << " took " << cycles
              << " cycles\n";
    return cycles > 0 ? 0 : 1;
  } catch (const eva::InputError& e) {
    std::cerr << "gemm_cycles: " << e.what() << "\n";
    return 2;
  }
}
