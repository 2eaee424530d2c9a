/* Firmware's view of the generated eva_regs.h: plain C99, the descriptor
 * structs at the documented offsets (a negative array size fails the build). */
#include <stddef.h>

#include "eva_regs.h"

#define EVA_CHECK(name, cond) typedef char name[(cond) ? 1 : -1]

EVA_CHECK(gemm_act, offsetof(eva_desc_gemm_t, act_addr) == EVA_DESC_GEMM_ACT_ADDR_OFFSET);
EVA_CHECK(gemm_m, offsetof(eva_desc_gemm_t, m) == EVA_DESC_GEMM_M_OFFSET);
EVA_CHECK(gemm_operand, offsetof(eva_desc_gemm_t, operand) == EVA_DESC_GEMM_OPERAND_OFFSET);
EVA_CHECK(gemm_reserved, offsetof(eva_desc_gemm_t, reserved) == EVA_DESC_GEMM_RESERVED_OFFSET);
EVA_CHECK(vector_op, offsetof(eva_desc_vector_t, op) == EVA_DESC_VECTOR_OP_OFFSET);
EVA_CHECK(vector_reserved, offsetof(eva_desc_vector_t, reserved) == EVA_DESC_VECTOR_RESERVED_OFFSET);
EVA_CHECK(status_error, EVA_STATUS_ERROR_MASK == (1u << EVA_STATUS_ERROR_SHIFT));

/* What firmware writes: a GEMM descriptor and a doorbell. */
void eva_example_queue(volatile uint32_t* regs, eva_desc_gemm_t* ring, uint32_t tail);
void eva_example_queue(volatile uint32_t* regs, eva_desc_gemm_t* ring, uint32_t tail) {
  eva_desc_gemm_t* d = &ring[tail];
  d->magic = EVA_DESC_MAGIC;
  d->version = EVA_DESC_VERSION;
  d->opcode = EVA_OP_GEMM;
  d->flags = 0;
  d->next = 0;
  d->m = 1;
  d->n = 4096;
  d->k = 4096;
  d->count = 1;
  d->operand = EVA_OPERAND_WEIGHTS;
  regs[EVA_REG_RING_TAIL / 4] = tail + 1;
  regs[EVA_REG_DOORBELL / 4] = 1;
}
