#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "config/input_file.hpp"
#include "config/param_set.hpp"

using namespace eva;

namespace {

struct Inner {
  int count = 3;
  double rate = 1.5;
  template <class V>
  void visit(V& v) {
    v.field("count", count, between(1, 100));
    v.field("rate", rate, positive_up_to(10.0));
  }
};

struct Outer {
  std::string name = "x";
  bool flag = false;
  Inner inner;
  template <class V>
  void visit(V& v) {
    v.field("name", name);
    v.field("flag", flag);
    v.section("inner", inner);
  }
};

Outer read(const ParamSet& p) {
  Outer o;
  ConfigReader r(p, "test config");
  o.visit(r);
  r.finish();
  return o;
}

std::string error_of(const ParamSet& p) {
  try {
    read(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("YAML is flattened into dotted keys with file and line") {
  const auto p = ParamSet::from_yaml("name: a\ninner:\n  count: 7\n", "f.yaml");
  REQUIRE(p.find("inner.count"));
  CHECK(p.find("inner.count")->origin == "f.yaml:3");
  const Outer o = read(p);
  CHECK(o.name == "a");
  CHECK(o.inner.count == 7);
  CHECK(o.inner.rate == 1.5);  // default kept
}

TEST_CASE("Later sources and --set override key by key") {
  auto p = ParamSet::from_yaml("inner:\n  count: 7\n  rate: 2\n", "base.yaml");
  p.merge(ParamSet::from_yaml("inner:\n  rate: 3\n", "over.yaml"));
  p.set_override("inner.count=9");
  const Outer o = read(p);
  CHECK(o.inner.count == 9);
  CHECK(o.inner.rate == 3.0);
}

TEST_CASE("Unknown keys are errors naming file, line and the known keys") {
  const auto e = error_of(ParamSet::from_yaml("inner:\n  cout: 7\n", "f.yaml"));
  CHECK(e.find("f.yaml:2: inner.cout: unknown key") == 0);
  CHECK(e.find("count") != std::string::npos);
}

TEST_CASE("Wrong types and ranges say what was expected") {
  CHECK(error_of(ParamSet::from_yaml("inner: {count: abc}", "f.yaml")) ==
        "f.yaml:1: inner.count: expected an integer >= 1 and <= 100, got \"abc\"");
  CHECK(error_of(ParamSet::from_yaml("inner: {count: 0}", "f.yaml")).find("expected an integer >= 1") !=
        std::string::npos);
  CHECK(error_of(ParamSet::from_yaml("inner: {count: 2.5}", "f.yaml")).find("inner.count") != std::string::npos);
  CHECK(error_of(ParamSet::from_yaml("inner: {rate: -1}", "f.yaml")).find("expected a number > 0") !=
        std::string::npos);
  CHECK(error_of(ParamSet::from_yaml("inner: {rate: .nan}", "f.yaml")).find("inner.rate") != std::string::npos);
  CHECK(error_of(ParamSet::from_yaml("flag: maybe", "f.yaml")).find("expected true or false") != std::string::npos);
  CHECK(error_of(ParamSet::from_yaml("inner: {count: [1, 2]}", "f.yaml")).find("got a list") != std::string::npos);
  CHECK(error_of(ParamSet::from_yaml("inner: {count: 99999999999999999999}", "f.yaml")).find("inner.count") !=
        std::string::npos);
}

TEST_CASE("Errors in a --set name the assignment") {
  ParamSet p;
  p.set_override("inner.count=0");
  CHECK(error_of(p).find("--set inner.count=0: inner.count: expected") == 0);
  ParamSet q;
  CHECK_THROWS_WITH(q.set_override("inner.count"), Catch::Contains("expected dotted.key=value"));
  CHECK_THROWS_WITH(q.set_override("=3"), Catch::Contains("expected dotted.key=value"));
  CHECK_THROWS_WITH(q.set_override("a.b="), Catch::Contains("expected a single value"));
  ParamSet r;
  r.set_override("no.such.key=1");
  CHECK(error_of(r).find("--set no.such.key=1: no.such.key: unknown key") == 0);
}

TEST_CASE("Malformed YAML and unreadable files are input errors with a location") {
  CHECK_THROWS_WITH(ParamSet::from_yaml("a: [1, 2\n", "bad.yaml"),
                    Catch::StartsWith("bad.yaml:") && Catch::Contains("malformed YAML"));
  CHECK_THROWS_WITH(ParamSet::from_yaml("- 1\n- 2\n", "list.yaml"), Catch::Contains("expected a mapping"));
  CHECK_THROWS_WITH(ParamSet::from_file("/no/such/file.yaml"), "/no/such/file.yaml: cannot open file");
  CHECK_THROWS_WITH(ParamSet::from_yaml("a: 1\na: 2\n", "dup.yaml"),
                    Catch::Contains("key given twice") || Catch::Contains("malformed"));
}

TEST_CASE("The printer shows every field") {
  Outer o;
  ConfigPrinter printer;
  o.visit(printer);
  const std::string yaml = printer.str();
  CHECK(yaml.find("count: 3") != std::string::npos);
  CHECK(yaml.find("rate: 1.5") != std::string::npos);
  CHECK(yaml.find("flag: false") != std::string::npos);
}

TEST_CASE("Text that is not UTF-8 is found, and --set and YAML refuse it as bad input") {
  using eva::invalid_utf8_at;
  CHECK(!invalid_utf8_at("plain ascii"));
  CHECK(!invalid_utf8_at("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // 2, 3 and 4 bytes
  CHECK(invalid_utf8_at("ove\xff") == 3u);
  CHECK(invalid_utf8_at("\xc3") == 0u);              // cut short
  CHECK(invalid_utf8_at("a\xc0\xaf") == 1u);         // overlong '/'
  CHECK(invalid_utf8_at("\xed\xa0\x80") == 0u);      // a surrogate
  CHECK(invalid_utf8_at("\xf4\x90\x80\x80") == 0u);  // above U+10FFFF
  CHECK(invalid_utf8_at("ab\xe2\x82") == 2u);
  eva::ParamSet p;
  CHECK_THROWS_AS(p.set_override("name=\xff"), eva::InputError);
  CHECK_THROWS_AS(eva::ParamSet::from_yaml("name: \"\xfe\"\n", "x.yaml", ""), eva::InputError);
}
