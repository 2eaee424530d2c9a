// eva-sim pack end to end: the example block packs into an image and a
// manifest; bad specs exit 2 with one line naming the problem and where, and
// leave no image behind; file names are never given to a shell.
#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>

#include "run_eva_sim.hpp"

using namespace eva::test;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void refused(const Scratch& dir, const std::string& spec, const std::string& expected) {
  dir.write("bad.yaml", spec);
  const Run r = eva_sim(dir, {"pack", "bad.yaml", "-o", "out.img"});
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(expected) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(dir.exists("out.img"));
  CHECK_FALSE(dir.exists("out.img.json"));
}

const char* const good_op =
    "  - {name: up, arch: figlut, m: 4, n: 128, k: 64, x: blk/mlp_up_x.npy, w: blk/mlp_up_w.npy}\n";

}  // namespace

TEST_CASE("pack: the example block packs into an image and a manifest") {
  Scratch dir;
  REQUIRE(eva_sim(dir, {"pack", "--example", "blk", "--seed", "3"}).exit_code == 0);
  const Run r = eva_sim(dir, {"pack", "blk/block.yaml", "-o", "block.img"});
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string img = read_bytes(dir.path("block.img"));
  REQUIRE(img.size() > 16);
  CHECK(img.compare(0, 8, "EVAIMG01") == 0);
  CHECK(img.size() % 8 == 0);
  const nlohmann::json m = dir.json("block.img.json");
  CHECK(m["format"] == "EVAIMG01");
  REQUIRE(m["ops"].size() == 6);
  CHECK(m["ops"][0]["arch"] == "eva");
  CHECK(m["ops"][0]["arch_code"] == 1);
  CHECK(m["ops"][5]["arch"] == "figlut");
  CHECK(m["ops"][5]["arch_code"] == 5);
  CHECK(m["segments"][0]["address"] == m["table_addr"]);
  CHECK(m["segments"][0]["length"] == 16 + 6 * 104);
  for (const auto& op : m["ops"]) CHECK(op["tolerance_q24"].get<std::uint64_t>() > 0);
  // The same seed, the same bytes.
  REQUIRE(eva_sim(dir, {"pack", "blk/block.yaml", "-o", "again.img"}).exit_code == 0);
  CHECK(read_bytes(dir.path("again.img")) == img);
}

TEST_CASE("pack: bad specs exit 2 naming the problem, and write nothing") {
  Scratch dir;
  REQUIRE(eva_sim(dir, {"pack", "--example", "blk"}).exit_code == 0);
  refused(dir,
          std::string("ops:\n") + "  - {arch: figlut, m: 4, n: 128, k: 64, x: blk/none.npy, w: blk/mlp_up_w.npy}\n",
          "blk/none.npy: cannot open file");
  refused(dir,
          std::string("ops:\n") + "  - {arch: figlut, m: 4, n: 128, k: 32, x: blk/mlp_up_x.npy, w: blk/mlp_up_w.npy}\n",
          "expected (M, K) = (4, 32)");
  refused(dir,
          std::string("ops:\n") + "  - {arch: nosuch, m: 4, n: 128, k: 64, x: blk/mlp_up_x.npy, w: blk/mlp_up_w.npy}\n",
          "bad.yaml:2: ops[0] (op0): arch: unknown name 'nosuch'");
  refused(dir,
          std::string("ops:\n") + good_op +
              "  - {arch: eva, m: 4, n: 64, k: 64, x: blk/q_proj_x.npy, w: blk/mlp_up_w.npy}\n",
          "ops[1]");
  refused(dir, "ops: []\n", "ops: expected a non-empty list");
  refused(dir, std::string("ops:\n") + good_op + "colour: blue\n", "colour: unknown key");
}

TEST_CASE("pack: hostile file names are plain names") {
  Scratch dir;
  REQUIRE(eva_sim(dir, {"pack", "--example", "blk"}).exit_code == 0);
  refused(
      dir,
      std::string("ops:\n") + "  - {arch: figlut, m: 4, n: 128, k: 64, x: '$(touch pwned).npy', w: \"a'b\\\"c.npy\"}\n",
      "$(touch pwned).npy: cannot open file");
  CHECK_FALSE(dir.exists("pwned"));
  dir.write("ok.yaml", std::string("ops:\n") + good_op);
  const Run r = eva_sim(dir, {"pack", "ok.yaml", "-o", "it's $(touch pwned) \"x\".img"});
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(dir.exists("it's $(touch pwned) \"x\".img"));
  CHECK_FALSE(dir.exists("pwned"));
}
