#include "dram/ideal_dram.hpp"

namespace eva {

IdealDram::IdealDram(const sc_core::sc_module_name& name, const DramConfig& config)
    : DramTarget(name, config.capacity_bytes()), m_config(config), m_pipe(config.bandwidth_gbps, config.latency_ns) {}

bool IdealDram::accept(tlm::tlm_generic_payload& trans) {
  const double now_ps = sc_core::sc_time_stamp().to_seconds() * 1e12;
  const double done_ps = m_pipe.transfer(now_ps, trans.get_data_length());
  complete(trans, sc_core::sc_time(done_ps, sc_core::SC_PS));
  return true;
}

}  // namespace eva
