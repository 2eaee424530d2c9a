#include "dram/dram_target.hpp"

#include "common/timing_only.hpp"

namespace eva {

DramTarget::DramTarget(const sc_core::sc_module_name& name, double capacity_bytes)
    : sc_module(name),
      target_socket("target_socket"),
      m_stats("dram"),
      m_capacity(capacity_bytes),
      m_peq(this, &DramTarget::on_peq) {
  target_socket.register_nb_transport_fw(this, &DramTarget::nb_transport_fw);
  target_socket.register_b_transport(this, &DramTarget::b_transport);
  target_socket.register_transport_dbg(this, &DramTarget::transport_dbg);
  target_socket.register_get_direct_mem_ptr(this, &DramTarget::get_direct_mem_ptr);
  m_reads = m_stats.add("reads", "requests", "read requests served");
  m_writes = m_stats.add("writes", "requests", "write requests served");
  m_bytes_read = m_stats.add("bytes_read", "B", "bytes read");
  m_bytes_written = m_stats.add("bytes_written", "B", "bytes written");
  m_core_uj = m_stats.add("core_energy_uj", "uJ", "device core: commands, bursts, refresh (ideal: all access energy)");
  m_io_uj = m_stats.add("io_energy_uj", "uJ", "interface: drivers and termination (ideal: in core_energy_uj)");
  m_background_uj = m_stats.add("background_energy_uj", "uJ", "background: standby and power-down");
  SC_HAS_PROCESS(DramTarget);
  SC_METHOD(on_response_due);
  sensitive << m_response_due;
  dont_initialize();
}

void DramTarget::flush_stats(const sc_core::sc_time& now) {
  const Energy e = energy_parts(now);
  m_stats.set(m_core_uj, e.core_j * 1e6);
  m_stats.set(m_io_uj, e.io_j * 1e6);
  m_stats.set(m_background_uj, e.background_j * 1e6);
  flush_model_stats(now);
}

bool DramTarget::check(tlm::tlm_generic_payload& trans) const {
  if (!in_range(trans.get_address(), trans.get_data_length())) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_byte_enable_ptr() && trans.get_byte_enable_length() == 0) {
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

void DramTarget::move(tlm::tlm_generic_payload& trans) {
  if (is_timing_only(trans)) return;
  const bool write = trans.is_write();
  const unsigned char* be = trans.get_byte_enable_ptr();
  const std::uint64_t addr = trans.get_address();
  std::uint8_t* data = trans.get_data_ptr();
  if (!be) {
    write ? m_storage.write(addr, data, trans.get_data_length()) : m_storage.read(addr, data, trans.get_data_length());
    return;
  }
  const unsigned int be_len = trans.get_byte_enable_length();
  for (unsigned int i = 0; i < trans.get_data_length(); ++i)
    if (be[i % be_len] == TLM_BYTE_ENABLED)
      write ? m_storage.write(addr + i, data + i, 1) : m_storage.read(addr + i, data + i, 1);
}

void DramTarget::count(tlm::tlm_generic_payload& trans) { count(trans.is_write(), trans.get_data_length()); }

void DramTarget::count(bool write, std::uint64_t bytes, std::uint64_t requests) {
  m_stats.inc(write ? m_writes : m_reads, static_cast<double>(requests));
  m_stats.inc(write ? m_bytes_written : m_bytes_read, static_cast<double>(bytes));
}

bool DramTarget::try_accept(tlm::tlm_generic_payload& trans) {
  if (!accept(trans)) return false;
  if (trans.is_write()) move(trans);  // the data is captured when the request is taken
  count(trans);
  return true;
}

tlm::tlm_sync_enum DramTarget::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                               sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    if (!check(trans)) {
      phase = tlm::BEGIN_RESP;
      return tlm::TLM_COMPLETED;
    }
    if (delay != sc_core::SC_ZERO_TIME) {
      // An annotated request is taken when its time comes.
      m_peq.notify(trans, phase, delay);
      return tlm::TLM_ACCEPTED;
    }
    if (m_held || !try_accept(trans)) {
      m_held = &trans;
      return tlm::TLM_ACCEPTED;
    }
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) {
    m_response_busy = false;
    send_pending();
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase on the forward path");
  return tlm::TLM_COMPLETED;
}

void DramTarget::on_peq(tlm::tlm_generic_payload& trans, const tlm::tlm_phase&) {
  // A BEGIN_REQ annotated into the future has arrived.
  if (m_held || !try_accept(trans)) {
    m_held = &trans;
    return;
  }
  tlm::tlm_phase p = tlm::END_REQ;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  target_socket->nb_transport_bw(trans, p, d);
}

void DramTarget::on_response_due() {
  m_due_pending = false;  // the notification has fired
  respond_due();
}

void DramTarget::respond_due() {
  m_due_next_pending = false;
  const sc_core::sc_time now = current_time();
  while (!m_due.empty() && m_due.top().at <= now) {
    tlm::tlm_generic_payload* trans = m_due.top().trans;
    m_due.pop();
    respond(*trans);
  }
  if (!m_due.empty()) notify_due(m_due.top().at);
}

void DramTarget::notify_due(const sc_core::sc_time& at) {
  if (!m_due_next_pending || at < m_due_next_at) {  // the kernel keeps the earlier of two
    m_due_next_pending = true;
    m_due_next_at = at;
  }
  if (m_clock.active) return;  // the run-ahead loop's notification
  // Only a notification still in the future is surely pending (one due now
  // may have fired already); the kernel keeps the earlier of two anyway.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (m_due_pending && m_due_at <= at && m_due_at > now) return;
  m_due_pending = true;
  m_due_at = at;
  m_response_due.notify(at - now);
}

bool DramTarget::withdraw_due(sc_core::sc_time& at) {
  m_response_due.cancel();
  m_due_pending = false;
  at = m_due_next_at;
  return m_due_next_pending;
}

void DramTarget::restore_due() {
  if (!m_due_next_pending) return;
  m_due_pending = true;
  m_due_at = m_due_next_at;
  m_response_due.notify(m_due_at - sc_core::sc_time_stamp());
}

bool DramTarget::due_ends_transfer(const sc_core::sc_time& at, const RunAheadInitiator& initiator) {
  // The responses due by `at`, in no particular order: a walk of the heap
  // that leaves a subtree as soon as its root is due later.
  const std::vector<Due>& heap = m_due.items();
  if (heap.empty() || heap[0].at > at) return false;
  // Most often only the root is due: no walk.
  const bool left_due = heap.size() > 1 && heap[1].at <= at, right_due = heap.size() > 2 && heap[2].at <= at;
  if (!left_due && !right_due) return initiator.would_end_transfer(&heap[0].trans, 1);
  m_due_trans.clear();
  m_due_walk.assign(1, 0);
  while (!m_due_walk.empty()) {
    const std::size_t i = m_due_walk.back();
    m_due_walk.pop_back();
    m_due_trans.push_back(heap[i].trans);
    for (std::size_t child = 2 * i + 1; child <= 2 * i + 2 && child < heap.size(); ++child)
      if (heap[child].at <= at) m_due_walk.push_back(child);
  }
  return initiator.would_end_transfer(m_due_trans.data(), m_due_trans.size());
}

void DramTarget::respond(tlm::tlm_generic_payload& trans) {
  // The data has moved.
  if (trans.is_read()) move(trans);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  if (!m_blocking.empty()) {  // (no hashing when no b_transport caller waits)
    const auto blocking = m_blocking.find(&trans);
    if (blocking != m_blocking.end()) {
      blocking->second->notify(sc_core::SC_ZERO_TIME);
      return;
    }
  }
  m_responses.push_back(&trans);
  send_pending();
}

void DramTarget::send_pending() {
  while (!m_response_busy && !m_responses.empty()) {
    tlm::tlm_generic_payload* trans = m_responses.front();
    m_responses.pop_front();
    send_response(*trans);
  }
}

void DramTarget::send_response(tlm::tlm_generic_payload& trans) {
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum s = target_socket->nb_transport_bw(trans, phase, delay);
  if (s == tlm::TLM_ACCEPTED) m_response_busy = true;  // END_RESP will follow
}

void DramTarget::complete(tlm::tlm_generic_payload& trans, const sc_core::sc_time& at) {
  m_due.push(Due{at, m_due_seq++, &trans});
  notify_due(at);
}

void DramTarget::retry_held() {
  if (!m_blocking.empty()) m_room.notify(sc_core::SC_ZERO_TIME);
  if (!m_held || !try_accept(*m_held)) return;
  tlm::tlm_generic_payload* trans = m_held;
  m_held = nullptr;
  tlm::tlm_phase phase = tlm::END_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  target_socket->nb_transport_bw(*trans, phase, delay);
}

void DramTarget::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (!check(trans)) return;
  // A model that times a request on arrival: annotate, never wait (a
  // temporally decoupled caller keeps running ahead).
  sc_core::sc_time due;
  const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
  if (!m_held && time_now(trans, arrival, due)) {
    move(trans);
    count(trans);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    delay = due - sc_core::sc_time_stamp();
    return;
  }
  // The cycle models go through the same timing as the AT path: wait for the
  // annotated time, for room, and for the data.
  if (delay != sc_core::SC_ZERO_TIME) wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  sc_core::sc_event done;
  m_blocking[&trans] = &done;
  while (m_held || !try_accept(trans)) wait(m_room);
  wait(done);
  m_blocking.erase(&trans);
}

unsigned int DramTarget::transport_dbg(tlm::tlm_generic_payload& trans) {
  if (!check(trans)) return 0;
  move(trans);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return trans.get_data_length();
}

bool DramTarget::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  // One page of storage at a time (allocated on request): sparse storage has
  // no larger contiguous region.
  const std::uint64_t page = trans.get_address() / SparseStorage::page_bytes;
  const std::uint64_t start = page * SparseStorage::page_bytes;
  if (static_cast<double>(start + SparseStorage::page_bytes) > m_capacity) return false;
  dmi.set_dmi_ptr(m_storage.page_data(page));
  dmi.set_start_address(start);
  dmi.set_end_address(start + SparseStorage::page_bytes - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(access_latency());
  dmi.set_write_latency(access_latency());
  return true;
}

}  // namespace eva
