#include "router.hpp"

#include <algorithm>
#include <stdexcept>

namespace eva::soc {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

Router::Router(const sc_core::sc_module_name& name)
    : sc_module(name), target_socket("target_socket"), initiator_socket("initiator_socket") {
  target_socket.register_nb_transport_fw(this, &Router::nb_transport_fw);
  target_socket.register_b_transport(this, &Router::b_transport);
  target_socket.register_transport_dbg(this, &Router::transport_dbg);
  target_socket.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
  initiator_socket.register_nb_transport_bw(this, &Router::nb_transport_bw);
  initiator_socket.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
  SC_HAS_PROCESS(Router);
  SC_METHOD(send_waiting);
  sensitive << m_retry;
  dont_initialize();
}

void Router::map(unsigned target, std::uint64_t base, std::uint64_t size, const std::string& name) {
  if (size == 0 || base + size < base) throw std::invalid_argument("router window " + name + ": empty or wraps");
  for (const Window& w : m_windows)
    if (base < w.base + w.size && w.base < base + size)
      throw std::invalid_argument("router window " + name + " overlaps " + w.name);
  m_windows.push_back(Window{name, base, size, target});
  // Pointers into m_windows are kept by pending transactions: map() is for
  // elaboration only.
  if (m_targets.size() <= target) m_targets.resize(target + 1);
}

const Router::Window* Router::decode(std::uint64_t addr, std::uint64_t len) const {
  for (const Window& w : m_windows)
    if (addr >= w.base && addr - w.base < w.size && len <= w.size - (addr - w.base)) return &w;
  return nullptr;
}

const Router::Window* Router::route(tlm::tlm_generic_payload& trans) {
  const std::uint64_t len = std::max<std::uint64_t>(trans.get_data_length(), 1);
  const Window* w = decode(trans.get_address(), len);
  if (!w) {
    ++m_address_errors;
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  return w;
}

void Router::b_transport(int, tlm::tlm_generic_payload& trans, sc_time& delay) {
  const Window* w = route(trans);
  if (!w) return;
  const std::uint64_t addr = trans.get_address();
  trans.set_address(addr - w->base);
  initiator_socket[w->target]->b_transport(trans, delay);
  trans.set_address(addr);
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  const Window* w = route(trans);
  if (!w) return 0;
  const std::uint64_t addr = trans.get_address();
  trans.set_address(addr - w->base);
  const unsigned int n = initiator_socket[w->target]->transport_dbg(trans);
  trans.set_address(addr);
  return n;
}

bool Router::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const std::uint64_t addr = trans.get_address();
  const Window* w = decode(addr, 1);
  if (!w) {
    // The hole itself, as a region without access, so the initiator does not ask again.
    dmi.allow_none();
    return false;
  }
  trans.set_address(addr - w->base);
  const bool granted = initiator_socket[w->target]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(addr);
  // Back to system addresses, clipped to the window.
  const std::uint64_t last = w->size - 1;
  const std::uint64_t start = dmi.get_start_address(), end = std::min<std::uint64_t>(dmi.get_end_address(), last);
  dmi.set_start_address(w->base + start);
  dmi.set_end_address(w->base + end);
  return granted;
}

void Router::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const Window& w : m_windows) {
    if (w.target != static_cast<unsigned>(id) || start >= w.size) continue;
    const std::uint64_t s = w.base + start, e = w.base + std::min<std::uint64_t>(end, w.size - 1);
    for (unsigned i = 0; i < target_socket.size(); ++i) target_socket[i]->invalidate_direct_mem_ptr(s, e);
  }
}

tlm::tlm_sync_enum Router::forward_request(Pending& p, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                           sc_time& delay) {
  TargetState& t = m_targets[p.window->target];
  t.busy = true;
  p.request_open = true;
  trans.set_address(p.address - p.window->base);
  const tlm::tlm_sync_enum s = initiator_socket[p.window->target]->nb_transport_fw(trans, phase, delay);
  // The target owns the transaction (with its address) until it responds.
  if (s == tlm::TLM_COMPLETED || phase == tlm::BEGIN_RESP) trans.set_address(p.address);
  if (s == tlm::TLM_ACCEPTED) return s;  // END_REQ (or BEGIN_RESP) comes on the backward path
  // END_REQ, BEGIN_RESP or completion: the request channel is free.
  p.request_open = false;
  request_channel_free(t, delay);
  return s;
}

void Router::request_channel_free(TargetState& t, const sc_time& delay) {
  t.busy = false;
  t.free_at = sc_core::sc_time_stamp() + delay;
  if (!t.waiting.empty()) m_retry.notify(delay);
}

tlm::tlm_sync_enum Router::nb_transport_fw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                           sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    const Window* w = route(trans);
    if (!w) {
      phase = tlm::BEGIN_RESP;
      return tlm::TLM_COMPLETED;
    }
    Pending& p = m_pending[&trans];
    p = Pending{static_cast<unsigned>(id), w, trans.get_address(), false, false};
    TargetState& t = m_targets[w->target];
    if (t.busy || !t.waiting.empty() || sc_core::sc_time_stamp() + delay < t.free_at) {
      // The target's request channel is taken: this request waits its turn;
      // its initiator gets END_REQ when it has been passed on.
      t.waiting.push_back(&trans);
      if (!t.busy) m_retry.notify(t.free_at - sc_core::sc_time_stamp());
      return tlm::TLM_ACCEPTED;
    }
    const tlm::tlm_sync_enum s = forward_request(p, trans, phase, delay);
    if (s == tlm::TLM_COMPLETED) m_pending.erase(&trans);
    return s;
  }
  const auto it = m_pending.find(&trans);
  if (it == m_pending.end()) {
    SC_REPORT_ERROR(name(), "a phase on the forward path for a transaction the router does not know");
    return tlm::TLM_COMPLETED;
  }
  Pending& p = it->second;
  if (p.target_done) {  // the target completed it already: END_RESP ends it here
    m_pending.erase(it);
    return tlm::TLM_COMPLETED;
  }
  const bool ends = phase == tlm::END_RESP;
  trans.set_address(p.address - p.window->base);
  const tlm::tlm_sync_enum s = initiator_socket[p.window->target]->nb_transport_fw(trans, phase, delay);
  if (ends || s == tlm::TLM_COMPLETED) {
    trans.set_address(p.address);
    m_pending.erase(it);
  }
  return s;
}

tlm::tlm_sync_enum Router::nb_transport_bw(int, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                           sc_time& delay) {
  const auto it = m_pending.find(&trans);
  if (it == m_pending.end()) {
    SC_REPORT_ERROR(name(), "a phase on the backward path for a transaction the router does not know");
    return tlm::TLM_COMPLETED;
  }
  Pending& p = it->second;
  if (p.request_open && (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP)) {
    p.request_open = false;
    request_channel_free(m_targets[p.window->target], delay);
  }
  const unsigned initiator = p.initiator;
  const std::uint64_t translated = p.address - p.window->base;
  trans.set_address(p.address);
  const tlm::tlm_sync_enum s = target_socket[initiator]->nb_transport_bw(trans, phase, delay);
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
    m_pending.erase(&trans);  // `it` may be stale: the initiator may have called in again
  } else {
    trans.set_address(translated);  // the target still owns the transaction
  }
  return s;
}

void Router::send_waiting() {
  const sc_time now = sc_core::sc_time_stamp();
  for (TargetState& t : m_targets) {
    if (t.busy || t.waiting.empty()) continue;
    if (now < t.free_at) {
      m_retry.notify(t.free_at - now);
      continue;
    }
    tlm::tlm_generic_payload& trans = *t.waiting.front();
    t.waiting.pop_front();
    Pending& p = m_pending.at(&trans);
    const unsigned initiator = p.initiator;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = SC_ZERO_TIME;
    const tlm::tlm_sync_enum s = forward_request(p, trans, phase, delay);
    if (s == tlm::TLM_ACCEPTED) continue;
    // The initiator was told TLM_ACCEPTED: pass the target's answer back.
    if (s == tlm::TLM_COMPLETED) {
      p.target_done = true;
      phase = tlm::BEGIN_RESP;
    }
    const bool target_done = p.target_done;
    const unsigned target = p.window->target;
    const std::uint64_t translated = p.address - p.window->base;
    const tlm::tlm_sync_enum r = target_socket[initiator]->nb_transport_bw(trans, phase, delay);
    const bool initiator_done = r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP);
    if (initiator_done && !target_done && phase != tlm::END_REQ) {
      // The initiator ended a response the target still holds: END_RESP to it.
      tlm::tlm_phase end = tlm::END_RESP;
      sc_time d = SC_ZERO_TIME;
      const std::uint64_t addr = trans.get_address();
      trans.set_address(translated);
      initiator_socket[target]->nb_transport_fw(trans, end, d);
      trans.set_address(addr);
    }
    if (initiator_done) m_pending.erase(&trans);
  }
}

}  // namespace eva::soc
