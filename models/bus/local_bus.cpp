#include "bus/local_bus.hpp"

namespace eva {

LocalBus::LocalBus(const sc_core::sc_module_name& name, bool check_protocol)
    : sc_module(name),
      target_socket("target_socket"),
      initiator_socket("initiator_socket"),
      m_check_protocol(check_protocol) {
  target_socket.register_b_transport(this, &LocalBus::b_transport);
  target_socket.register_transport_dbg(this, &LocalBus::transport_dbg);
  target_socket.register_get_direct_mem_ptr(this, &LocalBus::get_direct_mem_ptr);
  initiator_socket.register_invalidate_direct_mem_ptr(this, &LocalBus::invalidate);
}

int LocalBus::decode(std::uint64_t addr, std::uint64_t len) const {
  // A unit's accesses come in runs to one buffer: the last window first, when
  // no earlier one could also hold the access.
  if (m_last < m_windows.size() && m_windows[m_last].alone && m_windows[m_last].holds(addr, len))
    return static_cast<int>(m_last);
  for (std::size_t i = 0; i < m_windows.size(); ++i)
    if (m_windows[i].holds(addr, len)) {
      m_last = i;
      return static_cast<int>(i);
    }
  return -1;
}

void LocalBus::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const std::uint64_t addr = trans.get_address();
  const int i = decode(addr, trans.get_data_length());
  if (i < 0) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  trans.set_address(addr - m_windows[static_cast<std::size_t>(i)].base);
  initiator_socket[i]->b_transport(trans, delay);
  trans.set_address(addr);
}

unsigned int LocalBus::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const int i = decode(addr, trans.get_data_length());
  if (i < 0) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  trans.set_address(addr - m_windows[static_cast<std::size_t>(i)].base);
  const unsigned int n = initiator_socket[i]->transport_dbg(trans);
  trans.set_address(addr);
  return n;
}

bool LocalBus::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const std::uint64_t addr = trans.get_address();
  const int i = decode(addr, 1);
  if (i < 0) return false;
  const Window& w = m_windows[static_cast<std::size_t>(i)];
  trans.set_address(addr - w.base);
  const bool granted = initiator_socket[i]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(addr);
  // Back to the local map, clipped to the window.
  dmi.set_start_address(w.base + dmi.get_start_address());
  dmi.set_end_address(std::min<std::uint64_t>(w.base + dmi.get_end_address(), w.base + w.size - 1));
  return granted;
}

void LocalBus::invalidate(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  const Window& w = m_windows.at(static_cast<std::size_t>(port));
  for (unsigned int i = 0; i < target_socket.size(); ++i)
    target_socket[static_cast<int>(i)]->invalidate_direct_mem_ptr(w.base + start,
                                                                  w.base + std::min<sc_dt::uint64>(end, w.size - 1));
}

}  // namespace eva
