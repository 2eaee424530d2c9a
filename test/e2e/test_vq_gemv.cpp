// eva-sim vq-gemv end to end: .npy in, y.npy out, and every kind of bad file
// refused with exit 2, a message naming the file, and no output written.
#include <cmath>
#include <fstream>
#include <random>

#include <catch2/catch.hpp>

#include "common/fp16.hpp"
#include "common/vq_math.hpp"
#include "config/npy.hpp"
#include "run_eva_sim.hpp"

using namespace eva;
using namespace eva::test;

namespace {

void save(const Scratch& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir.path(name), std::ios::binary) << bytes;
}

std::string halves(const std::vector<std::uint64_t>& shape, const std::vector<half_bits>& v) {
  return npy_bytes("<f2", shape, v.data(), v.size() * 2);
}

// A small valid problem: M x K activations, 2 codebooks of 256 x 8, K/8 x N indices.
struct Files {
  std::uint64_t m = 2, k = 48, n = 20;
  std::vector<half_bits> x, cb;
  std::vector<std::int32_t> idx;
  VqMatrix w;
  explicit Files(const Scratch& dir) {
    std::mt19937 rng(3);
    std::normal_distribution<float> g(0, 1);
    for (std::uint64_t i = 0; i < m * k; ++i) x.push_back(float_to_half(g(rng)));
    for (int i = 0; i < 2 * 256 * 8; ++i) cb.push_back(float_to_half(0.1f * g(rng)));
    for (std::uint64_t i = 0; i < 2 * (k / 8) * n; ++i) idx.push_back(static_cast<std::int32_t>(rng() % 256));
    save(dir, "x.npy", halves({m, k}, x));
    save(dir, "cb.npy", halves({2, 256, 8}, cb));
    save(dir, "idx.npy", npy_bytes("<i4", {2, k / 8, n}, idx.data(), idx.size() * 4));
    w.k = k;
    w.n = n;
    w.codebooks = 2;
    w.centroids = cb;
    for (auto i : idx) w.index.push_back(static_cast<std::uint32_t>(i));
  }
};

std::vector<std::string> args(const std::string& x = "x.npy", const std::string& cb = "cb.npy",
                              const std::string& idx = "idx.npy") {
  return {"vq-gemv", "--x", x, "--codebooks", cb, "--indices", idx, "--out", "y.npy", "--json", "r.json"};
}

void refused(const Scratch& dir, const std::vector<std::string>& a, const std::string& expected) {
  const Run r = eva_sim(dir, a);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(expected) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(dir.exists("y.npy"));
  CHECK_FALSE(dir.exists("r.json"));
}

}  // namespace

TEST_CASE("vq-gemv writes y.npy matching the float64 reference") {
  Scratch dir;
  Files f(dir);
  const Run r = eva_sim(dir, args());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const NpyArray y = read_npy(dir.path("y.npy"));
  REQUIRE(y.dtype == "<f4");
  REQUIRE(y.shape == std::vector<std::uint64_t>{f.m, f.n});
  const std::vector<double> ref = vq_reference(f.w, f.x, f.m);
  double err = 0, norm = 0;
  for (std::uint64_t i = 0; i < f.m * f.n; ++i) {
    float v;
    std::memcpy(&v, y.data.data() + 4 * i, 4);
    err += (v - ref[i]) * (v - ref[i]);
    norm += ref[i] * ref[i];
  }
  CHECK(std::sqrt(err / norm) < 1e-3);
  const auto j = dir.json("r.json");
  CHECK(j["arch"] == "eva");
  CHECK(j["sram_bank_conflict_cycles"] == 0);
}

TEST_CASE("vq-gemv refuses x of the wrong dtype") {
  Scratch dir;
  Files f(dir);
  std::vector<float> xf(f.m * f.k, 1.0f);
  save(dir, "x.npy", npy_bytes("<f4", {f.m, f.k}, xf.data(), xf.size() * 4));
  refused(dir, args(), "x.npy: dtype '<f4': expected float16");
}
TEST_CASE("vq-gemv refuses codebooks of the wrong rank") {
  Scratch dir;
  Files f(dir);
  save(dir, "cb.npy", halves({512, 8}, f.cb));
  refused(dir, args(), "cb.npy: shape of rank 2");
}
TEST_CASE("vq-gemv refuses indices whose shape disagrees with x and the codebooks") {
  Scratch dir;
  Files f(dir);
  save(dir, "idx.npy", npy_bytes("<i4", {2, 5, 24}, f.idx.data(), 2 * 5 * 24 * 4));
  refused(dir, args(), "idx.npy: shape (2, 5, 24): expected (2, 6, N)");
}
TEST_CASE("vq-gemv refuses K that is not a multiple of d") {
  Scratch dir;
  Files f(dir);
  save(dir, "x.npy", halves({f.m, 44}, std::vector<half_bits>(f.m * 44, 0)));
  refused(dir, args(), "K = 44 is not a positive multiple of the codebooks' d = 8");
}
TEST_CASE("vq-gemv refuses an index out of range") {
  Scratch dir;
  Files f(dir);
  f.idx[7] = 256;
  save(dir, "idx.npy", npy_bytes("<i4", {2, f.k / 8, f.n}, f.idx.data(), f.idx.size() * 4));
  refused(dir, args(), "idx.npy: index 256 at (0, 0, 7) is out of range [0, 256)");
}
TEST_CASE("vq-gemv refuses truncated data") {
  Scratch dir;
  Files f(dir);
  std::string bytes = halves({2, 256, 8}, f.cb);
  bytes.resize(bytes.size() - 100);
  save(dir, "cb.npy", bytes);
  refused(dir, args(), "cb.npy: truncated data");
}
TEST_CASE("vq-gemv refuses a file that is not .npy") {
  Scratch dir;
  Files f(dir);
  save(dir, "x.npy", "hello, world");
  refused(dir, args(), "x.npy: not a valid .npy file");
}
TEST_CASE("vq-gemv refuses a missing file") {
  Scratch dir;
  Files f(dir);
  refused(dir, args("nowhere.npy"), "nowhere.npy: cannot open file");
}
TEST_CASE("vq-gemv on vq-conflict matches the reference and counts bank conflicts") {
  Scratch dir;
  Files f(dir);
  auto a = args();
  a.insert(a.end(), {"--arch", "vq-conflict"});
  const Run r = eva_sim(dir, a);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const NpyArray y = read_npy(dir.path("y.npy"));
  const std::vector<double> ref = vq_reference(f.w, f.x, f.m);
  double err = 0, norm = 0;
  for (std::uint64_t i = 0; i < f.m * f.n; ++i) {
    float v;
    std::memcpy(&v, y.data.data() + 4 * i, 4);
    err += (v - ref[i]) * (v - ref[i]);
    norm += ref[i] * ref[i];
  }
  CHECK(std::sqrt(err / norm) < 1e-3);
  CHECK(dir.json("r.json")["sram_bank_conflict_cycles"].get<double>() > 0);
}
