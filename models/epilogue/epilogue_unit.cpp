#include "epilogue/epilogue_unit.hpp"

#include <algorithm>

#include "common/timeline.hpp"

namespace eva {

EpilogueUnit::EpilogueUnit(const sc_core::sc_module_name& name, const EpilogueConfig& config, int index,
                           std::uint64_t oc_banks, double clock_mhz, const UnitPower& power)
    : sc_module(name),
      lookup_socket("lookup_socket"),
      m_config(config),
      m_index(static_cast<std::uint64_t>(index)),
      m_lookups(static_cast<std::uint64_t>(config.units) * static_cast<std::uint64_t>(config.adder_inputs)),
      m_banks(oc_banks),
      m_clock(clock_mhz),
      m_power(power),
      m_stats(basename()) {
  m_stat[columns] = m_stats.add("columns", "columns", "output columns processed (per pass)");
  m_stat[lookups] = m_stats.add("lookups", "lookups", "OC entries looked up and added");
  m_stat[busy_cycles] = m_stats.add("busy_cycles", "cycles", "cycles the adder tree worked");
  m_stat[conflict_cycles] = m_stats.add("conflict_cycles", "cycles", "cycles lost to OC bank conflicts");
  m_access.lane_bytes = 2;
  SC_HAS_PROCESS(EpilogueUnit);
  SC_THREAD(run);
}

void EpilogueUnit::start(const Job& job) {
  m_busy = true;
  m_jobs.push(job);
}

double EpilogueUnit::energy_j(double seconds) const {
  return m_power.energy_j(stat(busy_cycles) * m_clock.cycles(1).to_seconds(), seconds);
}

void EpilogueUnit::run() {
  for (;;) {
    const Job job = m_jobs.pop();
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const std::uint64_t cycles = job.indices ? functional_job(job, delay) : timing_job(job, delay);
    m_stats.inc(m_stat[columns], static_cast<double>(job.cols));
    m_stats.inc(m_stat[busy_cycles], static_cast<double>(cycles));
    m_last_cycles = cycles;
    // The lookups' time is the unit's: its slots, conflicts included.
    wait(m_clock.cycles(cycles));
    m_busy = false;
    m_done.notify(sc_core::SC_ZERO_TIME);
  }
}

std::uint64_t EpilogueUnit::timing_job(const Job& j, sc_core::sc_time& delay) {
  const auto a = static_cast<std::uint64_t>(m_config.adder_inputs);
  const std::uint64_t slots = std::max<std::uint64_t>(1, (j.rows + m_lookups - 1) / m_lookups);
  std::uint64_t cycles = 0;
  for (std::uint64_t t = 0; t < slots; ++t) {
    m_access.addrs.clear();
    const std::uint64_t first = t * m_lookups + m_index * a;
    for (std::uint64_t r = first; r < std::min(first + a, j.rows); ++r) m_access.addrs.push_back(j.oc_base + 2 * r);
    if (m_access.addrs.empty()) {
      cycles += j.cols;  // the slot passes with the others
      continue;
    }
    m_access.repeat = j.cols;
    const std::uint64_t c = lane_transport(lookup_socket, m_trans, m_access, false, nullptr, delay);
    cycles += c;
    m_stats.inc(m_stat[lookups], static_cast<double>(m_access.addrs.size() * j.cols));
    m_stats.inc(m_stat[conflict_cycles], static_cast<double>(c - j.cols));
  }
  return cycles;
}

std::uint64_t EpilogueUnit::functional_job(const Job& j, sc_core::sc_time& delay) {
  const auto a = static_cast<std::uint64_t>(m_config.adder_inputs);
  const std::uint64_t slots = std::max<std::uint64_t>(1, (j.rows + m_lookups - 1) / m_lookups);
  const std::uint64_t v_count = j.rows / j.m;
  std::vector<std::uint64_t> lane_rows;
  std::uint64_t cycles = 0;
  m_access.repeat = 1;
  for (std::uint64_t col = 0; col < j.cols; ++col)
    for (std::uint64_t t = 0; t < slots; ++t) {
      m_access.addrs.clear();
      lane_rows.clear();
      const std::uint64_t first = t * m_lookups + m_index * a;
      for (std::uint64_t r = first; r < std::min(first + a, j.rows); ++r) {
        const std::uint32_t index = j.indices[col * v_count + r / j.m];
        if (index < j.entry0 || index >= j.entry0 + j.entries) continue;  // another entry tile's
        m_access.addrs.push_back(j.oc_base + 2 * ((index - j.entry0) * m_banks + r));
        lane_rows.push_back(r);
      }
      if (m_access.addrs.empty()) {
        ++cycles;
        continue;
      }
      m_values.resize(m_access.addrs.size());
      const std::uint64_t c = lane_transport(lookup_socket, m_trans, m_access, false,
                                             reinterpret_cast<std::uint8_t*>(m_values.data()), delay);
      cycles += c;
      m_stats.inc(m_stat[conflict_cycles], static_cast<double>(c - 1));
      m_stats.inc(m_stat[lookups], static_cast<double>(m_access.addrs.size()));
      // The adder tree: this slot's lanes, per input row.
      for (std::size_t l = 0; l < lane_rows.size(); ++l)
        j.partial[(lane_rows[l] % j.m) * j.cols + col] += half_to_float(m_values[l]);
    }
  return cycles;
}

}  // namespace eva
