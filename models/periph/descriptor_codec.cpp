#include "periph/descriptor_codec.hpp"

#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

// The header is the same in every descriptor; the vector codes follow VectorOp.
static_assert(regs::vector_desc::magic == regs::gemm_desc::magic &&
              regs::vector_desc::version == regs::gemm_desc::version &&
              regs::vector_desc::opcode == regs::gemm_desc::opcode &&
              regs::vector_desc::flags == regs::gemm_desc::flags && regs::vector_desc::next == regs::gemm_desc::next);
#define EVA_SAME_VOP(a, b) static_cast<std::uint32_t>(VectorOp::a) == static_cast<std::uint32_t>(regs::VectorOpCode::b)
static_assert(EVA_SAME_VOP(add, add) && EVA_SAME_VOP(mul, mul) && EVA_SAME_VOP(silu_mul, silu_mul) &&
              EVA_SAME_VOP(gelu, gelu) && EVA_SAME_VOP(rmsnorm, rmsnorm) && EVA_SAME_VOP(layernorm, layernorm) &&
              EVA_SAME_VOP(softmax, softmax) && EVA_SAME_VOP(rope, rope));
#undef EVA_SAME_VOP

namespace {

template <class T>
T get(const std::uint8_t* p, std::uint32_t offset) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>(v | static_cast<T>(p[offset + i]) << (8 * i));
  return v;
}

template <class T>
void put(DescriptorBytes& b, std::uint32_t offset, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) b[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

DescriptorBytes header(regs::DescOpcode opcode, std::uint16_t flags, std::uint64_t next) {
  DescriptorBytes b{};
  put(b, regs::gemm_desc::magic, regs::desc_magic);
  put(b, regs::gemm_desc::version, static_cast<std::uint8_t>(regs::desc_version));
  put(b, regs::gemm_desc::opcode, static_cast<std::uint8_t>(opcode));
  put(b, regs::gemm_desc::flags, flags);
  put(b, regs::gemm_desc::next, next);
  return b;
}

std::uint32_t narrow(std::uint64_t v, const char* field) {
  if (v == 0 || v > std::numeric_limits<std::uint32_t>::max())
    throw InputError(fmt::format("descriptor: {} = {} does not fit the format (1 to 2^32 - 1)", field, v));
  return static_cast<std::uint32_t>(v);
}

DecodedDescriptor rejected(regs::ErrorCode code, std::string message) {
  DecodedDescriptor d;
  d.error = code;
  d.message = std::move(message);
  return d;
}

// Whether an a x b operand's bytes can be counted in 64 bits at up to 8 bytes
// an element (the widest element any architecture uses is 4): a shape past
// that is no shape a device could hold, and its byte counts would wrap.
bool countable(std::uint64_t a, std::uint64_t b) { return a <= std::numeric_limits<std::uint64_t>::max() / 8 / b; }

// The bytes from `from` to the end of the descriptor must be zero.
bool reserved_zero(const std::uint8_t* p, std::uint32_t from) {
  for (std::uint32_t i = from; i < regs::desc_bytes; ++i)
    if (p[i]) return false;
  return true;
}

}  // namespace

const char* error_name(regs::ErrorCode code) {
  switch (code) {
    case regs::ErrorCode::none:
      return "NONE";
    case regs::ErrorCode::desc_short:
      return "DESC_SHORT";
    case regs::ErrorCode::desc_magic:
      return "DESC_MAGIC";
    case regs::ErrorCode::desc_version:
      return "DESC_VERSION";
    case regs::ErrorCode::desc_opcode:
      return "DESC_OPCODE";
    case regs::ErrorCode::desc_reserved:
      return "DESC_RESERVED";
    case regs::ErrorCode::desc_operand:
      return "DESC_OPERAND";
    case regs::ErrorCode::desc_vector_op:
      return "DESC_VECTOR_OP";
    case regs::ErrorCode::desc_shape:
      return "DESC_SHAPE";
    case regs::ErrorCode::unsupported:
      return "UNSUPPORTED";
    case regs::ErrorCode::fetch_bus_error:
      return "FETCH_BUS_ERROR";
    case regs::ErrorCode::data_bus_error:
      return "DATA_BUS_ERROR";
    case regs::ErrorCode::ring_config:
      return "RING_CONFIG";
    case regs::ErrorCode::chain_limit:
      return "CHAIN_LIMIT";
    case regs::ErrorCode::bus_timeout:
      return "BUS_TIMEOUT";
  }
  return "UNKNOWN";
}

DecodedDescriptor decode_descriptor(const std::uint8_t* p, std::size_t size) {
  using regs::ErrorCode;
  if (p == nullptr || size < regs::desc_bytes)
    return rejected(ErrorCode::desc_short, fmt::format("{} bytes, a descriptor takes {}", size, regs::desc_bytes));
  const auto magic = get<std::uint32_t>(p, regs::gemm_desc::magic);
  if (magic != regs::desc_magic)
    return rejected(ErrorCode::desc_magic, fmt::format("magic 0x{:08x}, expected 0x{:08x}", magic, regs::desc_magic));
  const auto version = get<std::uint8_t>(p, regs::gemm_desc::version);
  if (version != regs::desc_version)
    return rejected(ErrorCode::desc_version, fmt::format("version {}, expected {}", version, regs::desc_version));
  const auto opcode = get<std::uint8_t>(p, regs::gemm_desc::opcode);
  const auto flags = get<std::uint16_t>(p, regs::gemm_desc::flags);
  DecodedDescriptor d;
  d.next = get<std::uint64_t>(p, regs::gemm_desc::next);
  if (opcode == static_cast<std::uint8_t>(regs::DescOpcode::gemm)) {
    if (flags & ~regs::desc_flag_functional)
      return rejected(ErrorCode::desc_reserved, fmt::format("flags 0x{:04x}: reserved bits set", flags));
    if (!reserved_zero(p, regs::gemm_desc::reserved))
      return rejected(ErrorCode::desc_reserved, "GEMM: reserved bytes not zero");
    namespace g = regs::gemm_desc;
    GemmDescriptor op;
    d.tag = get<std::uint32_t>(p, g::tag);
    op.name = fmt::format("gemm {}", d.tag);
    op.m = get<std::uint32_t>(p, g::m);
    op.n = get<std::uint32_t>(p, g::n);
    op.k = get<std::uint32_t>(p, g::k);
    op.count = get<std::uint32_t>(p, g::count);
    if (op.m == 0 || op.n == 0 || op.k == 0 || op.count == 0)
      return rejected(ErrorCode::desc_shape,
                      fmt::format("GEMM m={} n={} k={} count={}: each must be > 0", op.m, op.n, op.k, op.count));
    if (!countable(op.m, op.k) || !countable(op.k, op.n) || !countable(op.m, op.n))
      return rejected(ErrorCode::desc_shape,
                      fmt::format("GEMM m={} n={} k={}: an operand's bytes do not fit 64 bits", op.m, op.n, op.k));
    const auto operand = get<std::uint32_t>(p, g::operand);
    if (operand == static_cast<std::uint32_t>(regs::OperandCode::weights))
      op.operand = GemmOperand::weights;
    else if (operand == static_cast<std::uint32_t>(regs::OperandCode::kv_cache))
      op.operand = GemmOperand::kv_cache;
    else if (operand == static_cast<std::uint32_t>(regs::OperandCode::fp16_weights))
      op.operand = GemmOperand::fp16_weights;
    else
      return rejected(ErrorCode::desc_operand, fmt::format("operand kind {}", operand));
    op.act_addr = get<std::uint64_t>(p, g::act_addr);
    op.weight_addr = get<std::uint64_t>(p, g::weight_addr);
    op.codebook_addr = get<std::uint64_t>(p, g::codebook_addr);
    op.out_addr = get<std::uint64_t>(p, g::out_addr);
    op.act_stride = get<std::uint64_t>(p, g::act_stride);
    op.weight_stride = get<std::uint64_t>(p, g::weight_stride);
    op.out_stride = get<std::uint64_t>(p, g::out_stride);
    op.functional = (flags & regs::desc_flag_functional) != 0;
    d.op = op;
    return d;
  }
  if (opcode == static_cast<std::uint8_t>(regs::DescOpcode::vector)) {
    if (flags) return rejected(ErrorCode::desc_reserved, fmt::format("flags 0x{:04x}: reserved bits set", flags));
    if (!reserved_zero(p, regs::vector_desc::reserved))
      return rejected(ErrorCode::desc_reserved, "vector: reserved bytes not zero");
    namespace v = regs::vector_desc;
    VectorDescriptor op;
    const auto code = get<std::uint32_t>(p, v::op);
    if (code > static_cast<std::uint32_t>(regs::VectorOpCode::rope))
      return rejected(ErrorCode::desc_vector_op, fmt::format("vector operation {}", code));
    op.op = static_cast<VectorOp>(code);  // EVA_VOP_* follow VectorOp's order (regmap.py)
    d.tag = get<std::uint32_t>(p, v::tag);
    op.name = fmt::format("vector {}", d.tag);
    op.rows = get<std::uint32_t>(p, v::rows);
    op.cols = get<std::uint32_t>(p, v::cols);
    if (op.rows == 0 || op.cols == 0)
      return rejected(ErrorCode::desc_shape, fmt::format("vector rows={} cols={}: each must be > 0", op.rows, op.cols));
    op.in_addr = get<std::uint64_t>(p, v::in_addr);
    op.in2_addr = get<std::uint64_t>(p, v::in2_addr);
    op.out_addr = get<std::uint64_t>(p, v::out_addr);
    if (!countable(op.rows, op.cols))
      return rejected(ErrorCode::desc_shape,
                      fmt::format("vector rows={} cols={}: the operands' bytes do not fit 64 bits", op.rows, op.cols));
    d.op = op;
    return d;
  }
  return rejected(ErrorCode::desc_opcode, fmt::format("opcode {}", opcode));
}

DescriptorBytes encode_descriptor(const GemmDescriptor& op, std::uint64_t next, std::uint32_t tag) {
  namespace g = regs::gemm_desc;
  DescriptorBytes b =
      header(regs::DescOpcode::gemm, static_cast<std::uint16_t>(op.functional ? regs::desc_flag_functional : 0), next);
  put(b, g::act_addr, op.act_addr);
  put(b, g::weight_addr, op.weight_addr);
  put(b, g::codebook_addr, op.codebook_addr);
  put(b, g::out_addr, op.out_addr);
  put(b, g::act_stride, op.act_stride);
  put(b, g::weight_stride, op.weight_stride);
  put(b, g::out_stride, op.out_stride);
  put(b, g::m, narrow(op.m, "m"));
  put(b, g::n, narrow(op.n, "n"));
  put(b, g::k, narrow(op.k, "k"));
  put(b, g::count, narrow(op.count, "count"));
  const regs::OperandCode operand = op.operand == GemmOperand::kv_cache       ? regs::OperandCode::kv_cache
                                    : op.operand == GemmOperand::fp16_weights ? regs::OperandCode::fp16_weights
                                                                              : regs::OperandCode::weights;
  put(b, g::operand, static_cast<std::uint32_t>(operand));
  put(b, g::tag, tag);
  return b;
}

DescriptorBytes encode_descriptor(const VectorDescriptor& op, std::uint64_t next, std::uint32_t tag) {
  namespace v = regs::vector_desc;
  DescriptorBytes b = header(regs::DescOpcode::vector, 0, next);
  put(b, v::in_addr, op.in_addr);
  put(b, v::in2_addr, op.in2_addr);
  put(b, v::out_addr, op.out_addr);
  put(b, v::rows, narrow(op.rows, "rows"));
  put(b, v::cols, narrow(op.cols, "cols"));
  put(b, v::op, static_cast<std::uint32_t>(op.op));
  put(b, v::tag, tag);
  return b;
}

}  // namespace eva
