#pragma once
// Named statistics with a unit and a description, grouped per module and
// gathered into one report. Modules own their groups; the platform flushes them
// into the report explicitly after a run (nothing relies on end_of_simulation).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace eva {

struct Stat {
  std::string name;
  std::string unit;
  std::string description;
  double value = 0.0;
};

class StatGroup {
 public:
  explicit StatGroup(std::string name) : m_name(std::move(name)) {}

  // Registers a statistic and returns a handle (index) for fast updates.
  std::size_t add(std::string name, std::string unit, std::string description) {
    m_stats.push_back(Stat{std::move(name), std::move(unit), std::move(description), 0.0});
    return m_stats.size() - 1;
  }
  void inc(std::size_t id, double by = 1.0) { m_stats[id].value += by; }
  void set(std::size_t id, double value) { m_stats[id].value = value; }
  // By handle only: a unit exposes its statistics as typed members or an enum
  // (a name lookup would read zero when misspelt).
  double get(std::size_t id) const { return m_stats[id].value; }

  const std::string& name() const { return m_name; }
  const std::vector<Stat>& stats() const { return m_stats; }

 private:
  std::string m_name;
  std::vector<Stat> m_stats;
};

}  // namespace eva
