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
  const double done_ps = m_pipe.transfer(arrival.to_seconds() * 1e12, trans.get_data_length());
  done = sc_core::sc_time(done_ps, sc_core::SC_PS);
  return true;
}

}  // namespace eva
