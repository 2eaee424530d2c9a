#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "report/plot.hpp"
#include "report/report.hpp"

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

TEST_CASE("A report's state round-trips exactly: every field, doubles to the bit") {
  Report r;
  r.arch = "eva";
  r.model = "llama2-7b";
  r.phase = "decode";
  r.cycles = 123456789012ull;
  r.seconds = 0.1 + 0.2;  // not representable exactly: the round trip must keep every bit
  r.energy_j = 1.0 / 3.0;
  r.energy_breakdown_j = {{"array", 2.0 / 7.0}, {"dram", 1e-17}};
  r.area_mm2 = 1.376;
  r.area_breakdown_mm2 = {{"array", 0.48}};
  r.work_ops = 6.7e12;
  r.tokens = 3;
  r.dram_bytes_read = 1ull << 40;
  r.dram_bytes_written = 7;
  r.dram_bw_utilization = 0.963;
  r.sram_bank_conflict_cycles = 11;
  OpReport o;
  o.name = "layer0.q_proj";
  o.m = 1;
  o.n = 4096;
  o.k = 4096;
  o.count = 2;
  o.cycles = 34134;
  o.compute_cycles = 30000;
  o.dram_bytes_read = 4210688;
  o.dram_bytes_written = 8192;
  o.seconds = 6.8268e-05;
  o.energy_j = 0.000694486;
  o.energy_breakdown_j = {{"epilogue", 1e-6}};
  o.work_ops = 33554432.0;
  r.ops = {o, o};
  r.sim_wall_s = 0.5;
  r.config = {{"clock_mhz", 500.0}};
  r.stats = {{"dma", {{"bursts", {{"value", 3.0}}}}}};
  r.extra = {{"batch", 1}};
  const nlohmann::json state = report_state(r);
  const Report back = report_from_state(nlohmann::json::parse(state.dump()));
  CHECK(report_state(back) == state);
  CHECK(back.seconds == r.seconds);
  CHECK(*back.energy_j == *r.energy_j);
  CHECK(back.ops[1].energy_breakdown_j.at("epilogue") == 1e-6);
  Report no_energy;
  CHECK(!report_from_state(report_state(no_energy)).energy_j);
}

TEST_CASE("CSV carries tokens per second and every ratio against a baseline that a report has") {
  Report a, b;
  a.arch = "eva";
  a.seconds = 0.5;
  a.tokens = 10;
  a.extra["speedup_vs_sa"] = 4.0;
  a.extra["energy_efficiency_vs_sa"] = 2.0;
  b.arch = "sa";
  b.seconds = 2.0;
  b.tokens = 10;
  b.extra["speedup_vs_sa"] = 1.0;
  b.extra["energy_efficiency_vs_sa"] = 1.0;
  const std::string csv = to_csv({a, b});
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string tail = ",energy_per_token_j,tokens_per_s,energy_efficiency_vs_sa,speedup_vs_sa";
  REQUIRE(header.size() > tail.size());
  CHECK(header.substr(header.size() - tail.size()) == tail);
  CHECK(csv.find("\neva,") != std::string::npos);
  const std::string eva_row =
      csv.substr(csv.find("\neva,") + 1, csv.find('\n', csv.find("\neva,") + 1) - csv.find("\neva,") - 1);
  CHECK(eva_row.substr(eva_row.size() - 6) == "20,2,4");
}

TEST_CASE("What bounds an operation: memory, else bank conflicts, the epilogue or compute, by the busiest unit") {
  OpLoad l;
  l.memory_cycles = 1000;
  l.array_cycles = 900;
  CHECK(bound_by(l) == "memory");  // the DRAM at its peak takes longer than the array
  l.array_cycles = 1000;
  CHECK(bound_by(l) == "memory");  // a tie is memory's
  l.array_cycles = 1200;
  CHECK(bound_by(l) == "compute");
  l.epilogue_cycles = 1500;
  CHECK(bound_by(l) == "epilogue");  // EVA's adder trees are the busiest unit
  l.epilogue_cycles = 0;
  l.lookup_cycles = 4000;
  l.conflict_cycles = 1001;  // more than a quarter of the busiest unit's cycles
  CHECK(bound_by(l) == "bank conflicts");
  l.conflict_cycles = 999;
  CHECK(bound_by(l) == "compute");
}

TEST_CASE("Breakdown by kind: each kind's ops, time, energy, bytes, share and the bound of most of its time") {
  Report r;
  r.seconds = 10;
  const auto op = [](const char* kind, double s, const char* bound) {
    OpReport o;
    o.kind = kind;
    o.seconds = s;
    o.energy_j = s / 10;
    o.dram_bytes_read = 100;
    o.dram_bytes_written = 1;
    o.bound_by = bound;
    return o;
  };
  r.ops = {op("fc", 3, "memory"), op("fc", 4, "compute"), op("fc", 2, "memory"), op("vector", 1, "compute")};
  const nlohmann::json b = breakdown_by_kind(r);
  REQUIRE(b.size() == 2);
  CHECK(b["fc"]["ops"] == 3);
  CHECK(b["fc"]["seconds"].get<double>() == Approx(9));
  CHECK(b["fc"]["share_of_seconds"].get<double>() == Approx(0.9));
  CHECK(b["fc"]["dram_bytes"] == 303);
  CHECK(b["fc"]["energy_j"].get<double>() == Approx(0.9));
  CHECK(b["fc"]["seconds_bound_by"]["memory"].get<double>() == Approx(5));
  CHECK(b["fc"]["bound_by"] == "memory");  // 5 s of its 9
  CHECK(b["vector"]["bound_by"] == "compute");
  CHECK(to_json(r).contains("breakdown_by_kind"));
  CHECK(kind_table(r).find("fc") != std::string::npos);
  Report none;
  CHECK(!to_json(none).contains("breakdown_by_kind"));
  CHECK(kind_table(none).empty());
}

TEST_CASE("The roofline's data: each op at its operations per DRAM byte and achieved GOPS, the rest counted") {
  Report r;
  r.arch = "eva";
  OpReport fc;
  fc.name = "q";
  fc.kind = "fc";
  fc.bound_by = "memory";
  fc.count = 2;
  fc.work_ops = 8e6;
  fc.dram_bytes_read = 900000;
  fc.dram_bytes_written = 100000;
  fc.seconds = 1e-3;
  OpReport vector = fc;
  vector.kind = "vector";
  vector.work_ops = 0;  // no work: not on the axes
  vector.count = 3;
  r.ops = {fc, vector};
  const nlohmann::json j = roofline_data(r, 1.024e12, 64e9);
  CHECK(j["peak_gops"].get<double>() == Approx(1024));
  CHECK(j["peak_gbps"].get<double>() == Approx(64));
  REQUIRE(j["ops"].size() == 1);
  CHECK(j["ops"][0]["ops_per_byte"].get<double>() == Approx(8.0));
  CHECK(j["ops"][0]["gops"].get<double>() == Approx(8.0));
  CHECK(j["ops"][0]["bound_by"] == "memory");
  CHECK(j["left_out"] == 3);
}
