#include "dram/ideal_dram.hpp"

#include "common/timing_only.hpp"

namespace eva {

IdealDram::IdealDram(const sc_core::sc_module_name& name, const DramConfig& config)
    : sc_module(name),
      target_socket("target_socket"),
      m_config(config),
      m_pipe(config.bandwidth_gbps, config.latency_ns) {
  target_socket.register_b_transport(this, &IdealDram::b_transport);
  target_socket.register_transport_dbg(this, &IdealDram::transport_dbg);
  m_reads = m_stats.add("reads", "requests", "read requests served");
  m_writes = m_stats.add("writes", "requests", "write requests served");
  m_bytes_read = m_stats.add("bytes_read", "B", "bytes read");
  m_bytes_written = m_stats.add("bytes_written", "B", "bytes written");
}

bool IdealDram::check(tlm::tlm_generic_payload& trans) const {
  const std::uint64_t end = trans.get_address() + trans.get_data_length();
  if (end < trans.get_address() || static_cast<double>(end) > m_config.capacity_bytes()) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_streaming_width() < trans.get_data_length()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_command() == tlm::TLM_IGNORE_COMMAND) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return false;
  }
  return true;
}

void IdealDram::copy(tlm::tlm_generic_payload& trans) {
  if (trans.is_read())
    m_storage.read(trans.get_address(), trans.get_data_ptr(), trans.get_data_length());
  else
    m_storage.write(trans.get_address(), trans.get_data_ptr(), trans.get_data_length());
}

void IdealDram::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (!check(trans)) return;
  const std::uint64_t len = trans.get_data_length();
  const double arrival_ps = (sc_core::sc_time_stamp() + delay).to_seconds() * 1e12;
  const double done_ps = m_pipe.transfer(arrival_ps, len);
  delay = sc_core::sc_time(done_ps, sc_core::SC_PS) - sc_core::sc_time_stamp();
  if (!is_timing_only(trans)) copy(trans);
  if (trans.is_read()) {
    m_stats.inc(m_reads);
    m_stats.inc(m_bytes_read, static_cast<double>(len));
  } else {
    m_stats.inc(m_writes);
    m_stats.inc(m_bytes_written, static_cast<double>(len));
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int IdealDram::transport_dbg(tlm::tlm_generic_payload& trans) {
  if (!check(trans)) return 0;
  copy(trans);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return trans.get_data_length();
}

}  // namespace eva
