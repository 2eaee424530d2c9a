#include "config/load_arch.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/error.hpp"
#include "config/builtin_files.hpp"
#include "dram/address_mapper.hpp"
#include "eva/eva_sizes.hpp"

namespace eva {

namespace {

const std::string arch_dir = "platform/configs/archs/";
const std::string dram_dir = "platform/configs/dram/";

bool looks_like_path(const std::string& s) {
  const auto ends = [&](const char* e) {
    const std::string x(e);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
  };
  return s.find('/') != std::string::npos || ends(".yaml") || ends(".yml");
}

// A built-in preset by name, or a file by path. `what` names the option.
ParamSet load_named(const std::string& name, const std::string& dir, const std::vector<std::string>& builtins,
                    const std::string& what, const std::string& prefix) {
  const auto& files = builtin_files();
  const auto it = files.find(dir + name + ".yaml");
  if (it != files.end()) return ParamSet::from_yaml(it->second, it->first, prefix);
  if (looks_like_path(name)) return ParamSet::from_file(name, prefix);
  throw InputError(fmt::format("{}: unknown name '{}' (built-in: {}; or a path to a YAML file)", what, name,
                               fmt::join(builtins, ", ")));
}

std::optional<std::string> scalar(const ParamSet& p, const std::string& key) {
  const Param* v = p.find(key);
  if (!v) return std::nullopt;
  if (!v->value.IsScalar() || v->value.Scalar().empty())
    throw InputError(fmt::format("{}: {}: expected a name", v->origin, key));
  return v->value.Scalar();
}

// An architecture file, with the built-in it names as `base` underneath.
// `builtin`: what of it the built-in files give (all of it for a built-in).
ParamSet load_arch_file(const std::string& arch, const std::string& origin, int depth, ParamSet& builtin) {
  ParamSet own = load_named(arch, arch_dir, builtin_arch_names(), origin, "");
  const bool is_builtin = builtin_files().count(arch_dir + arch + ".yaml") > 0;
  const auto base = scalar(own, "base");
  if (!base) {
    if (is_builtin) builtin = own;
    return own;
  }
  if (depth >= 8)
    throw InputError(fmt::format("{}: base: too many levels of base architectures", own.find("base")->origin));
  const std::string base_origin = own.find("base")->origin + ": base";
  own.erase("base");
  ParamSet merged = load_arch_file(*base, base_origin, depth + 1, builtin);
  merged.merge(own);
  if (is_builtin) builtin = merged;
  return merged;
}

bool power_of_two(std::uint64_t v) { return v && !(v & (v - 1)); }

void validate_dram(const DramConfig& d, const ConfigReader& r, const ParamSet& params) {
  const auto& ideal_keys = ideal_only_dram_keys();
  const auto is_ideal_key = [&](const std::string& k) {
    return std::find(ideal_keys.begin(), ideal_keys.end(), k) != ideal_keys.end();
  };
  for (const auto& [key, param] : params.params()) {
    if (key.compare(0, 5, "dram.") != 0) continue;
    const std::string k = key.substr(5);
    if (k == "preset" || k == "kind" || k == "standard") continue;
    if (d.kind == DramKind::ideal && !is_ideal_key(k)) r.fail(key, "only for dram.kind: timed (this preset is ideal)");
    if (d.kind == DramKind::timed && is_ideal_key(k))
      r.fail(key, k == "bandwidth_gbps" ? "only for dram.kind: ideal; a timed DRAM's peak is channels x burst / "
                                          "(tBURST x tck_ps)"
                                        : "only for dram.kind: ideal");
  }
  if (d.kind != DramKind::timed) return;
  for (const auto& [key, value] : std::vector<std::pair<const char*, int>>{{"dram.channels", d.channels},
                                                                           {"dram.ranks", d.ranks},
                                                                           {"dram.bank_groups", d.bank_groups},
                                                                           {"dram.banks_per_group", d.banks_per_group},
                                                                           {"dram.rows", d.rows}})
    if (!power_of_two(static_cast<std::uint64_t>(value))) r.fail(key, "expected a power of two (address mapping)");
  if ((d.burst_length * d.width_bits) % 8 != 0 || !power_of_two(d.burst_bytes()))
    r.fail("dram.burst_length", "burst_length x width_bits / 8 must be a power-of-two number of bytes");
  if (d.row_bytes() % d.burst_bytes() != 0 || !power_of_two(d.row_bytes() / d.burst_bytes()))
    r.fail("dram.columns", "a row must hold a power-of-two number of bursts");
  std::array<AddressMapper::Field, AddressMapper::fields> order{};
  if (!AddressMapper::parse(d.address_mapping, order))
    r.fail("dram.address_mapping", "expected each of ro, ra, bg, ba, co, ch once, comma-separated, MSB first");
  const DramTimings& t = d.timing;
  if (t.tRC < t.tRAS + t.tRP) r.fail("dram.timing.tRC", "expected at least tRAS + tRP");
  if (t.tCCD_L < t.tCCD_S || t.tRRD_L < t.tRRD_S || t.tWTR_L < t.tWTR_S)
    r.fail("dram.timing.tCCD_L", "the _L (same bank group) timings must be at least their _S ones");
  if (t.tCCD_S < 1) r.fail("dram.timing.tCCD_S", "expected at least 1");
  if (t.tREFI <= t.tRFC) r.fail("dram.timing.tREFI", "expected more than tRFC");
  if (d.refresh == RefreshMode::per_bank && (t.tRFCpb < 1 || t.tREFIpb <= t.tRFCpb))
    r.fail("dram.timing.tREFIpb", "per-bank refresh needs tRFCpb >= 1 and tREFIpb > tRFCpb");
  if (d.write_low >= d.write_high || d.write_high > d.write_queue)
    r.fail("dram.write_high", "expected write_low < write_high <= write_queue");
}

void validate(const ArchConfig& c, const ConfigReader& r) {
  if (c.vq.vector_dim > 0 && (c.vq.group_k == 0) != (c.vq.group_n == 0))
    r.fail(c.vq.group_k == 0 ? "vq.group_n" : "vq.group_k", "vq.group_k and vq.group_n must both be 0 or both > 0");
  if (c.vq.group_k % c.vq.vector_dim != 0)
    r.fail("vq.group_k", fmt::format("expected a multiple of vq.vector_dim ({})", c.vq.vector_dim));
}

}  // namespace

std::vector<std::string> builtin_arch_names() { return builtin_names(arch_dir, ".yaml"); }
std::vector<std::string> builtin_dram_names() { return builtin_names(dram_dir, ".yaml"); }

ArchConfig load_arch(const ArchRequest& request) {
  ParamSet builtin;  // what the built-in files give, beneath a user's file
  ParamSet arch = load_arch_file(request.arch, request.origin, 0, builtin);
  ParamSet sets;
  for (const auto& s : request.sets) sets.set_override(s);

  std::string preset = "ideal";
  if (auto from_arch = scalar(arch, "dram.preset")) preset = *from_arch;
  if (auto from_set = scalar(sets, "dram.preset")) preset = *from_set;
  if (request.dram) preset = *request.dram;

  ParamSet params = load_named(preset, dram_dir, builtin_dram_names(), "--dram", "dram.");
  params.merge(arch);
  params.merge(sets);
  if (request.dram) params.set("dram.preset", preset, "--dram " + preset);
  if (!params.find("dram.preset")) params.set("dram.preset", preset, "the default DRAM preset");

  const auto read = [&request](const ParamSet& p) {
    ArchConfig config;
    ConfigReader reader(p, "architecture " + request.arch);
    config.visit(reader);
    reader.finish();
    validate(config, reader);
    validate_dram(config.dram, reader, p);
    return config;
  };
  ArchConfig config = read(params);
  // EVA's OC follows its epilogue, unless --set or the user's file gives it
  // (a built-in preset's values are defaults): one bank per lookup a cycle
  // (units x adder inputs, the power of two a pass uses), and, when the banks
  // change, the size that keeps each bank's depth.
  const auto given = [&](const std::string& key) {
    if (sets.find(key)) return true;
    const Param* a = arch.find(key);
    const Param* b = builtin.find(key);
    return a && (!b || a->origin != b->origin);
  };
  if (config.kind == ArchKind::eva &&
      (given("epilogue.units") || given("epilogue.adder_inputs") || given("oc.banks"))) {
    ParamSet base_params = load_named(preset, dram_dir, builtin_dram_names(), "--dram", "dram.");
    base_params.merge(builtin);
    base_params.set("dram.preset", preset, "the DRAM preset");
    const ArchConfig base = read(base_params);
    std::uint64_t banks = static_cast<std::uint64_t>(config.oc.banks);
    if (!given("oc.banks")) {
      banks = eva_pass_lookups(config.epilogue);
      params.set("oc.banks", std::to_string(banks), "follows epilogue.units x epilogue.adder_inputs");
    }
    if (banks != static_cast<std::uint64_t>(base.oc.banks) && !given("oc.size_kib")) {
      const std::uint64_t bytes = eva_oc_depth(base.oc) * static_cast<std::uint64_t>(base.oc.buffers) * banks *
                                  static_cast<std::uint64_t>(base.oc.bank_width_bytes);
      params.set("oc.size_kib", std::to_string((bytes + 1023) / 1024), "follows oc.banks, keeping each bank's depth");
    }
    config = read(params);
  }
  return config;
}

namespace {

DramConfig read_dram(const std::optional<std::string>& preset, const std::vector<std::string>& sets, SimConfig* sim) {
  ParamSet over;
  for (const auto& s : sets) over.set_override(s);
  std::string name = "ideal";
  if (auto from_set = scalar(over, "dram.preset")) name = *from_set;
  if (preset) name = *preset;
  ParamSet params = load_named(name, dram_dir, builtin_dram_names(), "--dram", "dram.");
  params.merge(over);
  if (!params.find("dram.preset")) params.set("dram.preset", name, "--dram " + name);
  DramConfig dram;
  ConfigReader reader(params, "DRAM preset " + name);
  reader.section("dram", dram);
  if (sim) reader.section("sim", *sim);
  reader.finish();
  validate_dram(dram, reader, params);
  return dram;
}

}  // namespace

DramConfig load_dram(const std::optional<std::string>& preset, const std::vector<std::string>& sets) {
  return read_dram(preset, sets, nullptr);
}

DramConfig load_dram(const std::optional<std::string>& preset, const std::vector<std::string>& sets, SimConfig& sim) {
  return read_dram(preset, sets, &sim);
}

std::string to_yaml(ArchConfig config) {
  // Only the DRAM keys the chosen kind reads (validate_dram refuses the others).
  const DramKind kind = config.dram.kind;
  const auto& ideal_keys = ideal_only_dram_keys();
  ConfigPrinter printer([kind, &ideal_keys](const std::string& path) {
    if (path.compare(0, 5, "dram.") != 0) return true;
    const std::string k = path.substr(5, path.find('.', 5) - 5);
    if (k == "preset" || k == "kind" || k == "standard") return true;
    const bool ideal_key = std::find(ideal_keys.begin(), ideal_keys.end(), k) != ideal_keys.end();
    return (kind == DramKind::ideal) == ideal_key;
  });
  config.visit(printer);
  return printer.str();
}

const char* setting_name(const ArchConfig& config) {
  const WeightLoad w = config.systolic.weight_load;
  // EVA's mode policy and vq-conflict's lookup model are part of the setting;
  // the other kinds ignore them.
  const auto policy = [&](ModePolicy p, LookupModel l) {
    if (config.kind == ArchKind::eva) return config.eva.mode_policy == p;
    if (config.kind == ArchKind::vq_conflict) return config.lookup.model == l;
    return true;
  };
  if (config.dram.kind == DramKind::ideal && config.dram.bandwidth_gbps == 64.0 && w == WeightLoad::paper &&
      config.formats.lm_head == LmHead::native && config.systolic.dense_fp16 == DenseFp16::int8_rate &&
      config.energy.leakage_fraction == 1.0 && config.dma.descriptor_overlap == DescriptorOverlap::none &&
      policy(ModePolicy::thresholds, LookupModel::artifact))
    return "paper";
  if (config.dram.kind == DramKind::timed && w == WeightLoad::overlapped && config.formats.lm_head == LmHead::fp16 &&
      config.systolic.dense_fp16 == DenseFp16::fp16_mode && config.dma.descriptor_overlap == DescriptorOverlap::next &&
      config.dram.posted_writes && policy(ModePolicy::estimate, LookupModel::lanes))
    return "realistic";
  return "custom";
}

std::optional<NamedSetting> find_setting(const std::string& name) {
  // The paper's: the artifact's memory (64 GB/s, no latency) and cycle
  // convention. The realistic one: validate's, a timed LPDDR5 device,
  // double-buffered weights, and EVA choosing its mode by its own estimate.
  // vq-conflict: the artifact's own naive-VQ tiles in the paper's setting,
  // the banked lookup lanes in the realistic one. The paper's LM head is in
  // the layers' format (the artifact prices the decoder layers only) and its
  // attention runs at the INT8 array's rate (as the artifact times it), and
  // every compute block draws its whole power every cycle (the artifact's
  // core_dynamic_energy 0, docs/ENERGY.md); the
  // realistic setting's head is FP16, as the quantisers leave it, FP16
  // GEMMs run in the arrays' FP16 modes, each descriptor's loads start while
  // the one before drains, and the controller answers a write once its queue
  // takes it (the artifact runs one layer at a time; docs/VALIDATION.md,
  // issue 12 item 7).
  if (name == "paper")
    return NamedSetting{"ideal",
                        {"systolic.weight_load=paper", "eva.mode_policy=thresholds", "lookup.model=artifact",
                         "formats.lm_head=native", "systolic.dense_fp16=int8_rate", "energy.leakage_fraction=1"}};
  if (name == "realistic")
    return NamedSetting{
        "lpddr5-6400",
        {"systolic.weight_load=overlapped", "eva.mode_policy=estimate", "lookup.model=lanes", "formats.lm_head=fp16",
         "systolic.dense_fp16=fp16_mode", "dma.descriptor_overlap=next", "dram.posted_writes=true"}};
  return std::nullopt;
}

NamedSetting setting_named(const std::string& name) {
  if (std::optional<NamedSetting> s = find_setting(name)) return *s;
  throw InputError(fmt::format("--setting {}: expected {}", name, setting_choices));
}

}  // namespace eva
