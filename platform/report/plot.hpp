#pragma once
// compare --plot: a PNG of a comparison (latency, energy per token by module,
// ratios against a baseline), drawn by scripts/plot_compare.py with
// matplotlib. The script is compiled into eva-sim; Python and matplotlib are
// looked for at run time (Debian: python3-matplotlib).
#include <string>

#include <nlohmann/json.hpp>

namespace eva {

struct Report;

// The Python that has matplotlib; InputError when there is none (checked
// before a run, so that a missing package costs no simulation).
std::string plot_python();
// Draws `report` ({"results": [...]}) into `png`, whole or not at all.
void write_plot(const std::string& python, const std::string& png, const nlohmann::json& report);
// run --plot: a roofline of one report's operations (scripts/plot_roofline.py)
// under the DRAM's peak bandwidth and the array's dense peak, both in the
// data. Operations without work or traffic (no point on the axes) are counted
// in `left_out`.
nlohmann::json roofline_data(const Report& r, double peak_ops_per_s, double peak_bytes_per_s);
// Runs the built-in scripts/SCRIPT (as `SCRIPT DATA.json OUT.png`) on `data`
// and writes its picture into `png`, whole or not at all.
void run_plot_script(const std::string& python, const std::string& script, const std::string& png,
                     const nlohmann::json& data);

}  // namespace eva
