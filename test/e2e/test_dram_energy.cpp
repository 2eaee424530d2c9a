// DRAM energy on one boundary (issue 17 item 2): every preset charges the
// device core, the interface (I/O) and the background, and a timed DRAM powers
// down when idle.
#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

nlohmann::json bench(const Scratch& dir, const std::string& dram, const std::string& pattern,
                     const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"dram-bench", "--dram", dram,      "--pattern", pattern,
                                   "--bytes",    "131072", "--quiet", "--json",    "b.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Run r = eva_sim(dir, args, false);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir.json("b.json");
}

double part(const nlohmann::json& j, const char* name) { return j["energy_parts_pj_per_bit"][name].get<double>(); }

struct Io {
  const char* dram;
  double pj_per_bit;  // the preset's io_read_pj_per_bit
};

}  // namespace

TEST_CASE("DRAM energy: every timed preset charges core, I/O and background, and they add up") {
  Scratch dir;
  for (const Io& p : {Io{"ddr4-3200", 1.37}, Io{"lpddr4-4266", 3.2}, Io{"lpddr5-6400", 0.47}, Io{"hbm2", 0.80}}) {
    INFO(p.dram);
    const auto j = bench(dir, p.dram, "random", {});
    CHECK(part(j, "core") > 0.0);
    CHECK(part(j, "background") > 0.0);
    CHECK(part(j, "io") == Approx(p.pj_per_bit).epsilon(1e-12));  // reads only, every bit crosses once
    CHECK(part(j, "core") + part(j, "io") + part(j, "background") ==
          Approx(j["energy_pj_per_bit"].get<double>()).epsilon(1e-12));
  }
  // ideal: the artifact's access energy (core and I/O together) and its
  // background power for the whole run.
  const auto ideal = bench(dir, "ideal", "seq", {});
  CHECK(part(ideal, "core") == Approx(12.23).epsilon(1e-12));
  CHECK(part(ideal, "io") == 0.0);
  CHECK(part(ideal, "background") == Approx(2.00616 / (64e9 * 8) * 1e12).epsilon(1e-3));  // 2.006 W at 64 GB/s
}

TEST_CASE("DRAM energy: an idle channel powers down, saving background energy and costing the exit") {
  Scratch dir;
  for (const char* dram : {"ddr4-3200", "lpddr4-4266", "lpddr5-6400", "hbm2"}) {
    INFO(dram);
    // One request in flight: each meets an idle channel.
    const auto on = bench(dir, dram, "random", {"--outstanding", "1"});
    const auto off = bench(dir, dram, "random", {"--outstanding", "1", "--set", "dram.power_down=false"});
    CHECK(on["stats"]["power_down_ns"].get<double>() > 0.0);
    CHECK(on["stats"]["power_down_exits"].get<double>() > 0.0);
    CHECK(off["stats"]["power_down_ns"].get<double>() == 0.0);
    CHECK(off["stats"]["power_down_exits"].get<double>() == 0.0);
    CHECK(part(on, "background") < part(off, "background"));
    CHECK(on["latency_ns_mean"].get<double>() > off["latency_ns_mean"].get<double>());  // tXP per exit
    // A timeout longer than the gaps keeps the channel up: as without power-down.
    const auto patient = bench(dir, dram, "random", {"--outstanding", "1", "--set", "dram.power_down_idle_tck=100000"});
    CHECK(patient["stats"]["power_down_exits"].get<double>() == 0.0);
    CHECK(patient["latency_ns_mean"].get<double>() == off["latency_ns_mean"].get<double>());
  }
}

TEST_CASE("DRAM energy: a compute-bound layer on HBM2 spends most of its DRAM time powered down") {
  Scratch dir;
  const auto run = [&](const char* power_down) {
    const Run r = eva_sim(dir,
                          {"gemm", "--arch", "eva", "--m", "1", "--n", "4096", "--k", "4096", "--dram", "hbm2", "--set",
                           std::string("dram.power_down=") + power_down, "--quiet", "--json", "r.json"},
                          false);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return dir.json("r.json");
  };
  const auto on = run("true"), off = run("false");
  const auto stat = [](const nlohmann::json& j, const char* name) {
    return j["stats"]["dram"][name]["value"].get<double>();
  };
  // EVA reads this layer's indices in a fraction of its compute time.
  const double channel_ns = on["seconds"].get<double>() * 1e9 * 16;  // 16 pseudo-channels
  CHECK(stat(on, "power_down_ns") > 0.5 * channel_ns);
  CHECK(stat(on, "background_energy_uj") < stat(off, "background_energy_uj"));
  CHECK(stat(on, "io_energy_uj") == Approx(stat(off, "io_energy_uj")));  // the same bytes move
  // The report's DRAM energy is the three parts.
  CHECK(on["energy_breakdown_j"]["dram"].get<double>() * 1e6 ==
        Approx(stat(on, "core_energy_uj") + stat(on, "io_energy_uj") + stat(on, "background_energy_uj")));
}
