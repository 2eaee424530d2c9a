#include "study/validate.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/load_arch.hpp"
#include "dataset.hpp"
#include "study/runner.hpp"
#include "study/studies.hpp"
#include "workload.hpp"

namespace eva {

namespace {

// The seeds' headline figures (BRIEF section 6), the only numbers typed in
// here: everything beside them comes out of the model.
constexpr double paper_decode_speedup_vs_figlut = 11.17;  // the mean over the artifact's models
constexpr double paper_energy_efficiency_vs_figlut = 7.17;
constexpr double paper_e2e_speedup_min = 8.20, paper_e2e_speedup_max = 24.49;
// The artifact's naive-VQ ablation: about 37x EVA's cycles on a LLaMA-2-7B
// layer's FC layers (../shared/BASELINES.md 4.5).
constexpr double artifact_naive_vq_over_eva = 37.0;
const std::string vq_model = "llama2-7b";

// The dense models of BRIEF section 5 whose FC layers the decode claims range over.
const std::vector<std::string> decode_models = {"llama1-7b",  "llama1-13b", "llama1-30b", "llama1-65b", "llama2-7b",
                                                "llama2-13b", "llama2-70b", "llama3-8b",  "llama3-70b"};
// The seven the EVA artifact's decode figure holds: the paper's 11.17x and
// 7.17x are the mean over them (its maximum is higher), so that is the
// statistic the checks compare; every model and the maximum stand beside it.
const std::vector<std::string> artifact_models = {"llama1-7b", "llama1-13b", "llama1-30b", "llama1-65b",
                                                  "llama2-7b", "llama2-13b", "llama3-8b"};
const std::vector<std::string> e2e_baselines = {"sa", "ant", "figna", "figlut"};

// A named setting as validate runs it: its label and what it stands for.
struct Setting {
  std::string name;
  NamedSetting parts;
};

// One decoder layer's FC layers at batch 1: what the decode claims measure.
Workload fc_layer(const ModelConfig& m) {
  WorkloadRequest q;
  q.phase = Phase::decode;
  q.seq_len = 1;
  Workload w = compile_workload(m, q);
  std::vector<WorkloadOp> ops;
  for (const WorkloadOp& op : w.ops)
    if (op.kind == WorkloadOp::Kind::fc && op.layer == 0) ops.push_back(op);
  w.ops = ops;
  return w;
}

std::size_t index_of(const std::vector<ArchConfig>& archs, const std::string& name) {
  for (std::size_t i = 0; i < archs.size(); ++i)
    if (archs[i].name == name) return i;
  return archs.size();
}

}  // namespace

nlohmann::json validate(const ValidateOptions& o, std::string& table) {
  // The named settings of every simulating command; the realistic one's DRAM
  // is --realistic-dram.
  NamedSetting realistic = setting_named("realistic");
  realistic.dram = o.realistic_dram;
  const std::vector<Setting> settings = {
      {"paper (ideal 64 GB/s, weight_load=paper)", setting_named("paper")},
      {fmt::format("realistic ({}, overlapped, mode by estimate)", o.realistic_dram), realistic}};
  const std::vector<std::string> arch_names = {"eva", "figlut", "sa", "ant", "figna"};
  const ModelConfig e2e_model = load_model("llama2-7b");
  const std::vector<Request> dolly = load_dataset("dolly");

  // Every setting's platforms first (one elaboration), then one simulation.
  std::vector<std::unique_ptr<Runner>> runners, oc1_runners, vq_runners;
  std::vector<std::vector<std::size_t>> decode_ids, oc1_ids;
  std::vector<std::size_t> vq_ids;
  std::vector<E2ePlan> plans;
  for (const Setting& s : settings) {
    std::vector<ArchConfig> archs;
    for (const std::string& a : arch_names) {
      ArchRequest r;
      r.arch = a;
      r.dram = s.parts.dram;
      r.sets = s.parts.sets;
      archs.push_back(load_arch(r));
    }
    runners.push_back(std::make_unique<Runner>(archs));
    std::vector<std::size_t> ids;
    for (const std::string& m : decode_models) ids.push_back(runners.back()->add(fc_layer(load_model(m))));
    decode_ids.push_back(ids);
    plans.push_back(plan_e2e(*runners.back(), e2e_model, dolly, StudyOptions{}.kv_grid));
    // EVA with the published OC as it is (one 64 KB region): the decode checks only.
    ArchRequest r;
    r.arch = "eva-oc1";
    r.dram = s.parts.dram;
    r.sets = s.parts.sets;
    oc1_runners.push_back(std::make_unique<Runner>(std::vector<ArchConfig>{load_arch(r)}));
    std::vector<std::size_t> oc1;
    for (const std::string& m : decode_models) oc1.push_back(oc1_runners.back()->add(fc_layer(load_model(m))));
    oc1_ids.push_back(oc1);
    // The conflicting-VQ baseline in the setting's convention (lookup.model), on one model.
    r.arch = "vq-conflict";
    vq_runners.push_back(std::make_unique<Runner>(std::vector<ArchConfig>{load_arch(r)}));
    vq_ids.push_back(vq_runners.back()->add(fc_layer(load_model(vq_model))));
  }
  std::vector<Runner*> all;
  for (auto& r : runners) all.push_back(r.get());
  for (auto& r : oc1_runners) all.push_back(r.get());
  for (auto& r : vq_runners) all.push_back(r.get());
  Runner::run_all(all, o.quiet, o.jobs);

  nlohmann::json checks = nlohmann::json::array();
  const auto check = [&](const std::string& name, const Setting& s, double paper, double ours,
                         const std::string& detail) {
    checks.push_back({{"name", name},
                      {"setting", s.name},
                      {"paper", paper},
                      {"ours", ours},
                      {"ratio", ours / paper},
                      {"detail", detail}});
  };
  for (std::size_t si = 0; si < settings.size(); ++si) {
    const Runner& runner = *runners[si];
    const std::size_t eva = index_of(runner.archs(), "eva"), figlut = index_of(runner.archs(), "figlut");
    // Per model: FIGLUT's time and energy over EVA's on one layer's FC layers.
    double sum_speedup = 0, sum_eff = 0, max_speedup = 0, max_eff = 0;
    double oc1_speedup = 0, oc1_eff = 0;  // eva-oc1 (a single-buffered 64 KB OC) on the same models
    std::string speedup_at, eff_at, per_model_speedup, per_model_eff;
    nlohmann::json per_model = nlohmann::json::object();
    for (std::size_t m = 0; m < decode_models.size(); ++m) {
      const Report e = runner.report(eva, decode_ids[si][m], false);
      const Report f = runner.report(figlut, decode_ids[si][m], false);
      const double speedup = f.seconds / e.seconds, eff = f.energy_j.value_or(0) / e.energy_j.value_or(1);
      const std::string& name = decode_models[m];
      const bool in_artifact = std::find(artifact_models.begin(), artifact_models.end(), name) != artifact_models.end();
      per_model[name] = {{"speedup", speedup}, {"energy_efficiency", eff}, {"in_artifact_mean", in_artifact}};
      per_model_speedup +=
          fmt::format("{}{} {:.2f}{}", per_model_speedup.empty() ? "" : ", ", name, speedup, in_artifact ? "" : "*");
      per_model_eff +=
          fmt::format("{}{} {:.2f}{}", per_model_eff.empty() ? "" : ", ", name, eff, in_artifact ? "" : "*");
      if (!in_artifact) continue;
      sum_speedup += speedup;
      sum_eff += eff;
      const Report oc1 = oc1_runners[si]->report(0, oc1_ids[si][m], false);
      oc1_speedup += f.seconds / oc1.seconds;
      oc1_eff += f.energy_j.value_or(0) / oc1.energy_j.value_or(1);
      if (speedup > max_speedup) max_speedup = speedup, speedup_at = name;
      if (eff > max_eff) max_eff = eff, eff_at = name;
    }
    const auto n_models = static_cast<double>(artifact_models.size());
    check(
        "decode speedup, EVA-W2 over FIGLUT (mean over the artifact's 7 models, FC layers, batch 1)", settings[si],
        paper_decode_speedup_vs_figlut, sum_speedup / n_models,
        fmt::format("max {:.2f} at {}; per model: {} (* not in the mean)", max_speedup, speedup_at, per_model_speedup));
    checks.back()["max"] = max_speedup;
    checks.back()["per_model"] = per_model;
    check("decode energy efficiency, EVA-W2 over FIGLUT (mean over the artifact's 7 models)", settings[si],
          paper_energy_efficiency_vs_figlut, sum_eff / n_models,
          fmt::format("max {:.2f} at {}; per model: {} (* not in the mean)", max_eff, eff_at, per_model_eff));
    checks.back()["max"] = max_eff;
    checks.back()["per_model"] = per_model;
    // The same with a single-buffered 64 KB OC, beside the default double-buffered one.
    check("decode speedup, EVA-W2 with a single-buffered 64 KB OC (eva-oc1) over FIGLUT (mean of 7)", settings[si],
          paper_decode_speedup_vs_figlut, oc1_speedup / n_models, "the published OC as it is; docs/EVA.md");
    check("decode energy efficiency, eva-oc1 over FIGLUT (mean of 7)", settings[si], paper_energy_efficiency_vs_figlut,
          oc1_eff / n_models, "the published OC as it is; docs/EVA.md");
    // vq-conflict over EVA on one LLaMA-2-7B layer's FC layers, and both
    // against the fair "no VQ" reference: the layer's FP16 weights streamed at
    // the DRAM's peak.
    {
      const std::size_t m = static_cast<std::size_t>(std::find(decode_models.begin(), decode_models.end(), vq_model) -
                                                     decode_models.begin());
      const Report e = runner.report(eva, decode_ids[si][m], false);
      const Report v = vq_runners[si]->report(0, vq_ids[si], false);
      double fp16_bytes = 0;
      for (const WorkloadOp& op : fc_layer(load_model(vq_model)).ops)
        fp16_bytes += static_cast<double>(op.k * op.n * op.count) * 2;
      const ArchConfig& vq_arch = vq_runners[si]->archs()[0];
      const double stream_s = fp16_bytes / vq_arch.dram.peak_bytes_per_second();
      check("decode, vq-conflict over EVA-W2 (llama2-7b layer's FC layers; the artifact's naive-VQ ablation)",
            settings[si], artifact_naive_vq_over_eva, v.seconds / e.seconds,
            fmt::format("lookup.model={}; FP16 weights streamed at the DRAM's peak: {:.1f} us, vq-conflict {:.2f}x "
                        "that, EVA {:.2f}x",
                        enum_name(vq_arch.lookup.model), stream_s * 1e6, v.seconds / stream_s, e.seconds / stream_s));
      checks.back()["fp16_stream_s"] = stream_s;
    }
    const std::vector<Report> e2e = finish_e2e(runner, plans[si]);
    double lo = 1e300, hi = 0;
    std::string lo_at, hi_at;
    for (const std::string& b : e2e_baselines) {
      const double s = e2e[index_of(runner.archs(), b)].seconds / e2e[eva].seconds;
      if (s < lo) lo = s, lo_at = b;
      if (s > hi) hi = s, hi_at = b;
    }
    check("end-to-end speedup on Dolly, EVA over the baselines (lowest)", settings[si], paper_e2e_speedup_min, lo,
          "over " + lo_at + ", llama2-7b, 709 requests");
    check("end-to-end speedup on Dolly, EVA over the baselines (highest)", settings[si], paper_e2e_speedup_max, hi,
          "over " + hi_at + ", llama2-7b, 709 requests");
  }
  table = fmt::format("{:<94} {:<44} {:>8} {:>8} {:>7}  {}\n", "check", "setting", "paper", "ours", "ratio", "");
  for (const auto& c : checks)
    table += fmt::format("{:<94} {:<44} {:>8.2f} {:>8.2f} {:>7.2f}  {}\n", c["name"].get<std::string>(),
                         c["setting"].get<std::string>(), c["paper"].get<double>(), c["ours"].get<double>(),
                         c["ratio"].get<double>(), c["detail"].get<std::string>());
  return {{"checks", checks}};
}

}  // namespace eva
