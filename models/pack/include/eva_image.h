/* eva_image.h: the EVA memory image and its op table (docs/MEMORY-LAYOUT.md,
 * "Memory image"). C99 + stdint, for bare-metal firmware and for the host.
 *
 * Image file (little-endian), written by `eva-sim pack`:
 *   char     magic[8]       "EVAIMG01"
 *   uint32_t version        EVA_IMAGE_FILE_VERSION (1)
 *   uint32_t segment_count
 *   segment_count times:
 *     uint64_t address      where the bytes go in system memory
 *     uint64_t length       bytes that follow
 *     uint8_t  data[length], then zero bytes up to a multiple of 8
 * The first segment is the op table (eva_image_table_t followed by op_count
 * eva_image_op_t), a segment of its own; the other segments hold the operands.
 * Every address is an absolute system address (the pack spec's base address
 * plus an offset). A loader copies each segment's `length` bytes to `address`.
 */
#ifndef EVA_IMAGE_H
#define EVA_IMAGE_H

#include <stddef.h> /* offsetof, for the checks below (freestanding) */
#include <stdint.h>

#define EVA_IMAGE_FILE_MAGIC "EVAIMG01" /* 8 bytes, no terminator in the file */
#define EVA_IMAGE_FILE_VERSION 1u
#define EVA_IMAGE_FILE_HEADER_BYTES 16u  /* magic, version, segment_count */
#define EVA_IMAGE_SEGMENT_HEADER_BYTES 16u /* address, length */
#define EVA_IMAGE_SEGMENT_ALIGN 8u         /* data zero-padded to this */

#define EVA_IMAGE_TABLE_MAGIC 0x54415645u /* the bytes 'E' 'V' 'A' 'T' as a little-endian word */
#define EVA_IMAGE_TABLE_VERSION 1u

#define EVA_IMAGE_OP_FUNCTIONAL 0x1u /* flags bit 0: the op carries data (operands, reference) */

typedef struct {
  uint32_t magic;   /* EVA_IMAGE_TABLE_MAGIC */
  uint32_t version; /* EVA_IMAGE_TABLE_VERSION */
  uint32_t op_count;
  uint32_t reserved; /* 0 */
} eva_image_table_t; /* followed by op_count eva_image_op_t */

typedef struct {
  uint32_t arch;  /* EVA_ARCH_* of eva_regs.h: which accelerator runs it */
  uint32_t flags; /* bit 0: functional (carries data) */
  uint64_t m, n, k;
  uint64_t act_addr, weight_addr, codebook_addr, out_addr; /* operands in that architecture's layout */
  uint64_t ref_addr;      /* the float64 reference outputs rounded to FP16, m x n, row-major */
  uint64_t ref_checksum;  /* FNV-1a 64 of the m*n*2 reference bytes */
  uint64_t tolerance_q24; /* allowed |output - reference| in units of 2^-24 */
  uint64_t reserved[2];   /* 0 */
} eva_image_op_t;

/* FNV-1a 64 (ref_checksum): offset basis and prime. */
#define EVA_IMAGE_FNV_OFFSET 0xcbf29ce484222325ull
#define EVA_IMAGE_FNV_PRIME 0x100000001b3ull

#define EVA_IMAGE_TABLE_BYTES 16u
#define EVA_IMAGE_OP_BYTES 104u

/* Layout checks: C11 and C++ have static assertions; strict C99 gets a
 * negative array size when a check fails. */
#if defined(__cplusplus)
#define EVA_IMAGE_STATIC_ASSERT(c, m) static_assert(c, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define EVA_IMAGE_STATIC_ASSERT(c, m) _Static_assert(c, m)
#else
#define EVA_IMAGE_CAT2(a, b) a##b
#define EVA_IMAGE_CAT(a, b) EVA_IMAGE_CAT2(a, b)
#define EVA_IMAGE_STATIC_ASSERT(c, m) typedef char EVA_IMAGE_CAT(eva_image_check_, __LINE__)[(c) ? 1 : -1]
#endif
#define EVA_IMAGE_OFFSETOF(t, f) offsetof(t, f)

EVA_IMAGE_STATIC_ASSERT(sizeof(eva_image_table_t) == EVA_IMAGE_TABLE_BYTES, "eva_image_table_t is 16 bytes");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_table_t, op_count) == 8, "op_count at 8");
EVA_IMAGE_STATIC_ASSERT(sizeof(eva_image_op_t) == EVA_IMAGE_OP_BYTES, "eva_image_op_t is 104 bytes");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, arch) == 0, "arch at 0");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, flags) == 4, "flags at 4");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, m) == 8, "m at 8");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, n) == 16, "n at 16");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, k) == 24, "k at 24");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, act_addr) == 32, "act_addr at 32");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, weight_addr) == 40, "weight_addr at 40");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, codebook_addr) == 48, "codebook_addr at 48");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, out_addr) == 56, "out_addr at 56");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, ref_addr) == 64, "ref_addr at 64");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, ref_checksum) == 72, "ref_checksum at 72");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, tolerance_q24) == 80, "tolerance_q24 at 80");
EVA_IMAGE_STATIC_ASSERT(EVA_IMAGE_OFFSETOF(eva_image_op_t, reserved) == 88, "reserved at 88");

#endif /* EVA_IMAGE_H */
