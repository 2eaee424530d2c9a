#include "report/report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

#include "common/error.hpp"

namespace eva {

Efficiency efficiency(const Report& r) {
  Efficiency e;
  const double energy = r.energy_j.value_or(0.0);
  if (r.seconds > 0) e.gops = r.work_ops / r.seconds * 1e-9;
  if (energy > 0) e.gops_per_w = r.work_ops / energy * 1e-9;
  if (r.area_mm2 > 0) e.gops_per_mm2 = e.gops / r.area_mm2;
  if (r.work_ops > 0) e.energy_per_op_pj = energy / r.work_ops * 1e12;
  if (r.tokens > 0) e.energy_per_token_j = energy / static_cast<double>(r.tokens);
  return e;
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OpReport, name, m, n, k, count, cycles, compute_cycles, dram_bytes_read,
                                   dram_bytes_written, seconds, energy_j, energy_breakdown_j, work_ops, kind, bound_by)

std::string bound_by(const OpLoad& l) {
  const double busiest = std::max({l.array_cycles, l.epilogue_cycles, l.lookup_cycles, l.vector_cycles});
  if (l.memory_cycles >= busiest) return "memory";
  if (l.conflict_cycles > 0.25 * busiest) return "bank conflicts";
  if (l.epilogue_cycles == busiest && l.epilogue_cycles > l.array_cycles) return "epilogue";
  return "compute";
}

nlohmann::json breakdown_by_kind(const Report& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const OpReport& o : r.ops) {
    if (o.kind.empty()) continue;
    nlohmann::json& k = j[o.kind];
    if (k.is_null())
      k = {{"ops", 0},        {"seconds", 0.0},  {"energy_j", 0.0},
           {"dram_bytes", 0}, {"work_ops", 0.0}, {"seconds_bound_by", nlohmann::json::object()}};
    k["ops"] = k["ops"].get<std::uint64_t>() + 1;
    k["seconds"] = k["seconds"].get<double>() + o.seconds;
    k["energy_j"] = k["energy_j"].get<double>() + o.energy_j;
    k["dram_bytes"] = k["dram_bytes"].get<std::uint64_t>() + o.dram_bytes_read + o.dram_bytes_written;
    k["work_ops"] = k["work_ops"].get<double>() + o.work_ops;
    nlohmann::json& b = k["seconds_bound_by"][o.bound_by.empty() ? "unknown" : o.bound_by];
    b = (b.is_null() ? 0.0 : b.get<double>()) + o.seconds;
  }
  for (auto& [kind, k] : j.items()) {
    // The kind's bound: what bounds most of its time.
    std::string bound;
    double most = -1;
    for (const auto& [name, s] : k["seconds_bound_by"].items())
      if (s.get<double>() > most) {
        most = s.get<double>();
        bound = name;
      }
    k["bound_by"] = bound;
    k["share_of_seconds"] = r.seconds > 0 ? k["seconds"].get<double>() / r.seconds : 0.0;
  }
  return j;
}

std::string kind_table(const Report& r) {
  const nlohmann::json b = breakdown_by_kind(r);
  if (b.empty()) return "";
  std::string out = fmt::format("{:<12} {:>6} {:>12} {:>8} {:>12} {:>14}  {}\n", "kind", "ops", "time_ms", "share",
                                "energy_mJ", "dram_MB", "bound by (most of its time)");
  for (const auto& [kind, k] : b.items())
    out +=
        fmt::format("{:<12} {:>6} {:>12.4f} {:>7.1f}% {:>12.4f} {:>14.3f}  {}\n", kind, k["ops"].get<std::uint64_t>(),
                    k["seconds"].get<double>() * 1e3, 100.0 * k["share_of_seconds"].get<double>(),
                    k["energy_j"].get<double>() * 1e3, static_cast<double>(k["dram_bytes"].get<std::uint64_t>()) * 1e-6,
                    k["bound_by"].get<std::string>());
  return out;
}

nlohmann::json report_state(const Report& r) {
  return {{"arch", r.arch},
          {"model", r.model},
          {"phase", r.phase},
          {"cycles", r.cycles},
          {"seconds", r.seconds},
          {"energy_j", r.energy_j ? nlohmann::json(*r.energy_j) : nlohmann::json(nullptr)},
          {"energy_breakdown_j", r.energy_breakdown_j},
          {"area_mm2", r.area_mm2},
          {"area_breakdown_mm2", r.area_breakdown_mm2},
          {"static_power_w", r.static_power_w},
          {"work_ops", r.work_ops},
          {"tokens", r.tokens},
          {"dram_bytes_read", r.dram_bytes_read},
          {"dram_bytes_written", r.dram_bytes_written},
          {"dram_bw_utilization", r.dram_bw_utilization},
          {"sram_bank_conflict_cycles", r.sram_bank_conflict_cycles},
          {"warnings", r.warnings},
          {"ops", r.ops},
          {"sim_wall_s", r.sim_wall_s},
          {"config", r.config},
          {"stats", r.stats},
          {"functional", r.functional},
          {"extra", r.extra},
          {"stat_keys", r.stat_keys},
          {"stat_totals", r.stat_totals},
          {"op_stats", r.op_stats},
          {"op_conflicts", r.op_conflicts}};
}

nlohmann::json stats_with(const nlohmann::json& like, const std::vector<std::pair<std::string, std::string>>& keys,
                          const std::vector<double>& totals) {
  nlohmann::json j = like;
  // Groups of one name (a JSON object keeps one) are summed, as one module's.
  std::map<std::pair<std::string, std::string>, double> sums;
  for (std::size_t i = 0; i < keys.size() && i < totals.size(); ++i) sums[keys[i]] += totals[i];
  for (const auto& [key, value] : sums)
    if (j.contains(key.first) && j[key.first].contains(key.second)) j[key.first][key.second]["value"] = value;
  return j;
}

Report report_from_state(const nlohmann::json& j) {
  Report r;
  j.at("arch").get_to(r.arch);
  j.at("model").get_to(r.model);
  j.at("phase").get_to(r.phase);
  j.at("cycles").get_to(r.cycles);
  j.at("seconds").get_to(r.seconds);
  if (!j.at("energy_j").is_null()) r.energy_j = j.at("energy_j").get<double>();
  j.at("energy_breakdown_j").get_to(r.energy_breakdown_j);
  j.at("area_mm2").get_to(r.area_mm2);
  j.at("area_breakdown_mm2").get_to(r.area_breakdown_mm2);
  if (j.contains("static_power_w")) j.at("static_power_w").get_to(r.static_power_w);
  j.at("work_ops").get_to(r.work_ops);
  j.at("tokens").get_to(r.tokens);
  j.at("dram_bytes_read").get_to(r.dram_bytes_read);
  j.at("dram_bytes_written").get_to(r.dram_bytes_written);
  j.at("dram_bw_utilization").get_to(r.dram_bw_utilization);
  j.at("sram_bank_conflict_cycles").get_to(r.sram_bank_conflict_cycles);
  j.at("warnings").get_to(r.warnings);
  j.at("ops").get_to(r.ops);
  j.at("sim_wall_s").get_to(r.sim_wall_s);
  r.config = j.at("config");
  r.stats = j.at("stats");
  r.functional = j.at("functional");
  r.extra = j.at("extra");
  j.at("stat_keys").get_to(r.stat_keys);
  j.at("stat_totals").get_to(r.stat_totals);
  j.at("op_stats").get_to(r.op_stats);
  j.at("op_conflicts").get_to(r.op_conflicts);
  return r;
}

nlohmann::json to_json(const Report& r) {
  // Every field (ops with their time, energy breakdown and work), the
  // derived figures, and the command's extra keys at the top level.
  nlohmann::json j = report_state(r);
  for (const char* k : {"extra", "stat_keys", "stat_totals", "op_stats", "op_conflicts"}) j.erase(k);
  if (r.functional.is_null()) j.erase("functional");
  const Efficiency e = efficiency(r);
  j["gops"] = e.gops;
  j["gops_per_w"] = e.gops_per_w;
  j["gops_per_mm2"] = e.gops_per_mm2;
  j["energy_per_op_pj"] = e.energy_per_op_pj;
  j["energy_per_token_j"] = e.energy_per_token_j;
  if (std::any_of(r.ops.begin(), r.ops.end(), [](const OpReport& o) { return !o.kind.empty(); }))
    j["breakdown_by_kind"] = breakdown_by_kind(r);
  if (r.extra.is_object())
    for (const auto& [key, value] : r.extra.items()) j[key] = value;
  return j;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string to_csv(const std::vector<Report>& reports) {
  // After the fixed columns: tokens/s, then every ratio against a baseline
  // that some report carries (compare and e2e: speedup_vs_sa, ...).
  std::vector<std::string> ratios;
  for (const auto& r : reports)
    for (const auto& [key, value] : r.extra.items())
      if (value.is_number() && (key.rfind("speedup_vs_", 0) == 0 || key.rfind("energy_efficiency_vs_", 0) == 0) &&
          std::find(ratios.begin(), ratios.end(), key) == ratios.end())
        ratios.push_back(key);
  std::ostringstream out;
  out << "arch,model,phase,cycles,seconds,energy_j,dram_bytes_read,dram_bytes_written,dram_bw_utilization,"
         "sram_bank_conflict_cycles,ops,sim_wall_s,area_mm2,gops,gops_per_w,gops_per_mm2,energy_per_token_j,"
         "tokens_per_s";
  for (const std::string& k : ratios) out << "," << k;
  out << "\n";
  for (const auto& r : reports) {
    out << fmt::format("{},{},{},{},{:.9g},{},{},{},{:.6f},{},{},{:.3f},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}",
                       csv_field(r.arch), csv_field(r.model), csv_field(r.phase), r.cycles, r.seconds,
                       r.energy_j ? fmt::format("{:.9g}", *r.energy_j) : "", r.dram_bytes_read, r.dram_bytes_written,
                       r.dram_bw_utilization, r.sram_bank_conflict_cycles, r.ops.size(), r.sim_wall_s, r.area_mm2,
                       efficiency(r).gops, efficiency(r).gops_per_w, efficiency(r).gops_per_mm2,
                       efficiency(r).energy_per_token_j,
                       r.seconds > 0 ? static_cast<double>(r.tokens) / r.seconds : 0.0);
    for (const std::string& k : ratios)
      out << "," << (r.extra.contains(k) ? fmt::format("{:.6g}", r.extra[k].get<double>()) : std::string());
    out << "\n";
  }
  return out.str();
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot write file", path));
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw InputError(fmt::format("{}: cannot write file", path));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write file", path));
  }
}

}  // namespace eva
