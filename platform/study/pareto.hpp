#pragma once
// The Pareto front of a sweep's rows: the design points no other point beats
// in every objective. `eva-sim sweep --plot` and `eva-sim pareto` draw it
// (scripts/plot_pareto.py, compiled in). Plain C++, no SystemC.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eva {

struct Objective {
  std::string key;        // a row's key (a number)
  bool maximise = false;  // else minimise
};

// tokens_per_s:max, energy_per_token_j:min, area_mm2:min.
std::vector<Objective> default_objectives();
// "key:max,key:min,..." (at least two); InputError naming what is wrong.
std::vector<Objective> parse_objectives(const std::string& spec);
nlohmann::ordered_json objectives_json(const std::vector<Objective>& objectives);

// Which rows are on the front: a row is when it has a finite number for every
// objective and no other such row is at least as good in all of them and
// better in one. nullopt when no row has every objective.
std::optional<std::vector<bool>> pareto_front(const std::vector<nlohmann::ordered_json>& rows,
                                              const std::vector<Objective>& objectives);

// Draws the rows into `png` (whole or not at all): one panel per pair of
// objectives, the front's points solid and labelled with `labels`, the
// dominated ones faded. `python` comes from plot_python().
void write_pareto_plot(const std::string& python, const std::string& png,
                       const std::vector<nlohmann::ordered_json>& rows, const std::vector<bool>& front,
                       const std::vector<std::string>& labels, const std::vector<Objective>& objectives,
                       const std::string& title);

}  // namespace eva
