#include "config/param_set.hpp"

#include "config/input_file.hpp"

#include <fstream>
#include <sstream>

namespace eva {

namespace {

std::string where(const std::string& source, const YAML::Mark& mark) {
  if (mark.is_null()) return source;
  return fmt::format("{}:{}", source, mark.line + 1);
}

}  // namespace

ParamSet ParamSet::from_yaml(std::string_view text, const std::string& source, const std::string& prefix) {
  if (const auto at = invalid_utf8_at(text))
    throw InputError(fmt::format("{}: not UTF-8 text (at offset {})", source, *at));
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}: malformed YAML: {}", where(source, e.mark), e.msg));
  }
  ParamSet out;
  if (!root || root.IsNull()) return out;  // an empty file sets nothing
  if (!root.IsMap())
    throw InputError(fmt::format("{}: expected a mapping of keys to values", where(source, root.Mark())));
  std::string base = prefix;
  if (!base.empty() && base.back() == '.') base.pop_back();
  out.flatten(root, base, source);
  return out;
}

ParamSet ParamSet::from_file(const std::string& path, const std::string& prefix) {
  return from_yaml(read_input_file(path), path, prefix);
}

void ParamSet::flatten(const YAML::Node& node, const std::string& key, const std::string& source) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar())
        throw InputError(fmt::format("{}: {}: keys must be plain names", where(source, kv.first.Mark()), key));
      const std::string& name = kv.first.Scalar();
      if (name.empty() || name.find('.') != std::string::npos)
        throw InputError(fmt::format("{}: {}: '{}' is not a valid key name", where(source, kv.first.Mark()),
                                     key.empty() ? "<top>" : key, name));
      const std::string sub = key.empty() ? name : key + "." + name;
      if (m_params.count(sub))
        throw InputError(fmt::format("{}: {}: key given twice", where(source, kv.first.Mark()), sub));
      flatten(kv.second, sub, source);
    }
    return;
  }
  m_params[key] = Param{node, where(source, node.Mark())};
}

void ParamSet::set_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  const std::string origin = "--set " + assignment;
  if (eq == std::string::npos || eq == 0) throw InputError(fmt::format("{}: expected dotted.key=value", origin));
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (invalid_utf8_at(assignment)) throw InputError(fmt::format("--set: {}: not UTF-8 text", key));
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}: {}: value is not valid YAML: {}", origin, key, e.msg));
  }
  if (text.empty() || value.IsMap()) throw InputError(fmt::format("{}: {}: expected a single value", origin, key));
  m_params[key] = Param{value, origin};
}

void ParamSet::merge(const ParamSet& over) {
  for (const auto& [key, param] : over.m_params) m_params[key] = param;
}

const Param* ParamSet::find(const std::string& key) const {
  const auto it = m_params.find(key);
  return it == m_params.end() ? nullptr : &it->second;
}

const Param* ConfigReader::take(const char* name) {
  const std::string key = m_prefix + name;
  m_used.insert(key);
  return m_params.find(key);
}

void ConfigReader::field(const char* name, bool& value, const char*) {
  const Param* p = take(name);
  if (!p) return;
  try {
    if (p->value.IsScalar()) {
      value = p->value.as<bool>();
      return;
    }
  } catch (const YAML::Exception&) {
  }
  fail_param(*p, name, "true or false");
}

void ConfigReader::field(const char* name, std::string& value, const char*) {
  const Param* p = take(name);
  if (!p) return;
  if (!p->value.IsScalar() || p->value.Scalar().empty()) fail_param(*p, name, "a non-empty string");
  value = p->value.Scalar();
}

void ConfigReader::fail_param(const Param& p, const char* name, const std::string& expected) const {
  std::string got = p.value.IsScalar() ? "\"" + p.value.Scalar() + "\"" : "a list or mapping";
  throw InputError(fmt::format("{}: {}{}: expected {}, got {}", p.origin, m_prefix, name, expected, got));
}

void ConfigReader::fail(const std::string& dotted_key, const std::string& expected) const {
  const Param* p = m_params.find(dotted_key);
  const std::string origin = p ? p->origin : m_what;
  throw InputError(fmt::format("{}: {}: {}", origin, dotted_key, expected));
}

void ConfigReader::finish() const {
  for (const auto& [key, param] : m_params.params()) {
    if (m_used.count(key)) continue;
    // Point at the nearest known section to help with typos.
    std::string hint;
    const auto dot = key.rfind('.');
    if (dot != std::string::npos) {
      std::string section = key.substr(0, dot + 1);
      std::vector<std::string> known;
      for (const auto& used : m_used)
        if (used.compare(0, section.size(), section) == 0 && used.find('.', section.size()) == std::string::npos)
          known.push_back(used.substr(section.size()));
      if (!known.empty()) hint = fmt::format(" (known in {}: {})", section.substr(0, dot), fmt::join(known, ", "));
    }
    throw InputError(fmt::format("{}: {}: unknown key for {}{}", param.origin, key, m_what, hint));
  }
}

}  // namespace eva
