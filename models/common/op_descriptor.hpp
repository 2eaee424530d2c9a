#pragma once
// Operation descriptors: what the platform hands an accelerator's control.
// Plain data with addresses in the accelerator's memory space; the same
// descriptors will sit in system memory once the accelerator has a register
// interface (BRIEF section 8).
#include <cstdint>
#include <string>

namespace eva {

// What the second operand of a GEMM is.
enum class GemmOperand {
  weights,       // a layer's weights, in the accelerator's weight format
  kv_cache,      // attention: the K or V cache, formats.kv_bits per element, dense
                 // (FIGLUT: bit-planes as its weights); activations and outputs FP16
  fp16_weights,  // dense FP16 weights (an FP16 LM head), FP16 activations and
                 // outputs, at the array's FP16 rate (FIGLUT: 16 bit-planes)
};

// y (M x N) = x (M x K) * W (K x N), W in the accelerator's weight format.
// `count` independent GEMMs of the same shape (attention heads, sequences)
// follow each other, operand i at its address plus i times its stride.
struct GemmDescriptor {
  std::string name = "gemm";
  std::uint64_t m = 1, n = 1, k = 1;
  GemmOperand operand = GemmOperand::weights;
  std::uint64_t act_addr = 0;       // x, row-major, formats.act_bits per element
  std::uint64_t weight_addr = 0;    // W (or its VQ indices) in the accelerator's layout
  std::uint64_t codebook_addr = 0;  // VQ codebooks or scales, for accelerators that use them
  std::uint64_t out_addr = 0;       // y, row-major, formats.out_bits per element
  std::uint64_t count = 1;
  std::uint64_t act_stride = 0, weight_stride = 0, out_stride = 0;  // bytes
  bool functional = false;                                          // move and compute data (else time only)
};

// Non-FC operations of a transformer layer, for the vector/special-function
// unit: each reads `rows` x `cols` FP16 elements (two operands for the binary
// ones) and writes as many.
enum class VectorOp { add, mul, silu_mul, gelu, rmsnorm, layernorm, softmax, rope };

inline bool vector_op_binary(VectorOp op) {
  return op == VectorOp::add || op == VectorOp::mul || op == VectorOp::silu_mul;
}

struct VectorDescriptor {
  std::string name = "vector";
  VectorOp op = VectorOp::add;
  std::uint64_t rows = 1, cols = 1;
  std::uint64_t in_addr = 0, in2_addr = 0, out_addr = 0;
};

}  // namespace eva
