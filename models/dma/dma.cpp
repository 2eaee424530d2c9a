#include "dma/dma.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace eva {

Dma::Dma(const sc_core::sc_module_name& name, const DmaConfig& config)
    : sc_module(name),
      initiator_socket("initiator_socket"),
      m_config(config),
      m_scratch(static_cast<std::size_t>(config.burst_bytes)),
      m_peq(this, &Dma::on_peq) {
  initiator_socket.register_nb_transport_bw(this, &Dma::nb_transport_bw);
  for (int i = 0; i < config.max_outstanding; ++i) {
    m_slots.push_back(std::make_unique<Slot>());
    m_slots.back()->set_mm(this);
    m_free.push_back(m_slots.back().get());
  }
  m_bursts = m_stats.add("bursts", "requests", "bursts issued");
  m_bytes_read = m_stats.add("bytes_read", "B", "bytes moved from memory");
  m_bytes_written = m_stats.add("bytes_written", "B", "bytes moved to memory");
  SC_HAS_PROCESS(Dma);
  SC_THREAD(issue_thread);
}

Dma::~Dma() {
  for (auto& s : m_slots) s->clear_extension<TimingOnly>();
}

Dma::Transfer Dma::start_read(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                              std::uint8_t* dst) {
  return start(tlm::TLM_READ_COMMAND, addr, row_bytes, rows, stride, dst);
}

Dma::Transfer Dma::start_write(std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows, std::uint64_t stride,
                               const std::uint8_t* src) {
  // The target only reads the buffer of a write; TLM's payload is not const-typed.
  return start(tlm::TLM_WRITE_COMMAND, addr, row_bytes, rows, stride, const_cast<std::uint8_t*>(src));
}

Dma::Transfer Dma::start(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t row_bytes, std::uint64_t rows,
                         std::uint64_t stride, std::uint8_t* data) {
  Transfer t;
  if (row_bytes == 0 || rows == 0) return t;
  if (stride == row_bytes) {  // rows that touch form one contiguous block
    row_bytes *= rows;
    rows = 1;
  }
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  t.m_state = std::make_shared<Transfer::State>();
  t.m_state->left = rows * ((row_bytes + burst - 1) / burst);
  m_jobs.push_back(Job{t.m_state, cmd, addr, row_bytes, rows, stride, data});
  m_work.notify(sc_core::SC_ZERO_TIME);
  return t;
}

void Dma::wait_for(const Transfer& t) {
  while (!t.done()) sc_core::wait(t.m_state->finished);
}

void Dma::issue_thread() {
  const auto burst = static_cast<std::uint64_t>(m_config.burst_bytes);
  for (;;) {
    while (m_jobs.empty()) wait(m_work);
    Job& job = m_jobs.front();
    while (m_free.empty()) wait(m_slot_freed);
    Slot& slot = *m_free.back();
    m_free.pop_back();
    const std::uint64_t len = std::min(burst, job.row_bytes - job.col);
    tlm::tlm_generic_payload& trans = slot;
    trans.set_command(job.cmd);
    trans.set_address(job.addr + job.row * job.stride + job.col);
    trans.set_data_ptr(job.data ? job.data + job.row * job.row_bytes + job.col : m_scratch.data());
    trans.set_data_length(static_cast<unsigned int>(len));
    trans.set_streaming_width(static_cast<unsigned int>(len));
    trans.set_byte_enable_ptr(nullptr);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (job.data)
      trans.clear_extension<TimingOnly>();
    else if (!trans.get_extension<TimingOnly>())
      trans.set_extension(&slot.timing_only);
    slot.owner = job.state;
    m_stats.inc(m_bursts);
    m_stats.inc(job.cmd == tlm::TLM_READ_COMMAND ? m_bytes_read : m_bytes_written, static_cast<double>(len));
    job.col += len;
    if (job.col == job.row_bytes) {
      job.col = 0;
      ++job.row;
    }
    if (job.row == job.rows) m_jobs.pop_front();  // all its bursts are on their way
    send(slot);
  }
}

void Dma::send(Slot& slot) {
  tlm::tlm_generic_payload& trans = slot;
  trans.acquire();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  m_waiting_end_req = &trans;
  const tlm::tlm_sync_enum s = initiator_socket->nb_transport_fw(trans, phase, delay);
  if (s == tlm::TLM_ACCEPTED) {
    // Back-pressure: no new request until this one is taken.
    while (m_waiting_end_req) wait(m_end_req);
    return;
  }
  m_waiting_end_req = nullptr;
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP)) {
    if (s == tlm::TLM_UPDATED) {
      tlm::tlm_phase end = tlm::END_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      initiator_socket->nb_transport_fw(trans, end, d);
    }
    m_peq.notify(trans, tlm::BEGIN_RESP, delay);
  }
  // TLM_UPDATED with END_REQ: taken; the response comes on the backward path.
}

tlm::tlm_sync_enum Dma::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ || (phase == tlm::BEGIN_RESP && &trans == m_waiting_end_req)) {
    if (&trans == m_waiting_end_req) {
      m_waiting_end_req = nullptr;
      m_end_req.notify(sc_core::SC_ZERO_TIME);
    }
    if (phase == tlm::END_REQ) return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    if (delay == sc_core::SC_ZERO_TIME)
      finish(trans);
    else
      m_peq.notify(trans, phase, delay);
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase on the backward path");
  return tlm::TLM_COMPLETED;
}

void Dma::on_peq(tlm::tlm_generic_payload& trans, const tlm::tlm_phase&) { finish(trans); }

void Dma::finish(tlm::tlm_generic_payload& trans) {
  if (trans.is_response_error())
    throw std::runtime_error(fmt::format("{}: {} of {} B at 0x{:x} failed: {}", name(),
                                         trans.is_read() ? "read" : "write", trans.get_data_length(),
                                         trans.get_address(), trans.get_response_string()));
  Slot* slot = static_cast<Slot*>(&trans);  // every payload we send is a Slot
  auto state = std::move(slot->owner);
  if (--state->left == 0) state->finished.notify(sc_core::SC_ZERO_TIME);
  trans.release();
  m_free.push_back(slot);
  m_slot_freed.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace eva
