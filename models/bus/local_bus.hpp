#pragma once
// An accelerator's on-chip interconnect: a target socket that every unit
// reaching the buffers binds to (the DMA's SRAM port, the array's and the
// vector unit's buffer ports) and an initiator socket bound to every on-chip
// buffer, each buffer a window of the local address map. A transaction goes to the window holding
// its address, rebased to the buffer's own addresses; DMI grants come back
// translated to the local map. The bus adds no time (a buffer's own port
// timing stands); an address outside every window answers an address error.
// With `check_protocol`, a base-protocol checker (models/checker) sits between
// the bus and each buffer, so every initiator's traffic to that buffer is
// checked as the buffer sees it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checker/protocol_checker.hpp"

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

namespace eva {

class LocalBus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<LocalBus> target_socket;
  tlm_utils::multi_passthrough_initiator_socket<LocalBus> initiator_socket;

  explicit LocalBus(const sc_core::sc_module_name& name, bool check_protocol = false);
  LocalBus(const LocalBus&) = delete;
  LocalBus& operator=(const LocalBus&) = delete;

  // Binds `target` (a buffer's target socket) as the window [base, base + size).
  template <class Socket>
  void attach(Socket& target, std::uint64_t base, std::uint64_t size) {
    if (m_check_protocol) {
      m_checkers.push_back(std::make_unique<ProtocolChecker>(checker_name(m_windows.size()).c_str()));
      initiator_socket.bind(m_checkers.back()->target_socket);
      m_checkers.back()->initiator_socket.bind(target);
    } else {
      initiator_socket.bind(target);
    }
    // A window that no earlier one overlaps is the first to hold any access
    // it holds: decode() may try it first when it held the last one.
    bool alone = true;
    for (const Window& w : m_windows) alone = alone && (base >= w.base + w.size || w.base >= base + size);
    m_windows.push_back({base, size, alone});
  }
  // The base of window `i`, in the order attached.
  std::uint64_t base(std::size_t i) const { return m_windows.at(i).base; }
  // The checkers in front of the buffers (empty without check_protocol).
  const std::vector<std::unique_ptr<ProtocolChecker>>& checkers() const { return m_checkers; }

 private:
  struct Window {
    std::uint64_t base, size;
    bool alone;  // no earlier window overlaps it
    bool holds(std::uint64_t addr, std::uint64_t len) const {
      return addr >= base && addr - base < size && len <= size - (addr - base);
    }
  };
  // The first window holding [addr, addr + len), or -1.
  int decode(std::uint64_t addr, std::uint64_t len) const;
  mutable std::size_t m_last = 0;  // the window decode() found last
  void b_transport(int from, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(int from, tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int from, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate(int port, sc_dt::uint64 start, sc_dt::uint64 end);
  static std::string checker_name(std::size_t window) { return "checker_" + std::to_string(window); }

  bool m_check_protocol;
  std::vector<Window> m_windows;
  std::vector<std::unique_ptr<ProtocolChecker>> m_checkers;  // one per window, with check_protocol
};

}  // namespace eva
