#include "dram/ideal_dram.hpp"

namespace eva {

IdealDram::IdealDram(const sc_core::sc_module_name& name, const DramConfig& config)
    : DramTarget(name, config.capacity_bytes()), m_config(config), m_pipe(config.bandwidth_gbps, config.latency_ns) {}

bool IdealDram::accept(tlm::tlm_generic_payload& trans) {
  sc_core::sc_time done;
  time_now(trans, sc_core::sc_time_stamp(), done);
  complete(trans, done);
  return true;
}

bool IdealDram::time_now(tlm::tlm_generic_payload& trans, const sc_core::sc_time& arrival, sc_core::sc_time& done) {
  done = done_at(arrival, trans.get_data_length());
  return true;
}

sc_core::sc_time IdealDram::done_at(const sc_core::sc_time& arrival, std::uint64_t bytes) {
  if (KernelTime::exact())  // checked on first use, once the kernel's resolution is fixed
    return sc_core::sc_time::from_value(inline_burst(m_pipe, bytes, arrival.value()));
  return sc_core::sc_time(m_pipe.transfer(arrival.to_seconds() * 1e12, bytes), sc_core::SC_PS);
}

}  // namespace eva
