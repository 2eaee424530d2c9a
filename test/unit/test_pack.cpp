// eva_pack's memory image (docs/MEMORY-LAYOUT.md): the op table's bytes sit
// at eva_image.h's offsets, images round-trip, malformed ones are refused.
#include <cstddef>
#include <cstring>

#include <catch2/catch.hpp>

#include "arch/presets.hpp"
#include "common/error.hpp"
#include "pack/image.hpp"
#include "pack/operand_layout.hpp"

using namespace eva;

namespace {
std::uint64_t le(const std::vector<std::uint8_t>& b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(b[at + static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}
}  // namespace

TEST_CASE("pack: the C++ writer puts every op field at eva_image.h's offset") {
  eva_image_op_t o{};
  o.arch = 5;
  o.flags = EVA_IMAGE_OP_FUNCTIONAL;
  o.m = 11;
  o.n = 12;
  o.k = 13;
  o.act_addr = 0x1000;
  o.weight_addr = 0x2000;
  o.codebook_addr = 0x3000;
  o.out_addr = 0x4000;
  o.ref_addr = 0x5000;
  o.ref_checksum = 0x0123456789abcdefull;
  o.tolerance_q24 = 77;
  const std::vector<std::uint8_t> b = encode_op_table({o, o});
  REQUIRE(b.size() == EVA_IMAGE_TABLE_BYTES + 2 * EVA_IMAGE_OP_BYTES);
  CHECK(le(b, 0, 4) == EVA_IMAGE_TABLE_MAGIC);
  CHECK(std::memcmp(b.data(), "EVAT", 4) == 0);
  CHECK(le(b, 4, 4) == 1);
  CHECK(le(b, offsetof(eva_image_table_t, op_count), 4) == 2);
  CHECK(le(b, 12, 4) == 0);
  const std::size_t at = EVA_IMAGE_TABLE_BYTES + EVA_IMAGE_OP_BYTES;  // the second op
  CHECK(le(b, at + offsetof(eva_image_op_t, arch), 4) == 5);
  CHECK(le(b, at + offsetof(eva_image_op_t, flags), 4) == 1);
  CHECK(le(b, at + offsetof(eva_image_op_t, m), 8) == 11);
  CHECK(le(b, at + offsetof(eva_image_op_t, n), 8) == 12);
  CHECK(le(b, at + offsetof(eva_image_op_t, k), 8) == 13);
  CHECK(le(b, at + offsetof(eva_image_op_t, act_addr), 8) == 0x1000);
  CHECK(le(b, at + offsetof(eva_image_op_t, weight_addr), 8) == 0x2000);
  CHECK(le(b, at + offsetof(eva_image_op_t, codebook_addr), 8) == 0x3000);
  CHECK(le(b, at + offsetof(eva_image_op_t, out_addr), 8) == 0x4000);
  CHECK(le(b, at + offsetof(eva_image_op_t, ref_addr), 8) == 0x5000);
  CHECK(le(b, at + offsetof(eva_image_op_t, ref_checksum), 8) == 0x0123456789abcdefull);
  CHECK(le(b, at + offsetof(eva_image_op_t, tolerance_q24), 8) == 77);
  CHECK(le(b, at + 88, 8) == 0);
  CHECK(le(b, at + 96, 8) == 0);
  const std::vector<eva_image_op_t> back = decode_op_table(b);
  REQUIRE(back.size() == 2);
  CHECK(std::memcmp(&back[1], &o, sizeof o) == 0);
}

TEST_CASE("pack: an image file round-trips, segments padded to 8 bytes") {
  const std::vector<ImageSegment> s = {{0x100, {1, 2, 3}}, {0x8000, {}}, {0x9000, std::vector<std::uint8_t>(16, 7)}};
  const std::vector<std::uint8_t> f = encode_image(s);
  CHECK(std::memcmp(f.data(), "EVAIMG01", 8) == 0);
  CHECK(le(f, 8, 4) == 1);
  CHECK(le(f, 12, 4) == 3);
  CHECK(le(f, 16, 8) == 0x100);
  CHECK(le(f, 24, 8) == 3);
  CHECK(f.size() == 16 + (16 + 8) + 16 + (16 + 16));
  const std::vector<ImageSegment> back = decode_image(f);
  REQUIRE(back.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(back[i].address == s[i].address);
    CHECK(back[i].bytes == s[i].bytes);
  }
  std::vector<std::uint8_t> bad = f;
  bad[0] = 'X';
  CHECK_THROWS_AS(decode_image(bad), InputError);
  bad = f;
  bad.resize(30);
  CHECK_THROWS_AS(decode_image(bad), InputError);
}

TEST_CASE("pack: FNV-1a 64 as published") {
  CHECK(fnv1a64(nullptr, 0) == 0xcbf29ce484222325ull);
  const std::uint8_t a[] = {'a'};
  CHECK(fnv1a64(a, 1) == 0xaf63dc4c8601ec8cull);
}

TEST_CASE("pack: layout places the table first and every operand aligned, without overlap") {
  const ArchConfig c = presets::arch("figlut");
  std::vector<float> x(4 * 64, 0.5f), w(64 * 32, 0.25f);
  std::vector<PackedOp> p = {pack_dense_op(c, x, w, 4, 32, 64)};
  std::vector<eva_image_op_t> ops;
  const std::vector<ImageSegment> s = layout_image(p, ops, 0x80000000ull, 0x80000000ull);
  REQUIRE(ops.size() == 1);
  CHECK(s[0].address == 0x80000000ull);
  CHECK(s[0].bytes == encode_op_table(ops));
  for (std::size_t i = 1; i < s.size(); ++i) {
    CHECK(s[i].address % image_region_align == 0);
    CHECK(s[i].address >= s[i - 1].address + s[i - 1].bytes.size());
  }
  CHECK(ops[0].arch == 5);
  CHECK(ops[0].out_addr > ops[0].codebook_addr);
  CHECK(ops[0].ref_checksum == fnv1a64(p[0].reference_fp16.data(), p[0].reference_fp16.size()));
  CHECK_THROWS_AS(layout_image(p, ops, 0x1000, 0xff8), InputError);
}
