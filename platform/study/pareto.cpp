#include "study/pareto.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "report/plot.hpp"

namespace eva {

std::vector<Objective> default_objectives() {
  return {{"tokens_per_s", true}, {"energy_per_token_j", false}, {"area_mm2", false}};
}

std::vector<Objective> parse_objectives(const std::string& spec) {
  std::vector<Objective> out;
  std::set<std::string> seen;
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto colon = item.rfind(':');
    const std::string key = item.substr(0, colon), sense = colon == std::string::npos ? "" : item.substr(colon + 1);
    if (key.empty() || (sense != "max" && sense != "min"))
      throw InputError(fmt::format("--objectives: '{}': expected KEY:max or KEY:min (e.g. tokens_per_s:max)", item));
    if (!seen.insert(key).second) throw InputError(fmt::format("--objectives: '{}' is named twice", key));
    out.push_back({key, sense == "max"});
  }
  if (out.size() < 2) throw InputError("--objectives: expected at least two, e.g. tokens_per_s:max,area_mm2:min");
  return out;
}

nlohmann::ordered_json objectives_json(const std::vector<Objective>& objectives) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Objective& o : objectives) out.push_back(o.key + (o.maximise ? ":max" : ":min"));
  return out;
}

std::optional<std::vector<bool>> pareto_front(const std::vector<nlohmann::ordered_json>& rows,
                                              const std::vector<Objective>& objectives) {
  // Each row's objectives as costs (a maximised value negated), or nothing.
  std::vector<std::optional<std::vector<double>>> cost(rows.size());
  bool any = false;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<double> c;
    for (const Objective& o : objectives) {
      const auto it = rows[r].find(o.key);
      if (it == rows[r].end() || !it->is_number() || !std::isfinite(it->get<double>())) break;
      c.push_back(o.maximise ? -it->get<double>() : it->get<double>());
    }
    if (c.size() == objectives.size()) {
      cost[r] = std::move(c);
      any = true;
    }
  }
  if (!any) return std::nullopt;
  const auto dominates = [](const std::vector<double>& a, const std::vector<double>& b) {
    bool better = false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k] > b[k]) return false;
      better = better || a[k] < b[k];
    }
    return better;
  };
  std::vector<bool> front(rows.size(), false);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!cost[r]) continue;
    front[r] = true;
    for (std::size_t q = 0; q < rows.size() && front[r]; ++q)
      if (q != r && cost[q] && dominates(*cost[q], *cost[r])) front[r] = false;
  }
  return front;
}

void write_pareto_plot(const std::string& python, const std::string& png,
                       const std::vector<nlohmann::ordered_json>& rows, const std::vector<bool>& front,
                       const std::vector<std::string>& labels, const std::vector<Objective>& objectives,
                       const std::string& title) {
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    nlohmann::json values = nlohmann::json::array();
    bool complete = true;
    for (const Objective& o : objectives) {
      const auto it = rows[r].find(o.key);
      complete = complete && it != rows[r].end() && it->is_number();
      values.push_back(complete ? it->get<double>() : 0.0);
    }
    if (complete) points.push_back({{"values", values}, {"front", static_cast<bool>(front[r])}, {"label", labels[r]}});
  }
  nlohmann::json objectives_list = nlohmann::json::array();
  for (const Objective& o : objectives) objectives_list.push_back({{"key", o.key}, {"maximise", o.maximise}});
  run_plot_script(python, "plot_pareto.py", png,
                  {{"title", title}, {"objectives", objectives_list}, {"points", points}});
}

}  // namespace eva
