#include <fstream>

#include <catch2/catch.hpp>

#include "config/load_arch.hpp"

using namespace eva;

namespace {

ArchConfig load(const std::string& arch, std::vector<std::string> sets = {},
                std::optional<std::string> dram = std::nullopt) {
  ArchRequest r;
  r.arch = arch;
  r.sets = std::move(sets);
  r.dram = std::move(dram);
  return load_arch(r);
}

}  // namespace

TEST_CASE("Every contract architecture is built in and loads") {
  for (const char* name : {"eva", "eva-w3", "eva-w4", "eva-gptvq", "sa", "ant", "figna", "figlut", "vq-conflict"}) {
    INFO(name);
    const ArchConfig c = load(name);
    CHECK(c.name == name);
    CHECK(c.dram.preset == "ideal");
  }
}

TEST_CASE("Built-in defaults carry the paper's parameters") {
  const ArchConfig sa = load("sa");
  CHECK(sa.clock_mhz == 500.0);
  CHECK(sa.systolic.rows == 32);
  CHECK(sa.systolic.cols == 32);
  CHECK(sa.systolic.weight_load == WeightLoad::paper);
  CHECK(sa.dram.bandwidth_gbps == 64.0);
  CHECK(load("ant").systolic.tile_overhead_cycles == 2);
  CHECK(load("figna").systolic.tile_overhead_cycles == 4);
  CHECK(load("eva-w3").vq.codebooks == 3);
  CHECK(load("eva-w4").vq.bits_per_weight() == 4.0);
  CHECK(load("eva-gptvq").vq.group_k == 256);
  CHECK(load("eva").epilogue.units == 4);
}

TEST_CASE("The contract's --set keys exist with their meaning") {
  const ArchConfig c =
      load("sa", {"dram.bandwidth_gbps=1e6", "dram.latency_ns=50", "epilogue.units=2", "epilogue.adder_inputs=16",
                  "systolic.rows=16", "systolic.cols=8", "clock_mhz=1000", "systolic.weight_load=overlapped"});
  CHECK(c.dram.bandwidth_gbps == 1e6);
  CHECK(c.dram.latency_ns == 50.0);
  CHECK(c.epilogue.units == 2);
  CHECK(c.epilogue.adder_inputs == 16);
  CHECK(c.systolic.rows == 16);
  CHECK(c.systolic.cols == 8);
  CHECK(c.clock_mhz == 1000.0);
  CHECK(c.systolic.weight_load == WeightLoad::overlapped);
  for (const char* mode : {"scalesim", "paper", "overlapped"})
    for (const char* arch : {"eva", "sa", "ant", "figna", "figlut"})
      CHECK(load(arch, {std::string("systolic.weight_load=") + mode}).systolic.weight_load ==
            *enum_parse<WeightLoad>(mode));
}

TEST_CASE("Bad values, keys and names are input errors") {
  CHECK_THROWS_WITH(load("sa", {"dram.bandwidth_gbps=0"}),
                    Catch::Contains("dram.bandwidth_gbps: expected a number > 0"));
  CHECK_THROWS_WITH(load("sa", {"dram.bandwidth_gbps=2e6"}), Catch::Contains("<= 1000000"));
  CHECK_THROWS_WITH(load("sa", {"dram.latency_ns=-1"}), Catch::Contains("dram.latency_ns"));
  CHECK_THROWS_WITH(load("sa", {"systolic.weight_load=fast"}), Catch::Contains("one of scalesim|paper|overlapped"));
  CHECK_THROWS_WITH(load("sa", {"systolic.rowz=3"}), Catch::Contains("systolic.rowz: unknown key"));
  CHECK_THROWS_WITH(load("no-such-arch"), Catch::Contains("--arch: unknown name 'no-such-arch'"));
  CHECK_THROWS_WITH(load("sa", {}, std::string("ddr9")), Catch::Contains("--dram: unknown name 'ddr9'"));
  CHECK_THROWS_WITH(load("/no/such.yaml"), "/no/such.yaml: cannot open file");
}

TEST_CASE("A user architecture file builds on a built-in with base") {
  const std::string path = "test_arch_config_user.yaml";
  {
    std::ofstream f(path);
    f << "base: sa\nname: my-sa\nsystolic:\n  rows: 64\n";
  }
  const ArchConfig c = load(path);
  CHECK(c.name == "my-sa");
  CHECK(c.systolic.rows == 64);
  CHECK(c.systolic.cols == 32);
  {
    std::ofstream f(path);
    f << "base: sa\nsystolic:\n  rows: -4\n";
  }
  CHECK_THROWS_WITH(load(path), path + ":3: systolic.rows: expected an integer >= 1 and <= 4096, got \"-4\"");
  std::remove(path.c_str());
}

TEST_CASE("The effective configuration prints as YAML that loads back") {
  const std::string yaml = to_yaml(load("figna", {"clock_mhz=750"}));
  CHECK(yaml.find("clock_mhz: 750") != std::string::npos);
  const auto p = ParamSet::from_yaml(yaml, "printed");
  ArchConfig back;
  ConfigReader r(p, "printed");
  back.visit(r);
  r.finish();
  CHECK(back.formats.weight_bits == 4);
  CHECK(back.clock_mhz == 750.0);
}
