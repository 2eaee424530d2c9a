// Cost follows the design (issue 17 item 1): each built-in preset keeps its
// published figures, and every size key moves area and static power.
#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

// One small layer; the report's JSON.
nlohmann::json layer(const Scratch& dir, const std::string& arch, const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"gemm", "--arch", arch,  "--m",     "1",      "--n",
                                   "256",  "--k",    "256", "--quiet", "--json", "r.json"};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  const Run r = eva_sim(dir, args, false);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir.json("r.json");
}

struct Published {
  const char* arch;
  double array_mm2, buffer_mm2, core_w, sram_leakage_w;
};

// Area rises with each value of `key`, in order, and so does static power.
void rises(const std::string& arch, const std::string& key, const std::vector<std::string>& values) {
  Scratch dir;
  double area = 0.0, power = 0.0;
  for (const std::string& v : values) {
    INFO(arch << ": --set " << key << "=" << v);
    const auto j = layer(dir, arch, {key + "=" + v});
    CHECK(j["area_mm2"].get<double>() > area);
    CHECK(j["static_power_w"].get<double>() > power);
    area = j["area_mm2"].get<double>();
    power = j["static_power_w"].get<double>();
  }
}

}  // namespace

TEST_CASE("Each preset at its default sizes keeps the artifact's area and power figures") {
  // Artifact configs/hardware.yaml and methods/*.yaml (docs/ENERGY.md): array
  // and buffer area, core and SRAM leakage power. eva-oc1 has the published
  // 64 KB OC.
  const Published published[] = {
      {"sa", 0.330688512, 0.861716551149, 0.627625461, 1.01474224},
      {"ant", 0.54706176, 0.861716551149, 1.722159605, 1.01474224},
      {"figna", 0.43451856, 0.7132549402004, 1.585460629, 1.01316096},
      {"figlut", 0.711037152, 0.80778814, 3.006158389, 1.02195664},
      {"eva-oc1", 0.480927888, 0.8192560712015196, 1.4269, 1.183463232},
  };
  Scratch dir;
  for (const Published& p : published) {
    INFO(p.arch);
    const auto j = layer(dir, p.arch, {});
    const auto& a = j["area_breakdown_mm2"];
    CHECK(a["array"].get<double>() == Approx(p.array_mm2).epsilon(1e-12));
    CHECK(a["buffers"].get<double>() == Approx(p.buffer_mm2).epsilon(1e-12));
    // Static power: the SRAMs' leakage and the leakage share (0.187) of every
    // block's power; the SFU's 0.1847423889 W, EVA's 4 epilogue units.
    const bool eva = std::string(p.arch) == "eva-oc1";
    const double blocks = p.core_w + 0.1847423889 + (eva ? 4 * 0.0599838 : 0.0);
    CHECK(j["static_power_w"].get<double>() == Approx(p.sram_leakage_w + 0.187 * blocks).epsilon(1e-9));
  }
}

TEST_CASE("Cost rises with every size key of the dense arrays") {
  rises("sa", "systolic.rows", {"16", "32", "64"});
  rises("sa", "systolic.cols", {"16", "32", "64"});
  rises("sa", "buffers.weight_kib", {"64", "128", "256"});
  rises("sa", "buffers.input_kib", {"128", "256", "512"});
  rises("sa", "buffers.output_kib", {"64", "128", "256"});
  rises("sa", "vector.lanes", {"16", "32", "64"});
  rises("figlut", "figlut.mpus", {"2", "4", "8"});
  rises("figlut", "systolic.cols", {"16", "32"});
}

TEST_CASE("Cost rises with every size key of EVA") {
  rises("eva", "epilogue.units", {"2", "4", "8"});
  rises("eva", "epilogue.adder_inputs", {"16", "32", "64"});
  rises("eva", "oc.size_kib", {"128", "256", "512"});
  rises("eva", "oc.banks", {"128", "256", "512"});
  rises("eva", "oc.bank_width_bytes", {"2", "4"});
  rises("eva", "oc.ports", {"1", "2"});
  rises("eva", "oc.buffers", {"1", "2"});
  rises("eva", "buffers.codebook_kib", {"32", "64", "128"});
  rises("eva", "systolic.rows", {"32", "64"});
}

TEST_CASE("Cost rises with every size key of the conflicting-VQ baseline") {
  rises("vq-conflict", "lookup.lanes", {"2", "4", "8"});
  rises("vq-conflict", "lookup.banks", {"4", "8", "16"});
  rises("vq-conflict", "lookup.bank_width_bytes", {"16", "32"});
  rises("vq-conflict", "lookup.replicas", {"1", "2", "4"});
  rises("vq-conflict", "buffers.codebook_kib", {"32", "64"});
}
