#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "arch/arch_warnings.hpp"
#include "config/load_arch.hpp"
#include "eva/eva_mode.hpp"

using namespace eva;

TEST_CASE("EVA's mode estimate: a mode's time is the longer of its compute and its traffic") {
  const ModeCost c{1000.0, 64000.0, true};
  CHECK(c.time(128.0) == 1000.0);  // 500 cycles of traffic: compute-bound
  CHECK(c.time(32.0) == 2000.0);   // memory-bound
  CHECK(c.time(0.0) == 1000.0);    // bandwidth unknown: compute alone
}

TEST_CASE("EVA's mode estimate: INT8 only when strictly faster, or when VQ-lookup mode does not fit") {
  const ModeCost vq{1000.0, 64000.0, true};
  CHECK(int8_is_faster(vq, ModeCost{999.0, 64000.0, true}, 128.0));
  CHECK_FALSE(int8_is_faster(vq, ModeCost{1000.0, 64000.0, true}, 128.0));  // a tie keeps VQ-lookup mode
  // Both bound by the same traffic: a tie, whatever their compute.
  CHECK_FALSE(int8_is_faster(vq, ModeCost{10.0, 64000.0, true}, 16.0));
  // INT8 moving fewer bytes wins where memory binds both.
  CHECK(int8_is_faster(vq, ModeCost{10.0, 32000.0, true}, 16.0));
  CHECK_FALSE(int8_is_faster(vq, ModeCost{1.0, 1.0, false}, 128.0));  // INT8 does not fit
  CHECK(int8_is_faster(ModeCost{1.0, 1.0, false}, ModeCost{1e9, 1e9, true}, 128.0));
}

TEST_CASE("The named settings carry EVA's mode policy, and a report names the setting only when EVA's matches") {
  ArchRequest q;
  q.arch = "eva";
  const NamedSetting realistic = setting_named("realistic");
  q.dram = realistic.dram;
  q.sets = realistic.sets;
  CHECK(load_arch(q).eva.mode_policy == ModePolicy::estimate);
  CHECK(std::string(setting_name(load_arch(q))) == "realistic");
  q.sets.push_back("eva.mode_policy=thresholds");
  CHECK(std::string(setting_name(load_arch(q))) == "custom");
  q.arch = "sa";  // the policy is EVA's alone
  CHECK(std::string(setting_name(load_arch(q))) == "realistic");
  const NamedSetting paper = setting_named("paper");
  q.arch = "eva";
  q.dram = paper.dram;
  q.sets = paper.sets;
  CHECK(load_arch(q).eva.mode_policy == ModePolicy::thresholds);
  CHECK(std::string(setting_name(load_arch(q))) == "paper");
}

TEST_CASE("The named settings carry vq-conflict's lookup model: the artifact's tiles, or the banked lanes") {
  ArchRequest q;
  q.arch = "vq-conflict";
  CHECK(load_arch(q).lookup.model == LookupModel::artifact);  // the default is the paper's
  // ... but the default LM head and FP16 GEMMs are not the paper setting's.
  CHECK(std::string(setting_name(load_arch(q))) == "custom");
  q.sets = setting_named("paper").sets;
  CHECK(std::string(setting_name(load_arch(q))) == "paper");
  const NamedSetting realistic = setting_named("realistic");
  q.dram = realistic.dram;
  q.sets = realistic.sets;
  CHECK(load_arch(q).lookup.model == LookupModel::lanes);
  CHECK(std::string(setting_name(load_arch(q))) == "realistic");
  q.sets.push_back("lookup.model=artifact");
  CHECK(std::string(setting_name(load_arch(q))) == "custom");
  q.arch = "figlut";  // the model is vq-conflict's alone
  CHECK(std::string(setting_name(load_arch(q))) == "realistic");
}

TEST_CASE("The realistic setting overlaps descriptors and posts writes, and the paper's runs one at a time") {
  ArchRequest q;
  q.arch = "figna";
  CHECK(load_arch(q).dma.descriptor_overlap == DescriptorOverlap::none);  // the default is the artifact's
  CHECK_FALSE(load_arch(q).dram.posted_writes);
  for (const char* name : {"paper", "realistic"}) {
    INFO(name);
    const bool realistic = std::string(name) == "realistic";
    const NamedSetting s = setting_named(name);
    q.dram = s.dram;
    q.sets = s.sets;
    CHECK(load_arch(q).dma.descriptor_overlap == (realistic ? DescriptorOverlap::next : DescriptorOverlap::none));
    CHECK(load_arch(q).dram.posted_writes == realistic);
    CHECK(std::string(setting_name(load_arch(q))) == name);
    // Posted writes are a timed controller's (ideal DRAM refuses the key).
    std::vector<std::string> changes = {realistic ? "dma.descriptor_overlap=none" : "dma.descriptor_overlap=next"};
    if (realistic) changes.push_back("dram.posted_writes=false");
    for (const std::string& change : changes) {
      INFO(change);
      q.sets = s.sets;
      q.sets.push_back(change);
      CHECK(std::string(setting_name(load_arch(q))) == "custom");
    }
  }
}

namespace {

std::vector<std::string> warnings_of(const std::string& arch, std::vector<std::string> sets = {}) {
  ArchRequest q;
  q.arch = arch;
  q.sets = std::move(sets);
  return arch_warnings(load_arch(q));
}

bool has(const std::vector<std::string>& ws, const std::string& part) {
  for (const std::string& w : ws)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("Wasteful EVA configurations are named: unused lookups, idle OC banks, a codebook deeper than a bank") {
  for (const char* a : {"eva", "eva-w3", "eva-w4", "eva-gptvq", "eva-oc1", "sa", "figlut", "vq-conflict"})
    CHECK(warnings_of(a).empty());
  // 3 units x 32 inputs: a pass takes 64 rows, 32 lookups idle.
  CHECK(has(warnings_of("eva", {"epilogue.units=3", "oc.banks=128"}), "32 are never used"));
  // The ablation presets keep the published 128-bank OC with fewer units.
  CHECK(has(warnings_of("eva-eu1x4"), "oc.banks: 128 banks, but the epilogue reads 4 a cycle"));
  // More banks of the same size: 128 entries per bank, half a codebook.
  CHECK(has(warnings_of("eva", {"oc.banks=256", "oc.size_kib=128"}), "less than a codebook's 256"));
  CHECK(warnings_of("eva", {"oc.banks=256", "oc.size_kib=256", "epilogue.units=8"}).empty());
}

TEST_CASE("EVA's OC follows its epilogue unless --set gives it: a bank per lookup, each bank as deep as before") {
  const auto oc = [](const std::string& arch, std::vector<std::string> sets) {
    ArchRequest q;
    q.arch = arch;
    q.sets = std::move(sets);
    const ArchConfig c = load_arch(q);
    return std::pair{c.oc.banks, c.oc.size_kib};
  };
  CHECK(oc("eva", {}) == std::pair{128, 128});
  CHECK(oc("eva", {"epilogue.units=8"}) == std::pair{256, 256});
  CHECK(oc("eva", {"epilogue.units=1"}) == std::pair{32, 32});
  CHECK(oc("eva", {"epilogue.units=3"}) == std::pair{64, 64});  // the power of two a pass uses
  CHECK(oc("eva", {"epilogue.adder_inputs=64"}) == std::pair{256, 256});
  CHECK(oc("eva", {"oc.banks=256"}) == std::pair{256, 256});                      // the size keeps the depth
  CHECK(oc("eva", {"epilogue.units=8", "oc.banks=128"}) == std::pair{128, 128});  // given: kept
  CHECK(oc("eva", {"epilogue.units=8", "oc.size_kib=512"}) == std::pair{256, 512});
  CHECK(oc("eva-oc1", {"epilogue.units=2"}) == std::pair{64, 32});  // one region of 64 KB: depth kept
  CHECK(oc("sa", {"epilogue.units=8"}) == oc("sa", {}));            // only EVA has an OC
}

TEST_CASE("EVA's OC follows its epilogue in a user's file too, unless the file gives it, and built-ins keep theirs") {
  const std::string path = "test_eva_mode_user.yaml";
  const auto oc = [&](const std::string& text) {
    {
      std::ofstream f(path);
      f << text;
    }
    ArchRequest q;
    q.arch = path;
    const ArchConfig c = load_arch(q);
    return std::pair{c.oc.banks, c.oc.size_kib};
  };
  CHECK(oc("base: eva\nepilogue:\n  units: 8\n") == std::pair{256, 256});
  CHECK(oc("base: eva-oc1\nepilogue:\n  units: 2\n") == std::pair{64, 32});
  CHECK(oc("base: eva\nepilogue:\n  units: 8\noc:\n  banks: 128\n") == std::pair{128, 128});  // given: kept
  CHECK(oc("base: eva\nepilogue:\n  units: 8\noc:\n  size_kib: 512\n") == std::pair{256, 512});
  CHECK(oc("base: eva\nname: mine\n") == std::pair{128, 128});
  // A built-in ablation keeps its published 128-bank OC.
  ArchRequest q;
  q.arch = "eva-eu1x4";
  CHECK(load_arch(q).oc.banks == 128);
  std::remove(path.c_str());
}
