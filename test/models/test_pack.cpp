// Round trip through the memory image (docs/MEMORY-LAYOUT.md): ops packed by
// eva_pack into an image file's bytes, the segments loaded into a platform's
// DRAM, each op of the table run as a functional descriptor; the outputs are
// within tolerance_q24 of the FP16 reference the image carries, whose checksum
// matches. One simulation per test case.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "arch_for_test.hpp"
#include "common/fp16.hpp"
#include "pack/image.hpp"
#include "sim_check.hpp"
#include "vp/platform.hpp"

using namespace eva;

namespace {

void run_image(const ArchConfig& a, std::vector<PackedOp> packed) {
  std::vector<eva_image_op_t> table;
  const std::vector<std::uint8_t> file = encode_image(layout_image(packed, table, 0x10000, 0x10000));
  const std::vector<ImageSegment> segments = decode_image(file);
  Platform platform("vp", a);
  SparseStorage& mem = platform.dram().storage();
  for (const ImageSegment& s : segments) mem.write(s.address, s.bytes.data(), s.bytes.size());
  std::vector<std::uint8_t> tbytes(EVA_IMAGE_TABLE_BYTES + packed.size() * EVA_IMAGE_OP_BYTES);
  mem.read(0x10000, tbytes.data(), tbytes.size());
  const std::vector<eva_image_op_t> ops = decode_op_table(tbytes);
  REQUIRE(ops.size() == packed.size());
  for (const eva_image_op_t& o : ops) {
    REQUIRE(o.arch == image_arch_code(a.kind));
    GemmDescriptor d;
    d.m = o.m;
    d.n = o.n;
    d.k = o.k;
    d.act_addr = o.act_addr;
    d.weight_addr = o.weight_addr;
    d.codebook_addr = o.codebook_addr;
    d.out_addr = o.out_addr;
    d.functional = (o.flags & EVA_IMAGE_OP_FUNCTIONAL) != 0;
    platform.add(d);
  }
  test::run_clean();
  for (const eva_image_op_t& o : ops) {
    std::vector<half_bits> y(o.m * o.n), ref(o.m * o.n);
    mem.read(o.out_addr, reinterpret_cast<std::uint8_t*>(y.data()), y.size() * 2);
    mem.read(o.ref_addr, reinterpret_cast<std::uint8_t*>(ref.data()), ref.size() * 2);
    CHECK(fnv1a64(reinterpret_cast<const std::uint8_t*>(ref.data()), ref.size() * 2) == o.ref_checksum);
    const double tol = std::ldexp(static_cast<double>(o.tolerance_q24), -24);
    double worst = 0.0, ref_max = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(half_to_float(y[i])) - half_to_float(ref[i])));
      ref_max = std::max(ref_max, std::fabs(static_cast<double>(half_to_float(ref[i]))));
    }
    INFO("worst |y - ref| " << worst << ", tolerance " << tol << ", max |ref| " << ref_max);
    CHECK(ref_max > 0.0);
    CHECK(worst <= tol);
    CHECK(tol < 0.05 * ref_max);  // the tolerance is not vacuous
  }
}

}  // namespace

TEST_CASE("pack: figlut ops from an image match their FP16 reference within tolerance") {
  const ArchConfig a = test::arch("figlut");
  std::mt19937_64 rng(5);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<PackedOp> packed;
  for (const auto& [m, k, n] : {std::tuple{4u, 64u, 128u}, std::tuple{4u, 128u, 64u}}) {
    std::vector<float> x(m * k), w(k * n);
    for (float& v : x) v = g(rng);
    for (float& v : w) v = 0.05f * g(rng);
    packed.push_back(pack_dense_op(a, x, w, m, n, k));
  }
  run_image(a, std::move(packed));
}

TEST_CASE("pack: eva ops from an image match their FP16 reference within tolerance") {
  const ArchConfig a = test::arch("eva");
  std::vector<PackedOp> packed;
  for (std::uint64_t seed : {1u, 2u}) {
    const VqProblem p = random_vq_problem(4, 64, 64, a.vq.codebooks, a.vq.index_bits, a.vq.vector_dim, 0, 0, 0.0, seed);
    packed.push_back(pack_vq_op(a, p.w, p.x, p.m));
  }
  run_image(a, std::move(packed));
}
