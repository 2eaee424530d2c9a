// The C++ presets (arch/presets.hpp) against the YAML files they mirror.
#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "arch/presets.hpp"
#include "config/load_arch.hpp"

using namespace eva;

namespace {

// Every field of a config struct as dotted key -> printed value, through the
// structs' own visit(); doubles print exactly (shortest round trip).
class FieldList {
 public:
  template <class S>
  void section(const char* name, S& sub) {
    const std::string saved = m_prefix;
    m_prefix += std::string(name) + ".";
    sub.visit(*this);
    m_prefix = saved;
  }
  template <class T>
  void field(const char* name, T& value, const Range<T>&, const char* = "") {
    add(name, fmt::format("{}", value));
  }
  template <class T>
  void field(const char* name, T& value, const char* = "") {
    if constexpr (std::is_enum_v<T>)
      add(name, std::string(enum_name(value)));
    else
      add(name, fmt::format("{}", value));
  }
  const std::map<std::string, std::string>& fields() const { return m_fields; }

 private:
  void add(const char* name, std::string value) {
    const auto [it, fresh] = m_fields.emplace(m_prefix + name, std::move(value));
    REQUIRE(fresh);  // a key visited twice would hide a field
  }
  std::string m_prefix;
  std::map<std::string, std::string> m_fields;
};

template <class Config>
std::map<std::string, std::string> fields_of(Config c) {
  FieldList list;
  c.visit(list);
  return list.fields();
}

template <class Config>
void check_same(const Config& from_cpp, const Config& from_yaml) {
  const auto cpp = fields_of(from_cpp);
  const auto yaml = fields_of(from_yaml);
  REQUIRE(cpp.size() == yaml.size());
  for (const auto& [key, value] : yaml) {
    INFO(key);
    CHECK(cpp.at(key) == value);
  }
}

}  // namespace

TEST_CASE("Every built-in preset has a C++ function, and no other") {
  const auto sorted = [](std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    return names;
  };
  CHECK(sorted(presets::arch_names()) == sorted(builtin_arch_names()));
  CHECK(sorted(presets::dram_names()) == sorted(builtin_dram_names()));
}

TEST_CASE("The C++ DRAM presets equal the YAML ones, field by field") {
  for (const std::string& name : builtin_dram_names()) {
    INFO("dram " << name);
    check_same(presets::dram(name), load_dram(name, {}));
  }
}

TEST_CASE("The C++ architectures equal the YAML ones over every DRAM preset, field by field") {
  for (const std::string& arch : builtin_arch_names()) {
    INFO("arch " << arch);
    ArchRequest request;
    request.arch = arch;
    check_same(presets::arch(arch), load_arch(request));
    for (const std::string& dram : builtin_dram_names()) {
      INFO("dram " << dram);
      request.dram = dram;
      check_same(presets::arch(arch, dram), load_arch(request));
    }
  }
}

TEST_CASE("A preset's field list sees a change in any section") {
  const ArchConfig eva = presets::arch("eva");
  ArchConfig changed = eva;
  changed.dram.timing.tRCD += 1;
  CHECK(fields_of(changed) != fields_of(eva));
  CHECK(fields_of(changed).at("dram.timing.tRCD") == fmt::format("{}", eva.dram.timing.tRCD + 1));
}

TEST_CASE("Unknown preset names are input errors") {
  CHECK_THROWS_AS(presets::arch("nope"), InputError);
  CHECK_THROWS_AS(presets::dram("nope"), InputError);
  CHECK_THROWS_AS(presets::arch("eva", "nope"), InputError);
}
