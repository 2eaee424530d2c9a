#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "report.hpp"

using namespace eva;

TEST_CASE("Reports carry the contract's keys") {
  Report r;
  r.arch = "sa";
  OpReport op;
  op.name = "gemm";
  op.m = 1;
  op.n = 2;
  op.k = 3;
  op.cycles = 10;
  op.dram_bytes_read = 100;
  r.ops.push_back(op);
  const auto j = to_json(r);
  for (const char* key :
       {"arch", "model", "phase", "cycles", "seconds", "energy_j", "dram_bytes_read", "dram_bytes_written",
        "dram_bw_utilization", "sram_bank_conflict_cycles", "ops", "sim_wall_s"})
    CHECK(j.contains(key));
  for (const char* key : {"name", "m", "n", "k", "cycles", "dram_bytes_read"}) CHECK(j["ops"][0].contains(key));
  CHECK(j["energy_j"].is_null());  // not computed: null, not 0
  CHECK(j["ops"][0]["cycles"] == 10);
  CHECK(j["ops"][0]["dram_bytes_read"] == 100);
}

TEST_CASE("Derived efficiency figures follow from work, time, energy and area") {
  Report r;
  r.work_ops = 2e9;
  r.seconds = 0.5;
  r.energy_j = 0.25;
  r.area_mm2 = 2.0;
  r.tokens = 4;
  const Efficiency e = efficiency(r);
  CHECK(e.gops == Approx(4.0));
  CHECK(e.gops_per_w == Approx(8.0));
  CHECK(e.gops_per_mm2 == Approx(2.0));
  CHECK(e.energy_per_op_pj == Approx(125.0));
  CHECK(e.energy_per_token_j == Approx(0.0625));
}

TEST_CASE("CSV has one row per report and quotes fields") {
  Report a, b;
  a.arch = "x,y";
  b.arch = "z";
  const std::string csv = to_csv({a, b});
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK(csv.find("\"x,y\"") != std::string::npos);
}

TEST_CASE("Files are written whole, and a bad path leaves nothing behind") {
  const std::string path = "test_report_out.json";
  write_file_atomic(path, "{}\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "{}\n");
  std::remove(path.c_str());
  CHECK_THROWS(write_file_atomic("/no/such/dir/r.json", "{}"));
}
