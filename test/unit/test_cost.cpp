// The SRAM and compute costs from sizes (models/common/energy.hpp,
// models/sram/sram_config.hpp): plain C++, no simulation.
#include <cmath>

#include <catch2/catch.hpp>

#include "arch/arch_warnings.hpp"
#include "config/load_arch.hpp"
#include "sram/sram_config.hpp"

using namespace eva;

namespace {

ArchConfig arch(const std::string& name, std::vector<std::string> sets = {},
                std::optional<std::string> dram = std::nullopt) {
  ArchRequest r;
  r.arch = name;
  r.sets = std::move(sets);
  r.dram = std::move(dram);
  return load_arch(r);
}

}  // namespace

TEST_CASE("An SRAM's area, leakage and energy per bit follow its size, banks, width and ports") {
  const SramCost cost{0.001, 0.0002, 1.5};
  SramConfig s;
  s.cost = cost;
  s.size_kib = 64;
  s.banks = 128;
  s.bank_width_bytes = 2;
  s.reference_bank_kib = 0.5;
  CHECK(s.area_mm2() == Approx(64 * 0.001 + 128 * 2 * 0.0002));
  CHECK(s.leakage_w() == Approx(s.area_mm2() * 1.5));
  CHECK(s.bit_energy_scale() == Approx(1.0));  // banks of the reference capacity
  const double area = s.area_mm2(), scale = s.bit_energy_scale();
  SECTION("size") {
    s.size_kib = 256;  // four times the bank capacity: twice the energy per bit
    CHECK(s.bit_energy_scale() == Approx(2.0));
    CHECK(s.area_mm2() > area);
  }
  SECTION("banks") {
    s.banks = 256;  // more periphery, shallower banks
    CHECK(s.area_mm2() > area);
    CHECK(s.bit_energy_scale() < scale);
  }
  SECTION("width and ports") {
    s.bank_width_bytes = 4;
    const double wide = s.area_mm2();
    CHECK(wide > area);
    s.ports = 2;
    CHECK(s.area_mm2() > wide);
  }
  SECTION("regions") {
    s.buffers = 2;  // each region in banks of its own: twice the periphery
    CHECK(s.area_mm2() == Approx(64 * 0.001 + 2 * 128 * 2 * 0.0002));
    CHECK(s.bit_energy_scale() == Approx(std::sqrt(0.5)));
  }
}

TEST_CASE("The compute units' cost is per PE, adder input and lane") {
  EnergyConfig e;
  AreaConfig a;
  CHECK(array_power(e, a, 1024).watts == Approx(0.627625461));  // sa's published core power
  CHECK(array_power(e, a, 1024).area_mm2 == Approx(0.330688512));
  CHECK(array_power(e, a, 2048).watts == Approx(2 * 0.627625461));
  CHECK(epilogue_unit_power(e, a, 32).watts == Approx(0.0599838));
  CHECK(epilogue_unit_power(e, a, 64).area_mm2 == Approx(2 * 0.012602772));
  CHECK(vector_power(e, a, 32).watts == Approx(0.1847423889));
}

TEST_CASE("FIGLUT with another LUT size is named: its PE's cost stays the published one") {
  CHECK(arch_warnings(arch("figlut")).empty());
  const auto w = arch_warnings(arch("figlut", {"figlut.mu=3"}));
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::Contains("mu = 3"));
}

TEST_CASE("vq-conflict's lanes under the artifact's convention are named: they move cost, not time") {
  CHECK(arch_warnings(arch("vq-conflict")).empty());
  CHECK(arch_warnings(arch("vq-conflict", {"lookup.lanes=8", "lookup.model=lanes"})).empty());
  const auto w = arch_warnings(arch("vq-conflict", {"lookup.lanes=8"}));
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::Contains("lookup.model=lanes"));
}

TEST_CASE("A power-down timeout with power-down off is named: it times nothing") {
  CHECK(arch_warnings(arch("sa", {}, "ddr4-3200")).empty());
  CHECK(arch_warnings(arch("sa", {"dram.power_down_idle_tck=64"}, "ddr4-3200")).empty());
  const auto w = arch_warnings(arch("sa", {"dram.power_down_idle_tck=64", "dram.power_down=false"}, "ddr4-3200"));
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::Contains("dram.power_down=false"));
}
