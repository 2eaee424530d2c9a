#include "arch_config.hpp"

#include <fmt/format.h>

#include "common/builtin_files.hpp"
#include "common/error.hpp"

namespace eva {

namespace {

const std::string arch_dir = "platform/configs/archs/";
const std::string dram_dir = "platform/configs/dram/";

std::vector<std::string> names_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& [path, text] : builtin_files())
    if (path.compare(0, dir.size(), dir) == 0 && path.size() > dir.size() + ext.size() &&
        path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
      out.push_back(path.substr(dir.size(), path.size() - dir.size() - ext.size()));
  return out;
}

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
ParamSet load_arch_file(const std::string& arch, int depth) {
  ParamSet own = load_named(arch, arch_dir, builtin_arch_names(), "--arch", "");
  const auto base = scalar(own, "base");
  if (!base) return own;
  if (depth >= 8)
    throw InputError(fmt::format("{}: base: too many levels of base architectures", own.find("base")->origin));
  own.erase("base");
  ParamSet merged = load_arch_file(*base, depth + 1);
  merged.merge(own);
  return merged;
}

void validate(const ArchConfig& c, const ConfigReader& r) {
  if (c.vq.vector_dim > 0 && (c.vq.group_k == 0) != (c.vq.group_n == 0))
    r.fail(c.vq.group_k == 0 ? "vq.group_n" : "vq.group_k", "vq.group_k and vq.group_n must both be 0 or both > 0");
  if (c.vq.group_k % c.vq.vector_dim != 0)
    r.fail("vq.group_k", fmt::format("expected a multiple of vq.vector_dim ({})", c.vq.vector_dim));
}

}  // namespace

std::vector<std::string> builtin_arch_names() { return names_in(arch_dir, ".yaml"); }
std::vector<std::string> builtin_dram_names() { return names_in(dram_dir, ".yaml"); }

ArchConfig load_arch(const ArchRequest& request) {
  ParamSet arch = load_arch_file(request.arch, 0);
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

  ArchConfig config;
  ConfigReader reader(params, "architecture " + request.arch);
  config.visit(reader);
  reader.finish();
  validate(config, reader);
  return config;
}

std::string to_yaml(ArchConfig config) {
  ConfigPrinter printer;
  config.visit(printer);
  return printer.str();
}

}  // namespace eva
