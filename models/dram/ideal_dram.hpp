#pragma once
// The `ideal` DRAM: a fixed-bandwidth pipe with a fixed latency
// (BandwidthPipe) in front of sparse storage. Every request is taken at once;
// its response comes when the pipe has moved its bytes, plus the latency, so
// concurrent initiators share the bandwidth. The EVA paper's memory model.
#include <systemc>

#include "common/kernel_time.hpp"
#include "dram/bandwidth_pipe.hpp"
#include "dram/dram_config.hpp"
#include "dram/dram_target.hpp"

namespace eva {

class IdealDram : public DramTarget, public BurstTimer {
 public:
  IdealDram(const sc_core::sc_module_name& name, const DramConfig& config);

  double peak_bytes_per_second() const override { return m_config.bandwidth_gbps * 1e9; }
  // The artifact's two figures: an access energy per bit that its source
  // does not split between core and I/O (charged as core), and a background
  // power drawn for the whole run (no power-down).
  Energy energy_parts(const sc_core::sc_time& elapsed) const override {
    Energy e;
    e.core_j = static_cast<double>(bytes_read() + bytes_written()) * 8.0 * m_config.energy_pj_per_bit * 1e-12;
    e.background_j = m_config.background_w * elapsed.to_seconds();
    return e;
  }
  sc_core::sc_time access_latency() const override { return sc_core::sc_time(m_config.latency_ns, sc_core::SC_NS); }
  BurstTimer* burst_timer() override { return this; }
  bool burst_timer_covers(std::uint64_t addr, std::uint64_t bytes) const override { return in_range(addr, bytes); }
  Value time_burst(tlm::tlm_command, std::uint64_t /*addr*/, std::uint64_t bytes, Value arrival) override {
    if (KernelTime::exact()) return inline_burst(m_pipe, bytes, arrival);
    return done_at(sc_core::sc_time::from_value(arrival), bytes).value();
  }
  // The pipe inline: no call per burst.
  Value time_run(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t rows, std::uint64_t row_bytes,
                 std::uint64_t stride, std::uint64_t burst, Value now, BurstWindow& window) override {
    if (!KernelTime::exact()) return BurstTimer::time_run(cmd, addr, rows, row_bytes, stride, burst, now, window);
    BandwidthPipe pipe = m_pipe;                  // in registers for the run
    const double full = pipe.duration_ps(burst);  // a whole burst's time in the pipe, once
    const Value response =
        window.run(addr, rows, row_bytes, stride, burst, now, [&](std::uint64_t, std::uint64_t len, Value at) {
          return KernelTime::from_ps(
              pipe.transfer_for(KernelTime::to_ps(at), len == burst ? full : pipe.duration_ps(len)));
        });
    m_pipe = pipe;
    return response;
  }
  void count_bursts(tlm::tlm_command cmd, std::uint64_t requests, std::uint64_t bytes) override {
    count(cmd == tlm::TLM_WRITE_COMMAND, bytes, requests);
  }

 private:
  bool accept(tlm::tlm_generic_payload& trans) override;
  bool time_now(tlm::tlm_generic_payload& trans, const sc_core::sc_time& arrival, sc_core::sc_time& done) override;
  sc_core::sc_time done_at(const sc_core::sc_time& arrival, std::uint64_t bytes);
  // A burst through `pipe` with the kernel's conversions inline (KernelTime::exact()).
  static Value inline_burst(BandwidthPipe& pipe, std::uint64_t bytes, Value arrival) {
    return KernelTime::from_ps(pipe.transfer(KernelTime::to_ps(arrival), bytes));
  }

  const DramConfig m_config;
  BandwidthPipe m_pipe;
};

}  // namespace eva
