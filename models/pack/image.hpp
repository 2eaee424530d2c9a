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
#include "common/op_descriptor.hpp"
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
// The GEMM an op-table entry describes, as a platform or a driver runs it.
GemmDescriptor gemm_descriptor(const eva_image_op_t& op);

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

// tolerance_q24 (docs/MEMORY-LAYOUT.md, "Reference and tolerance"), a bound
// on |output - FP16 reference| for a K-long reduction:
//   ceil(2^24 x (2^-10 R + lsb + (u + a 2^-22) S))
// R = max |reference|; lsb = R / (2^(out_bits-1) - 1) for the integer outputs
// (sa, ant), else 0; S = max over outputs of sum_k |x_ik| |w_kj| (figna: x_ik
// taken as its pre-alignment block's largest |x|; figlut: |w_kj| as column j's
// BCQ terms, sum_p |alpha_jp| + |offset_j|); u the relative rounding of
// each term: 2^-11 for eva's FP16 OC entries, 2^-(9 + figna.guard_bits) for
// figna's truncating alignment, else 0; a the FP32 additions to an output:
// K C / d + d (eva, vq-conflict), 2 K (figlut), K / systolic.rows + 2 (figna),
// 0 for the exact integer accumulations (sa, ant).
std::uint64_t tolerance_q24(const ArchConfig& c, std::uint64_t k, double max_ref, double abs_sum);

// Dense architectures: x (M x K) and W (K x N) row-major floats.
PackedOp pack_dense_op(const ArchConfig& c, const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                       std::uint64_t n, std::uint64_t k);
// VQ architectures (eva, vq-conflict): w's format must be the architecture's
// (vq.*); x FP16, M x K.
PackedOp pack_vq_op(const ArchConfig& c, const VqMatrix& w, const std::vector<half_bits>& x, std::uint64_t m);

// An op's outputs as values: FP16 outputs as they are; sa and ant's integer
// outputs times s_y, the second float32 parameter word (after the 4 type
// bytes for ant). `out` holds output_bytes(c, m, n) bytes, `parameters` the
// op's codebook_addr bytes.
std::vector<double> decode_outputs(const ArchConfig& c, std::uint64_t m, std::uint64_t n,
                                   const std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& parameters);

// The check firmware makes: every |y - reference| <= tolerance_q24 x 2^-24,
// the reference as the image carries it (M x N FP16).
struct OutputCheck {
  bool ok = true;
  double worst = 0.0;        // max |y - reference|
  std::size_t worst_at = 0;  // where
  double tolerance = 0.0;
};
OutputCheck check_outputs(const std::vector<double>& y, const std::vector<std::uint8_t>& reference_fp16,
                          std::uint64_t tolerance_q24);

// Places ops in memory from `base` (the table at `table_addr`, operands from
// base after it, each region aligned to image_region_align) and returns
// the segments, the table first; `ops` gets its addresses.
constexpr std::uint64_t image_region_align = 4096;
std::vector<ImageSegment> layout_image(std::vector<PackedOp>& packed, std::vector<eva_image_op_t>& ops,
                                       std::uint64_t base, std::uint64_t table_addr);

}  // namespace eva
