#pragma once
// Configuration in two steps (parse, then validate into immutable structs).
//
// Every YAML source is flattened into dotted keys ("systolic.rows"), each
// remembering where it came from, so that later sources (a DRAM preset, an
// architecture file, --set) override earlier ones key by key and every error
// names the file and line of the value at fault. The config structs' visit()
// (models/common/config.hpp) drives ConfigReader and ConfigPrinter.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/config.hpp"
#include "common/error.hpp"

namespace eva {

// A leaf value and where it came from ("platform/configs/archs/sa.yaml:7" or
// "--set systolic.rows=16").
struct Param {
  YAML::Node value;
  std::string origin;
};

class ParamSet {
 public:
  // Flattens a YAML mapping. `source` names the text in messages; `prefix` is
  // prepended to every key ("dram." for a DRAM preset).
  static ParamSet from_yaml(std::string_view text, const std::string& source, const std::string& prefix = "");
  // Reads a file from disk (InputError when it cannot be read or parsed).
  static ParamSet from_file(const std::string& path, const std::string& prefix = "");

  // Applies "dotted.key=value"; the value is parsed as a YAML scalar.
  void set_override(const std::string& assignment);
  // Keys of `over` replace ours.
  void merge(const ParamSet& over);
  void set(const std::string& key, const std::string& value, const std::string& origin) {
    m_params[key] = Param{YAML::Node(value), origin};
  }
  void erase(const std::string& key) { m_params.erase(key); }

  const Param* find(const std::string& key) const;
  const std::map<std::string, Param>& params() const { return m_params; }
  bool empty() const { return m_params.empty(); }

 private:
  void flatten(const YAML::Node& node, const std::string& key, const std::string& source);
  std::map<std::string, Param> m_params;
};

// Reads config structs from a ParamSet. Fields absent from the set keep their
// defaults; keys that no field reads are reported by finish().
class ConfigReader {
 public:
  ConfigReader(const ParamSet& params, std::string what) : m_params(params), m_what(std::move(what)) {}

  template <class S>
  void section(const char* name, S& sub) {
    const std::string saved = m_prefix;
    m_prefix += std::string(name) + ".";
    sub.visit(*this);
    m_prefix = saved;
  }

  template <class T>
  void field(const char* name, T& value, const Range<T>& range, const char* /*doc*/ = "") {
    static_assert(std::is_arithmetic_v<T>);
    const Param* p = take(name);
    if (!p) return;
    T v{};
    if (!convert(*p, v) || !range.ok(v)) fail_param(*p, name, range.describe());
    value = v;
  }
  void field(const char* name, bool& value, const char* doc = "");
  void field(const char* name, std::string& value, const char* doc = "");
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void field(const char* name, E& value, const char* /*doc*/ = "") {
    const Param* p = take(name);
    if (!p) return;
    std::string text;
    std::optional<E> parsed;
    if (p->value.IsScalar()) parsed = enum_parse<E>(p->value.Scalar());
    if (!parsed) fail_param(*p, name, "one of " + enum_choices<E>());
    value = *parsed;
  }

  // Throws InputError naming the key (and where it was set, if it was).
  [[noreturn]] void fail(const std::string& dotted_key, const std::string& expected) const;
  // Every key in the set must have been read.
  void finish() const;

 private:
  const Param* take(const char* name);
  template <class T>
  static bool convert(const Param& p, T& out) {
    if (!p.value.IsScalar()) return false;
    try {
      if constexpr (std::is_floating_point_v<T>) {
        out = p.value.as<T>();
        return std::isfinite(out);
      } else {
        // yaml-cpp accepts "1.5" for no integer type, but does accept "1e3"
        // for none either; parse through long long to catch overflow.
        const long long wide = p.value.as<long long>();
        if (wide < static_cast<long long>(std::numeric_limits<T>::lowest()) ||
            (wide > 0 &&
             static_cast<unsigned long long>(wide) > static_cast<unsigned long long>(std::numeric_limits<T>::max())))
          return false;
        out = static_cast<T>(wide);
        return true;
      }
    } catch (const YAML::Exception&) {
      return false;
    }
  }
  [[noreturn]] void fail_param(const Param& p, const char* name, const std::string& expected) const;

  const ParamSet& m_params;
  std::string m_what;
  std::string m_prefix;
  std::set<std::string> m_used;
};

// Prints config structs as YAML (eva-sim config).
class ConfigPrinter {
 public:
  // `shown`: whether a key or section, by its dotted path, is printed (all
  // when empty).
  explicit ConfigPrinter(std::function<bool(const std::string&)> shown = {}) : m_shown(std::move(shown)) {
    m_out << YAML::BeginMap;
  }
  template <class S>
  void section(const char* name, S& sub) {
    if (!shows(name)) return;
    m_path.push_back(name);
    m_out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    sub.visit(*this);
    m_out << YAML::EndMap;
    m_path.pop_back();
  }
  template <class T>
  void field(const char* name, T& value, const Range<T>&, const char* doc = "") {
    if (shows(name)) emit(name, value, doc);
  }
  template <class T>
  void field(const char* name, T& value, const char* doc = "") {
    if (!shows(name)) return;
    if constexpr (std::is_enum_v<T>)
      emit(name, std::string(enum_name(value)), doc);
    else if constexpr (std::is_same_v<T, std::string>) {
      // An empty string is a field no source set (a file without
      // `description`); ConfigReader refuses empty strings, so it is left out
      // and the printed YAML loads back.
      if (!value.empty()) emit(name, value, doc);
    } else
      emit(name, value, doc);
  }
  std::string str() {
    m_out << YAML::EndMap;
    return m_out.c_str();
  }

 private:
  bool shows(const char* name) const {
    if (!m_shown) return true;
    std::string path;
    for (const std::string& p : m_path) path += p + ".";
    return m_shown(path + name);
  }
  template <class T>
  void emit(const char* name, const T& value, const char* doc) {
    m_out << YAML::Key << name << YAML::Value << value;
    if (doc && *doc) m_out << YAML::Comment(doc);
  }
  YAML::Emitter m_out;
  std::function<bool(const std::string&)> m_shown;
  std::vector<std::string> m_path;
};

}  // namespace eva
