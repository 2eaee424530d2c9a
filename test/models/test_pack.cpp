// Round trip through the memory image (docs/MEMORY-LAYOUT.md): ops packed by
// eva_pack into an image file's bytes, the segments loaded into a platform's
// DRAM, each op of the table run as a functional descriptor; the outputs,
// read back from DRAM, are within tolerance_q24 of the FP16 reference the
// image carries, whose checksum matches; and the same check refuses an output
// moved a few FP16 steps beyond the tolerance. Every architecture with a
// functional model; one simulation per test case.
#include <cmath>
#include <random>
#include <tuple>

#include <catch2/catch.hpp>

#include "arch_for_test.hpp"
#include "common/fp16.hpp"
#include "pack/image.hpp"
#include "sim_check.hpp"
#include "vp/platform.hpp"

using namespace eva;

namespace {

std::vector<std::uint8_t> read(SparseStorage& mem, std::uint64_t addr, std::uint64_t bytes) {
  std::vector<std::uint8_t> b(bytes);
  mem.read(addr, b.data(), b.size());
  return b;
}

// The value `steps` FP16 steps beyond the tolerance from reference element i.
double beyond(const std::vector<std::uint8_t>& ref, std::size_t i, double tol, int steps) {
  const auto h = static_cast<half_bits>(ref[2 * i] | (ref[2 * i + 1] << 8));
  const double r = static_cast<double>(half_to_float(h));
  const double edge = r >= 0 ? r + tol : r - tol;  // away from zero: more magnitude
  return static_cast<double>(half_to_float(static_cast<half_bits>(float_to_half(static_cast<float>(edge)) + steps)));
}

void run_image(const ArchConfig& a, std::vector<PackedOp> packed) {
  std::vector<eva_image_op_t> table;
  const std::vector<std::uint8_t> file = encode_image(layout_image(packed, table, 0x10000, 0x10000));
  const std::vector<ImageSegment> segments = decode_image(file);
  Platform platform("vp", a);
  SparseStorage& mem = platform.dram().storage();
  for (const ImageSegment& s : segments) mem.write(s.address, s.bytes.data(), s.bytes.size());
  const std::vector<eva_image_op_t> ops =
      decode_op_table(read(mem, 0x10000, EVA_IMAGE_TABLE_BYTES + packed.size() * EVA_IMAGE_OP_BYTES));
  REQUIRE(ops.size() == packed.size());
  for (const eva_image_op_t& o : ops) {
    REQUIRE(o.arch == image_arch_code(a.kind));
    platform.add(gemm_descriptor(o));
  }
  test::run_clean();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const eva_image_op_t& o = ops[i];
    const std::vector<std::uint8_t> ref = read(mem, o.ref_addr, o.m * o.n * 2);
    CHECK(fnv1a64(ref.data(), ref.size()) == o.ref_checksum);
    const std::vector<double> y = decode_outputs(a, o.m, o.n, read(mem, o.out_addr, packed[i].out_bytes),
                                                 read(mem, o.codebook_addr, packed[i].codebooks.size()));
    const OutputCheck c = check_outputs(y, ref, o.tolerance_q24);
    double ref_max = 0.0;
    for (std::size_t e = 0; e < y.size(); ++e) ref_max = std::max(ref_max, std::fabs(beyond(ref, e, 0.0, 0)));
    const double step = std::ldexp(1.0, std::ilogb(ref_max) - 10);  // one FP16 step at max |ref|
    INFO(a.name << " op " << i << " (M " << o.m << ", K " << o.k << ", N " << o.n << "): worst |y - ref| " << c.worst
                << " (" << c.worst / step << " FP16 steps of max |ref| " << ref_max << "), tolerance " << c.tolerance
                << " (" << c.tolerance / step << " steps)");
    CHECK(ref_max > 0.0);
    CHECK(c.ok);
    CHECK(c.tolerance < 0.05 * ref_max);  // the tolerance is not vacuous
    // A wrong result a few FP16 steps beyond the bound, at the worst element
    // and at the largest reference, fails the check.
    std::size_t largest = 0;
    for (std::size_t e = 0; e < y.size(); ++e)
      if (std::fabs(beyond(ref, e, 0.0, 0)) == ref_max) largest = e;
    for (const std::size_t at : {c.worst_at, largest}) {
      std::vector<double> wrong = y;
      wrong[at] = beyond(ref, at, c.tolerance, 3);
      CHECK_FALSE(check_outputs(wrong, ref, o.tolerance_q24).ok);
      wrong[at] = beyond(ref, at, c.tolerance, -2);  // just inside still passes
      CHECK(check_outputs(wrong, ref, o.tolerance_q24).ok);
    }
  }
}

// Dense ops: M x K activations ~ N(0, 1) (with `outlier` x that scale on
// activation column 3, as LLM activations have), K x N weights ~ N(0, 0.05).
std::vector<PackedOp> dense_ops(const ArchConfig& a, float outlier = 1.0f) {
  std::mt19937_64 rng(5);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<PackedOp> packed;
  for (const auto& [m, k, n] : {std::tuple{4u, 64u, 128u}, std::tuple{4u, 128u, 64u}, std::tuple{2u, 512u, 32u}}) {
    std::vector<float> x(m * k), w(k * n);
    for (float& v : x) v = g(rng);
    for (std::uint64_t r = 0; r < m; ++r) x[r * k + 3] *= outlier;
    for (float& v : w) v = 0.05f * g(rng);
    packed.push_back(pack_dense_op(a, x, w, m, n, k));
  }
  return packed;
}

std::vector<PackedOp> vq_ops(const ArchConfig& a) {
  std::vector<PackedOp> packed;
  for (const auto& [seed, k, n] : {std::tuple{1u, 64u, 64u}, std::tuple{2u, 64u, 64u}, std::tuple{3u, 512u, 96u}}) {
    const VqProblem p = random_vq_problem(4, k, n, a.vq.codebooks, a.vq.index_bits, a.vq.vector_dim, 0, 0, 0.0, seed);
    packed.push_back(pack_vq_op(a, p.w, p.x, p.m));
  }
  return packed;
}

}  // namespace

// FIGLUT's FP32 sums carry its BCQ terms, alpha (2 b - 1) and the offset,
// which need not be small where W is: a column of zeros is alpha terms that
// cancel (the soak, test/soak, found one). The tolerance bounds the rounding
// of those terms; the reference is exactly 0.
TEST_CASE("pack: figlut outputs of all-zero weight columns are within the tolerance of their reference, 0") {
  const ArchConfig a = test::arch("figlut");
  const std::uint64_t m = 5, n = 2, k = 258;
  std::mt19937_64 rng(1);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> x(m * k), w(k * n, 0.0f);
  for (std::uint64_t i = 0; i < m * k; ++i) x[i] = (i % k == 7 ? 100.0f : 1.0f) * g(rng);
  std::vector<PackedOp> packed = {pack_dense_op(a, x, w, m, n, k)};
  std::vector<eva_image_op_t> table;
  const std::vector<ImageSegment> segments = layout_image(packed, table, 0x10000, 0x10000);
  Platform platform("vp", a);
  SparseStorage& mem = platform.dram().storage();
  for (const ImageSegment& s : segments) mem.write(s.address, s.bytes.data(), s.bytes.size());
  platform.add(gemm_descriptor(table[0]));
  test::run_clean();
  const std::vector<double> y = decode_outputs(a, m, n, read(mem, table[0].out_addr, packed[0].out_bytes), {});
  const OutputCheck c = check_outputs(y, packed[0].reference_fp16, table[0].tolerance_q24);
  double largest = 0.0;
  for (double v : y) largest = std::max(largest, std::fabs(v));
  INFO("largest |y| " << largest << ", tolerance " << c.tolerance);
  CHECK(largest > 0.0);  // the terms do not cancel exactly in FP32
  CHECK(c.ok);
}

TEST_CASE("pack: figlut ops from an image match their FP16 reference within tolerance") {
  const ArchConfig a = test::arch("figlut");
  run_image(a, dense_ops(a));
}

TEST_CASE("pack: eva ops from an image match their FP16 reference within tolerance") {
  const ArchConfig a = test::arch("eva");
  run_image(a, vq_ops(a));
}

TEST_CASE("pack: vq-conflict ops from an image match their FP16 reference within tolerance") {
  const ArchConfig a = test::arch("vq-conflict");
  run_image(a, vq_ops(a));
}

TEST_CASE("pack: figna ops from an image match their FP16 reference within tolerance (outliers too)") {
  const ArchConfig a = test::arch("figna");
  std::vector<PackedOp> packed = dense_ops(a);
  for (PackedOp& p : dense_ops(a, 100.0f)) packed.push_back(std::move(p));
  run_image(a, std::move(packed));
}

TEST_CASE("pack: sa ops from an image match their reference within tolerance (INT outputs times s_y)") {
  const ArchConfig a = test::arch("sa");
  run_image(a, dense_ops(a));
}

TEST_CASE("pack: ant ops from an image match their reference within tolerance (INT outputs times s_y)") {
  const ArchConfig a = test::arch("ant");
  run_image(a, dense_ops(a));
}
