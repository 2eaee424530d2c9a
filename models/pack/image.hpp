#pragma once
// The memory image (docs/MEMORY-LAYOUT.md, "Memory image"): segments for a
// platform's memory and the op table firmware reads (include/eva_image.h),
// and the packing of one operation: operands in its architecture's layout,
// the float64 reference rounded to FP16, its checksum and tolerance.
// Plain C++; every multi-byte field is written little-endian explicitly.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/arch_config.hpp"
#include "common/vq_math.hpp"
#include "eva_image.h"
#include "pack/encoded_gemm.hpp"

namespace eva {

struct ImageSegment {
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes;
};

std::uint64_t fnv1a64(const std::uint8_t* data, std::size_t size);

// eva_image_table_t then the ops, little-endian (EVA_IMAGE_TABLE_BYTES +
// op_count x EVA_IMAGE_OP_BYTES bytes).
std::vector<std::uint8_t> encode_op_table(const std::vector<eva_image_op_t>& ops);
// Throws InputError naming the byte offset of what is wrong.
std::vector<eva_image_op_t> decode_op_table(const std::vector<std::uint8_t>& bytes);

// The file: magic, version, segment count, then each segment.
std::vector<std::uint8_t> encode_image(const std::vector<ImageSegment>& segments);
// Throws InputError naming the byte offset of what is wrong.
std::vector<ImageSegment> decode_image(const std::vector<std::uint8_t>& file);

// EVA_ARCH_* of eva_regs.h for an architecture kind.
std::uint32_t image_arch_code(ArchKind kind);
// Bytes of an M x N output in the architecture's output format.
std::uint64_t output_bytes(const ArchConfig& c, std::uint64_t m, std::uint64_t n);

// One operation packed for an image: operand bytes (addresses are the
// image's to choose), the reference rounded to FP16 and its tolerance.
struct PackedOp {
  std::uint64_t m = 0, n = 0, k = 0;
  std::uint32_t arch = 0;
  std::vector<std::uint8_t> activations, weights, codebooks;  // codebooks: codebooks, scales or parameters
  std::uint64_t out_bytes = 0;
  std::vector<double> reference;             // float64, M x N
  std::vector<std::uint8_t> reference_fp16;  // M x N FP16, row-major
  std::uint64_t ref_checksum = 0;            // fnv1a64 of reference_fp16
  std::uint64_t tolerance_q24 = 0;
  std::string format;
};

// tolerance_q24 (docs/MEMORY-LAYOUT.md, "Reference and tolerance"):
//   ceil(2^24 x (2^-10 R + lsb + c S))
// R = max |reference|; lsb = R / (2^(out_bits-1) - 1) for integer outputs
// (sa, ant), 0 for FP16 outputs; S = max over outputs of sum_k |x_ik| |w_kj|;
// c = 2^-9 for FP16/FP32 datapaths (eva, vq-conflict, figlut), 2^-8 for figna
// (pre-aligned activations), 0 for the exact integer ones (sa, ant).
std::uint64_t tolerance_q24(ArchKind kind, int out_bits, double max_ref, double abs_sum);

// Dense architectures: x (M x K) and W (K x N) row-major floats.
PackedOp pack_dense_op(const ArchConfig& c, const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                       std::uint64_t n, std::uint64_t k);
// VQ architectures (eva, vq-conflict): w's format must be the architecture's
// (vq.*); x FP16, M x K.
PackedOp pack_vq_op(const ArchConfig& c, const VqMatrix& w, const std::vector<half_bits>& x, std::uint64_t m);

// Places ops in memory from `base` (the table at `table_addr`, operands from
// base after it, each region aligned to image_region_align) and returns
// the segments, the table first; `ops` gets its addresses.
constexpr std::uint64_t image_region_align = 4096;
std::vector<ImageSegment> layout_image(std::vector<PackedOp>& packed, std::vector<eva_image_op_t>& ops,
                                       std::uint64_t base, std::uint64_t table_addr);

}  // namespace eva
