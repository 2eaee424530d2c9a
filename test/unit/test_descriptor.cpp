// The binary descriptor format (docs/DESCRIPTORS.md): round trips, the C
// struct of eva_regs.h laid out as the codec writes, every malformed case.
#include <cstring>
#include <random>

#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "eva_regs.h"
#include "periph/descriptor_codec.hpp"

using namespace eva;
using regs::ErrorCode;

namespace {

GemmDescriptor sample_gemm() {
  GemmDescriptor op;
  op.m = 3;
  op.n = 4096;
  op.k = 11008;
  op.count = 32;
  op.operand = GemmOperand::kv_cache;
  op.act_addr = 0x0102030405060708ull;
  op.weight_addr = 0x1112131415161718ull;
  op.codebook_addr = 0x2122232425262728ull;
  op.out_addr = 0x3132333435363738ull;
  op.act_stride = 0x100;
  op.weight_stride = 0x20000;
  op.out_stride = 0x300;
  op.functional = true;
  return op;
}

VectorDescriptor sample_vector() {
  VectorDescriptor op;
  op.op = VectorOp::silu_mul;
  op.rows = 7;
  op.cols = 11008;
  op.in_addr = 0xa0a1a2a3a4a5a6a7ull;
  op.in2_addr = 0xb0b1;
  op.out_addr = 0xc0c1c2c3ull;
  return op;
}

ErrorCode decode_error(const DescriptorBytes& b) { return decode_descriptor(b.data(), b.size()).error; }

}  // namespace

TEST_CASE("descriptor: a GEMM round-trips through the bytes, every field") {
  const GemmDescriptor op = sample_gemm();
  const DescriptorBytes b = encode_descriptor(op, 0x8000'0040, 77);
  const DecodedDescriptor d = decode_descriptor(b.data(), b.size());
  REQUIRE(d.ok());
  CHECK(d.next == 0x8000'0040);
  CHECK(d.tag == 77);
  const auto& g = std::get<GemmDescriptor>(d.op);
  CHECK(g.name == "gemm 77");
  CHECK(g.m == op.m);
  CHECK(g.n == op.n);
  CHECK(g.k == op.k);
  CHECK(g.count == op.count);
  CHECK(g.operand == GemmOperand::kv_cache);
  CHECK(g.act_addr == op.act_addr);
  CHECK(g.weight_addr == op.weight_addr);
  CHECK(g.codebook_addr == op.codebook_addr);
  CHECK(g.out_addr == op.out_addr);
  CHECK(g.act_stride == op.act_stride);
  CHECK(g.weight_stride == op.weight_stride);
  CHECK(g.out_stride == op.out_stride);
  CHECK(g.functional);
  GemmDescriptor timing = op;
  timing.functional = false;
  timing.operand = GemmOperand::weights;
  const DecodedDescriptor t = decode_descriptor(encode_descriptor(timing).data(), regs::desc_bytes);
  REQUIRE(t.ok());
  CHECK_FALSE(std::get<GemmDescriptor>(t.op).functional);
  CHECK(std::get<GemmDescriptor>(t.op).operand == GemmOperand::weights);
  CHECK(t.next == 0);
  timing.operand = GemmOperand::fp16_weights;  // an FP16 LM head
  const DecodedDescriptor h = decode_descriptor(encode_descriptor(timing).data(), regs::desc_bytes);
  REQUIRE(h.ok());
  CHECK(std::get<GemmDescriptor>(h.op).operand == GemmOperand::fp16_weights);
}

TEST_CASE("descriptor: a vector operation round-trips, every operation code") {
  for (VectorOp vop : {VectorOp::add, VectorOp::mul, VectorOp::silu_mul, VectorOp::gelu, VectorOp::rmsnorm,
                       VectorOp::layernorm, VectorOp::softmax, VectorOp::rope}) {
    VectorDescriptor op = sample_vector();
    op.op = vop;
    const DescriptorBytes b = encode_descriptor(op, 0x40, 5);
    const DecodedDescriptor d = decode_descriptor(b.data(), b.size());
    REQUIRE(d.ok());
    const auto& v = std::get<VectorDescriptor>(d.op);
    CHECK(v.op == vop);
    CHECK(v.rows == op.rows);
    CHECK(v.cols == op.cols);
    CHECK(v.in_addr == op.in_addr);
    CHECK(v.in2_addr == op.in2_addr);
    CHECK(v.out_addr == op.out_addr);
    CHECK(d.next == 0x40);
    CHECK(d.tag == 5);
  }
}

TEST_CASE("descriptor: the C structs of eva_regs.h hold the bytes the codec writes (little-endian host)") {
  const GemmDescriptor op = sample_gemm();
  eva_desc_gemm_t c;
  std::memset(&c, 0, sizeof c);
  c.magic = EVA_DESC_MAGIC;
  c.version = EVA_DESC_VERSION;
  c.opcode = EVA_OP_GEMM;
  c.flags = EVA_DESC_FLAG_FUNCTIONAL;
  c.next = 0x1234;
  c.act_addr = op.act_addr;
  c.weight_addr = op.weight_addr;
  c.codebook_addr = op.codebook_addr;
  c.out_addr = op.out_addr;
  c.act_stride = op.act_stride;
  c.weight_stride = op.weight_stride;
  c.out_stride = op.out_stride;
  c.m = 3;
  c.n = 4096;
  c.k = 11008;
  c.count = 32;
  c.operand = EVA_OPERAND_KV_CACHE;
  c.tag = 9;
  STATIC_REQUIRE(sizeof c == regs::desc_bytes);
  DescriptorBytes raw{};
  std::memcpy(raw.data(), &c, sizeof c);
  CHECK(raw == encode_descriptor(op, 0x1234, 9));

  const VectorDescriptor v = sample_vector();
  eva_desc_vector_t cv;
  std::memset(&cv, 0, sizeof cv);
  cv.magic = EVA_DESC_MAGIC;
  cv.version = EVA_DESC_VERSION;
  cv.opcode = EVA_OP_VECTOR;
  cv.in_addr = v.in_addr;
  cv.in2_addr = v.in2_addr;
  cv.out_addr = v.out_addr;
  cv.rows = 7;
  cv.cols = 11008;
  cv.op = EVA_VOP_SILU_MUL;
  cv.tag = 3;
  STATIC_REQUIRE(sizeof cv == regs::desc_bytes);
  std::memcpy(raw.data(), &cv, sizeof cv);
  CHECK(raw == encode_descriptor(v, 0, 3));
}

TEST_CASE("descriptor: malformed input gets its documented error code, never a throw") {
  const DescriptorBytes good = encode_descriptor(sample_gemm());
  const DescriptorBytes good_vector = encode_descriptor(sample_vector());
  REQUIRE(decode_error(good) == ErrorCode::none);
  REQUIRE(decode_error(good_vector) == ErrorCode::none);

  CHECK(decode_descriptor(good.data(), regs::desc_bytes - 1).error == ErrorCode::desc_short);
  CHECK(decode_descriptor(nullptr, regs::desc_bytes).error == ErrorCode::desc_short);
  CHECK(decode_descriptor(good.data(), 0).error == ErrorCode::desc_short);

  auto with = [](DescriptorBytes b, std::uint32_t offset, std::uint8_t value) {
    b[offset] = value;
    return b;
  };
  CHECK(decode_error(with(good, regs::gemm_desc::magic, 0x46)) == ErrorCode::desc_magic);
  CHECK(decode_error(with(good, regs::gemm_desc::magic + 3, 0)) == ErrorCode::desc_magic);
  CHECK(decode_error(with(good, regs::gemm_desc::version, 0)) == ErrorCode::desc_version);
  CHECK(decode_error(with(good, regs::gemm_desc::version, 2)) == ErrorCode::desc_version);
  CHECK(decode_error(with(good, regs::gemm_desc::opcode, 0)) == ErrorCode::desc_opcode);
  CHECK(decode_error(with(good, regs::gemm_desc::opcode, 3)) == ErrorCode::desc_opcode);
  CHECK(decode_error(with(good, regs::gemm_desc::flags, 0x02)) == ErrorCode::desc_reserved);
  CHECK(decode_error(with(good, regs::gemm_desc::flags + 1, 0x80)) == ErrorCode::desc_reserved);
  CHECK(decode_error(with(good_vector, regs::vector_desc::flags, 0x01)) == ErrorCode::desc_reserved);
  for (std::uint32_t i = regs::gemm_desc::reserved; i < regs::desc_bytes; ++i)
    CHECK(decode_error(with(good, i, 1)) == ErrorCode::desc_reserved);
  for (std::uint32_t i = regs::vector_desc::reserved; i < regs::desc_bytes; ++i)
    CHECK(decode_error(with(good_vector, i, 0x10)) == ErrorCode::desc_reserved);
  CHECK(decode_error(with(good, regs::gemm_desc::operand,
                          static_cast<std::uint8_t>(regs::OperandCode::fp16_weights) + 1)) == ErrorCode::desc_operand);
  CHECK(decode_error(with(good, regs::gemm_desc::operand + 3, 1)) == ErrorCode::desc_operand);
  CHECK(decode_error(with(good_vector, regs::vector_desc::op, 8)) == ErrorCode::desc_vector_op);
  CHECK(decode_error(with(good_vector, regs::vector_desc::op + 2, 1)) == ErrorCode::desc_vector_op);
  auto zero32 = [](DescriptorBytes b, std::uint32_t offset) {
    for (int i = 0; i < 4; ++i) b[offset + i] = 0;
    return b;
  };
  for (std::uint32_t f : {regs::gemm_desc::m, regs::gemm_desc::n, regs::gemm_desc::k, regs::gemm_desc::count})
    CHECK(decode_error(zero32(good, f)) == ErrorCode::desc_shape);
  for (std::uint32_t f : {regs::vector_desc::rows, regs::vector_desc::cols})
    CHECK(decode_error(zero32(good_vector, f)) == ErrorCode::desc_shape);
  // Shapes whose byte counts would wrap 64 bits (found in review of the
  // fuzzer's corpus: rows * cols * 2 wrapped).
  auto set32 = [](DescriptorBytes b, std::uint32_t offset, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
    return b;
  };
  auto set64 = [](DescriptorBytes b, std::uint32_t offset, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
    return b;
  };
  const auto huge_vector =
      set32(set32(good_vector, regs::vector_desc::rows, 0xffffffffu), regs::vector_desc::cols, 0xffffffffu);
  CHECK(decode_error(huge_vector) == ErrorCode::desc_shape);
  CHECK(decode_error(set32(set32(good, regs::gemm_desc::m, 0xffffffffu), regs::gemm_desc::k, 0xffffffffu)) ==
        ErrorCode::desc_shape);
  CHECK(decode_error(set32(set32(good, regs::gemm_desc::n, 0x80000000u), regs::gemm_desc::k, 0x40000000u)) ==
        ErrorCode::desc_shape);
  // An operand past the end of the address space decodes: the bus refuses it
  // when it is read (DATA_BUS_ERROR, which the soak checks).
  CHECK(decode_error(set64(good_vector, regs::vector_desc::out_addr, ~0ull - 15)) == ErrorCode::none);
  // The largest countable shapes still decode.
  CHECK(decode_error(set32(set32(good_vector, regs::vector_desc::rows, 1u << 20), regs::vector_desc::cols, 1u << 20)) ==
        ErrorCode::none);
  // Every rejection says what is wrong.
  const DecodedDescriptor d = decode_descriptor(with(good, regs::gemm_desc::opcode, 9).data(), regs::desc_bytes);
  CHECK(d.message == "opcode 9");
  CHECK(std::string(error_name(d.error)) == "DESC_OPCODE");
}

TEST_CASE("descriptor: random and bit-flipped bytes are decoded or rejected, never crash") {
  std::mt19937_64 rng(11);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    DescriptorBytes b = i % 2 ? encode_descriptor(sample_gemm()) : encode_descriptor(sample_vector());
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    if (i % 7 == 0)
      for (auto& byte : b) byte = static_cast<std::uint8_t>(rng());
    const DecodedDescriptor d = decode_descriptor(b.data(), b.size());
    if (d.ok()) {
      ++accepted;
    } else {
      ++rejected;
      CHECK_FALSE(d.message.empty());
    }
  }
  CHECK(accepted > 0);  // flips of addresses and tags stay valid
  CHECK(rejected > 0);
}

TEST_CASE("descriptor: the encoder refuses fields the format cannot hold") {
  GemmDescriptor op = sample_gemm();
  op.m = 1ull << 32;
  CHECK_THROWS_AS(encode_descriptor(op), InputError);
  op.m = 0;
  CHECK_THROWS_AS(encode_descriptor(op), InputError);
  VectorDescriptor v = sample_vector();
  v.cols = 0;
  CHECK_THROWS_AS(encode_descriptor(v), InputError);
}
