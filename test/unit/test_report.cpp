#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "report.hpp"

using namespace eva;

TEST_CASE("Reports carry the contract's keys") {
  Report r;
  r.arch = "sa";
  r.ops.push_back(OpReport{"gemm", 1, 2, 3, 10, 9, 100, 4});
  const auto j = to_json(r);
  for (const char* key :
       {"arch", "model", "phase", "cycles", "seconds", "energy_j", "dram_bytes_read", "dram_bytes_written",
        "dram_bw_utilization", "sram_bank_conflict_cycles", "ops", "sim_wall_s"})
    CHECK(j.contains(key));
  for (const char* key : {"name", "m", "n", "k", "cycles", "dram_bytes_read"}) CHECK(j["ops"][0].contains(key));
  CHECK(j["energy_j"].is_null());
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
