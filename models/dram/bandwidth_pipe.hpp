#pragma once
// The `ideal` DRAM's timing: one pipe of fixed bandwidth shared by all
// requests in arrival order, plus a fixed latency. No banks, rows or refresh:
// this is the EVA artifact's memory model (bytes / bandwidth), made into a
// resource that concurrent requests queue for.
#include <algorithm>
#include <cstdint>

namespace eva {

class BandwidthPipe {
 public:
  BandwidthPipe(double bandwidth_gbps, double latency_ns)
      : m_ps_per_byte(1000.0 / bandwidth_gbps), m_latency_ps(latency_ns * 1000.0) {}

  // A request of `bytes` arriving at `arrival_ps`: returns when its last byte
  // has been delivered (picoseconds since time zero).
  double transfer(double arrival_ps, std::uint64_t bytes) { return transfer_for(arrival_ps, duration_ps(bytes)); }
  // The same with the request's time in the pipe, duration_ps(bytes), given.
  double transfer_for(double arrival_ps, double duration) {
    const double start = std::max(arrival_ps, m_free_at_ps);
    m_free_at_ps = start + duration;
    m_busy_ps += m_free_at_ps - start;
    return m_free_at_ps + m_latency_ps;
  }
  double duration_ps(std::uint64_t bytes) const { return static_cast<double>(bytes) * m_ps_per_byte; }

  double busy_ps() const { return m_busy_ps; }

 private:
  double m_ps_per_byte;
  double m_latency_ps;
  double m_free_at_ps = 0.0;
  double m_busy_ps = 0.0;
};

}  // namespace eva
