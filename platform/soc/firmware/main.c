/* The example SoC's firmware (docs/SOC.md): identifies EVA and FIGLUT over
 * their registers, optionally meets one injected fault and recovers from it
 * (eva-soc --inject-fault), queues the image's FC operations on their descriptor
 * rings, sleeps on the interrupt controller until both rings are done,
 * checks every output against the reference the image carries, and prints
 * cycles and the result. Returns 0 when everything matched. */
#include <stdint.h>

#include "eva_image.h"
#include "eva_regs.h"
#include "fw.h"
#include "soc_map.h"

#define RING_ENTRIES 64u
#define MAX_OPS 256u

typedef struct {
  const char* name;
  uint64_t base;  /* register window */
  uint32_t arch;  /* EVA_ARCH_* expected in ARCH */
  uint32_t irq;   /* its line on the interrupt controller */
  uint64_t ring;  /* its descriptor ring in DRAM */
  uint32_t tail, queued, out_bits;
} accel_t;

static accel_t accels[2] = {
    {"EVA", SOC_EVA_BASE, EVA_ARCH_EVA, SOC_IRQ_EVA, 0, 0, 0, 0},
    {"FIGLUT", SOC_FIGLUT_BASE, EVA_ARCH_FIGLUT, SOC_IRQ_FIGLUT, 0, 0, 0, 0},
};

static uint64_t sysctl_pair(uint32_t lo) { return rd_pair(SOC_SYSCTL_BASE + lo); }
static uint32_t reg(const accel_t* a, uint32_t off) { return rd32(a->base + off); }
static void set_reg(const accel_t* a, uint32_t off, uint32_t v) { wr32(a->base + off, v); }
static uint64_t reg64(const accel_t* a, uint32_t lo) { return rd_pair(a->base + lo); }

static int identify(accel_t* a) {
  const uint32_t id = reg(a, EVA_REG_ID), arch = reg(a, EVA_REG_ARCH), version = reg(a, EVA_REG_VERSION);
  const uint32_t fmt = reg(a, EVA_REG_CAPS_FORMAT), array = reg(a, EVA_REG_CAPS_ARRAY);
  if (id != EVA_ID_VALUE || arch != a->arch) {
    printf("%s at 0x%x: ID 0x%x ARCH %u, expected 0x%x and %u\n", a->name, (unsigned)a->base, id, arch, EVA_ID_VALUE,
           a->arch);
    return -1;
  }
  a->out_bits = (fmt & EVA_CAPS_FORMAT_OUT_BITS_MASK) >> EVA_CAPS_FORMAT_OUT_BITS_SHIFT;
  printf("%s at 0x%x: regmap v%u, descriptors v%u, %ux%u array, A%u W%u O%u", a->name, (unsigned)a->base,
         (version & EVA_VERSION_REGMAP_MASK) >> EVA_VERSION_REGMAP_SHIFT,
         (version & EVA_VERSION_DESC_MASK) >> EVA_VERSION_DESC_SHIFT,
         (array & EVA_CAPS_ARRAY_ROWS_MASK) >> EVA_CAPS_ARRAY_ROWS_SHIFT,
         (array & EVA_CAPS_ARRAY_COLS_MASK) >> EVA_CAPS_ARRAY_COLS_SHIFT,
         (fmt & EVA_CAPS_FORMAT_ACT_BITS_MASK) >> EVA_CAPS_FORMAT_ACT_BITS_SHIFT,
         (fmt & EVA_CAPS_FORMAT_WEIGHT_BITS_MASK) >> EVA_CAPS_FORMAT_WEIGHT_BITS_SHIFT, a->out_bits);
  const uint32_t vq = reg(a, EVA_REG_CAPS_VQ);
  if (vq)
    printf(", VQ %ux%u d=%u", (vq & EVA_CAPS_VQ_CODEBOOKS_MASK) >> EVA_CAPS_VQ_CODEBOOKS_SHIFT,
           (vq & EVA_CAPS_VQ_INDEX_BITS_MASK) >> EVA_CAPS_VQ_INDEX_BITS_SHIFT,
           (vq & EVA_CAPS_VQ_VECTOR_DIM_MASK) >> EVA_CAPS_VQ_VECTOR_DIM_SHIFT);
  printf("\n");
  return 0;
}

static void start_ring(accel_t* a, uint64_t ring) {
  a->ring = ring;
  a->tail = 0;
  a->queued = 0;
  set_reg(a, EVA_REG_RING_BASE_LO, (uint32_t)ring);
  set_reg(a, EVA_REG_RING_BASE_HI, (uint32_t)(ring >> 32));
  set_reg(a, EVA_REG_RING_SIZE, RING_ENTRIES);
  set_reg(a, EVA_REG_CTRL, EVA_CTRL_ENABLE_MASK | EVA_CTRL_IRQ_ENABLE_MASK);
}

/* Writes a GEMM descriptor into the accelerator's next ring entry. */
static int queue_gemm(accel_t* a, const eva_desc_gemm_t* d) {
  if (a->queued + 1 >= RING_ENTRIES) return -1;
  const uint64_t entry = a->ring + (uint64_t)a->tail * EVA_DESC_BYTES;
  union {
    eva_desc_gemm_t d;
    uint64_t w[EVA_DESC_BYTES / 8];
  } u;
  u.d = *d;
  for (unsigned i = 0; i < EVA_DESC_BYTES / 8; ++i) wr64(entry + 8 * i, u.w[i]);
  a->tail = (a->tail + 1) % RING_ENTRIES;
  ++a->queued;
  return 0;
}

static void gemm_descriptor(eva_desc_gemm_t* d, uint32_t functional, uint64_t m, uint64_t n, uint64_t k,
                            uint64_t act, uint64_t weights, uint64_t codebooks, uint64_t out, uint32_t tag) {
  const eva_desc_gemm_t zero = {0};
  *d = zero;
  d->magic = EVA_DESC_MAGIC;
  d->version = EVA_DESC_VERSION;
  d->opcode = EVA_OP_GEMM;
  d->flags = functional ? EVA_DESC_FLAG_FUNCTIONAL : 0;
  d->act_addr = act;
  d->weight_addr = weights;
  d->codebook_addr = codebooks;
  d->out_addr = out;
  d->m = (uint32_t)m;
  d->n = (uint32_t)n;
  d->k = (uint32_t)k;
  d->count = 1;
  d->operand = EVA_OPERAND_WEIGHTS;
  d->tag = tag;
}

/* Op i of the table at `table`, read from DRAM a word at a time. */
static eva_image_op_t load_op(uint64_t table, uint32_t i) {
  union {
    eva_image_op_t op;
    uint64_t w[EVA_IMAGE_OP_BYTES / 8];
  } u;
  const uint64_t at = table + EVA_IMAGE_TABLE_BYTES + (uint64_t)i * EVA_IMAGE_OP_BYTES;
  for (unsigned j = 0; j < EVA_IMAGE_OP_BYTES / 8; ++j) u.w[j] = rd64(at + 8 * j);
  return u.op;
}

/* Rings both doorbells, then sleeps on the interrupt controller until every
 * accelerator with queued work has drained its ring. Returns the errors seen. */
static int run_rings(void) {
  uint32_t waiting = 0;
  int errors = 0;
  for (unsigned i = 0; i < 2; ++i) {
    if (!accels[i].queued) continue;
    set_reg(&accels[i], EVA_REG_RING_TAIL, accels[i].tail);
    set_reg(&accels[i], EVA_REG_DOORBELL, 1);
    waiting |= 1u << accels[i].irq;
  }
  wr32(SOC_INTC_BASE + SOC_INTC_ENABLE, waiting);
  while (waiting) {
    const uint32_t lines = rd32(SOC_INTC_BASE + SOC_INTC_WAIT);
    for (unsigned i = 0; i < 2; ++i) {
      accel_t* a = &accels[i];
      if (!(lines & (1u << a->irq))) continue;
      const uint32_t status = reg(a, EVA_REG_STATUS);
      if (status & EVA_STATUS_ERROR_MASK) {
        printf("%s: error %u at 0x%lx\n", a->name, reg(a, EVA_REG_ERROR_CODE), reg64(a, EVA_REG_ERROR_ADDR_LO));
        ++errors;
      }
      set_reg(a, EVA_REG_STATUS, status & (EVA_STATUS_DONE_MASK | EVA_STATUS_ERROR_MASK));
      if ((status & EVA_STATUS_DONE_MASK) && reg(a, EVA_REG_RING_HEAD) == a->tail) {
        waiting &= ~(1u << a->irq);
        wr32(SOC_INTC_BASE + SOC_INTC_ENABLE, waiting);
      }
    }
  }
  return errors;
}

/* eva-soc --inject-fault: queues on EVA a timing-only GEMM whose activations
 * lie in the window that faults, and expects the error it reports: STATUS.ERROR
 * with DATA_BUS_ERROR at an address in the window, the descriptor counted as
 * failed, not done. Clears the error; the work that follows shows recovery.
 * Returns 0 when the fault was reported as documented. */
static int inject_fault(uint64_t window, uint32_t bytes, uint64_t scratch) {
  accel_t* a = &accels[0];
  eva_desc_gemm_t d;
  const uint64_t data = scratch + 0x10000;
  printf("fault: EVA's activations at 0x%lx, in the window that answers with an error\n", window);
  gemm_descriptor(&d, 0, 8, 1024, 1024, window, data + 0x20000, data + 0x60000, data + 0x70000, 99);
  queue_gemm(a, &d);
  set_reg(a, EVA_REG_RING_TAIL, a->tail);
  set_reg(a, EVA_REG_DOORBELL, 1);
  wr32(SOC_INTC_BASE + SOC_INTC_ENABLE, 1u << a->irq);
  while (!(rd32(SOC_INTC_BASE + SOC_INTC_WAIT) & (1u << a->irq))) {
  }
  wr32(SOC_INTC_BASE + SOC_INTC_ENABLE, 0);
  const uint32_t status = reg(a, EVA_REG_STATUS), code = reg(a, EVA_REG_ERROR_CODE);
  const uint64_t at = reg64(a, EVA_REG_ERROR_ADDR_LO);
  const uint64_t done = reg64(a, EVA_REG_DESC_DONE_LO), failed = reg64(a, EVA_REG_DESC_FAILED_LO);
  set_reg(a, EVA_REG_STATUS, status & (EVA_STATUS_DONE_MASK | EVA_STATUS_ERROR_MASK));
  a->queued = 0;
  const int ok = (status & EVA_STATUS_ERROR_MASK) && code == EVA_ERR_DATA_BUS_ERROR && at >= window &&
                 at < window + bytes && done == 0 && failed == 1 && !(reg(a, EVA_REG_STATUS) & EVA_STATUS_ERROR_MASK);
  printf("fault: EVA reported error %u at 0x%lx (%lu done, %lu failed), cleared: %s\n", code, at, done, failed,
         ok ? "as expected" : "NOT AS EXPECTED");
  return ok ? 0 : 1;
}

/* FP16 bits to fixed point with 24 fraction bits (exact for every finite
 * value); returns -1 for Inf and NaN. */
static int fp16_q24(uint16_t h, int64_t* q) {
  const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 31) return -1;
  const int64_t mag = e == 0 ? (int64_t)m : (int64_t)(1024 + m) << (e - 1);
  *q = (h & 0x8000) ? -mag : mag;
  return 0;
}

/* Checks one functional op's outputs; 0 when they match. */
static int check_op(unsigned i, const eva_image_op_t* op, const accel_t* a) {
  const uint64_t elems = op->m * op->n;
  uint64_t h = EVA_IMAGE_FNV_OFFSET;
  uint64_t bad = 0, worst = 0, worst_at = 0;
  for (uint64_t e = 0; e < elems; e += 4) {
    /* Four elements per 64-bit load where aligned, else one at a time. */
    uint16_t ref[4], out[4];
    const unsigned count = elems - e < 4 ? (unsigned)(elems - e) : 4;
    const uint64_t ra = op->ref_addr + 2 * e, oa = op->out_addr + 2 * e;
    if (count == 4 && ra % 8 == 0 && oa % 8 == 0) {
      const uint64_t r = rd64(ra), o = rd64(oa);
      for (unsigned j = 0; j < 4; ++j) {
        ref[j] = (uint16_t)(r >> (16 * j));
        out[j] = (uint16_t)(o >> (16 * j));
      }
    } else {
      for (unsigned j = 0; j < count; ++j) {
        ref[j] = rd16(ra + 2 * j);
        out[j] = rd16(oa + 2 * j);
      }
    }
    for (unsigned j = 0; j < count; ++j) {
      h = (h ^ (ref[j] & 0xff)) * EVA_IMAGE_FNV_PRIME;
      h = (h ^ (ref[j] >> 8)) * EVA_IMAGE_FNV_PRIME;
      int64_t qr = 0, qo = 0;
      if (fp16_q24(ref[j], &qr) || fp16_q24(out[j], &qo)) {
        ++bad;
        continue;
      }
      const uint64_t diff = (uint64_t)(qo > qr ? qo - qr : qr - qo);
      if (diff > worst) {
        worst = diff;
        worst_at = e + j;
      }
      if (diff > op->tolerance_q24) ++bad;
    }
  }
  if (h != op->ref_checksum) {
    printf("op %u (%s %lux%lux%lu): the reference's checksum is 0x%lx, the table says 0x%lx\n", i, a->name, op->m,
           op->n, op->k, h, op->ref_checksum);
    return 1;
  }
  printf("op %u (%s %lux%lux%lu): %s: %lu of %lu outside the tolerance, max |out - ref| = %lu/2^24 at %lu "
         "(tolerance %lu)\n",
         i, a->name, op->m, op->n, op->k, bad ? "MISMATCH" : "outputs match", bad, elems, worst, worst_at,
         op->tolerance_q24);
  return bad != 0;
}

int main(void) {
  printf("EVA SoC firmware: RV64IMAC at %u MHz\n", rd32(SOC_SYSCTL_BASE + SOC_SYSCTL_CPU_MHZ));
  if (rd32(SOC_SYSCTL_BASE + SOC_SYSCTL_ID) != SOC_SYSCTL_ID_VALUE) return 3;
  for (unsigned i = 0; i < 2; ++i)
    if (identify(&accels[i])) return 3;

  const uint64_t scratch = sysctl_pair(SOC_SYSCTL_SCRATCH_LO);
  const uint64_t table = sysctl_pair(SOC_SYSCTL_TABLE_LO);
  start_ring(&accels[0], scratch);
  start_ring(&accels[1], scratch + RING_ENTRIES * EVA_DESC_BYTES);
  eva_desc_gemm_t d;
  uint32_t op_count = 0;
  const uint64_t fault = sysctl_pair(SOC_SYSCTL_FAULT_LO);
  int failures = fault ? inject_fault(fault, rd32(SOC_SYSCTL_BASE + SOC_SYSCTL_FAULT_BYTES), scratch) : 0;
  const uint64_t expected_failed[2] = {fault ? 1u : 0u, 0};

  if (!table) {
    /* No image: one timing-only GEMM per accelerator, operands in scratch. */
    printf("no image: one timing-only 8x1024x1024 GEMM per accelerator\n");
    const uint64_t data = scratch + 0x10000;
    gemm_descriptor(&d, 0, 8, 1024, 1024, data, data + 0x20000, data + 0x60000, data + 0x70000, 1);
    queue_gemm(&accels[0], &d);
    gemm_descriptor(&d, 0, 8, 1024, 1024, data, data + 0x20000, data + 0x60000, data + 0x78000, 2);
    queue_gemm(&accels[1], &d);
  } else {
    const uint32_t magic = rd32(table), version = rd32(table + 4);
    op_count = rd32(table + 8);
    if (magic != EVA_IMAGE_TABLE_MAGIC || version != EVA_IMAGE_TABLE_VERSION || op_count > MAX_OPS) {
      printf("op table at 0x%lx: magic 0x%x version %u, %u ops: not a table this firmware reads\n", table, magic,
             version, op_count);
      return 3;
    }
    printf("op table at 0x%lx: %u ops\n", table, op_count);
    for (uint32_t i = 0; i < op_count; ++i) {
      const eva_image_op_t op = load_op(table, i);
      accel_t* a = op.arch == EVA_ARCH_EVA ? &accels[0] : op.arch == EVA_ARCH_FIGLUT ? &accels[1] : 0;
      if (!a) {
        printf("op %u: architecture %u has no accelerator in this SoC\n", i, op.arch);
        return 3;
      }
      gemm_descriptor(&d, op.flags & EVA_IMAGE_OP_FUNCTIONAL, op.m, op.n, op.k, op.act_addr, op.weight_addr,
                      op.codebook_addr, op.out_addr, i);
      if (queue_gemm(a, &d)) {
        printf("op %u: %s's ring is full\n", i, a->name);
        return 3;
      }
    }
    printf("queued %u ops on EVA, %u on FIGLUT\n", accels[0].queued, accels[1].queued);
  }

  const uint64_t t0 = sysctl_pair(SOC_SYSCTL_TIME_NS_LO);
  failures += run_rings();
  const uint64_t t1 = sysctl_pair(SOC_SYSCTL_TIME_NS_LO);
  printf("both rings done in %lu ns\n", t1 - t0);
  for (unsigned i = 0; i < 2; ++i) {
    const accel_t* a = &accels[i];
    printf("%s: %lu descriptors done, %lu failed, %lu cycles busy, %lu B read, %lu B written\n", a->name,
           reg64(a, EVA_REG_DESC_DONE_LO), reg64(a, EVA_REG_DESC_FAILED_LO), reg64(a, EVA_REG_CYCLES_BUSY_LO),
           reg64(a, EVA_REG_DRAM_READ_LO), reg64(a, EVA_REG_DRAM_WRITTEN_LO));
    if (reg64(a, EVA_REG_DESC_FAILED_LO) != expected_failed[i]) ++failures;
  }

  unsigned checked = 0;
  for (uint32_t i = 0; i < op_count; ++i) {
    const eva_image_op_t op = load_op(table, i);
    if (!(op.flags & EVA_IMAGE_OP_FUNCTIONAL)) continue;
    const accel_t* a = op.arch == EVA_ARCH_EVA ? &accels[0] : &accels[1];
    if (a->out_bits != 16) {
      printf("op %u: %s writes %u-bit outputs; this firmware checks FP16\n", i, a->name, a->out_bits);
      ++failures;
      continue;
    }
    failures += check_op(i, &op, a);
    ++checked;
  }
  if (failures)
    printf("RESULT: FAIL (%d failures)\n", failures);
  else if (checked)
    printf("RESULT: PASS: the outputs of %u ops match the reference\n", checked);
  else
    printf("RESULT: PASS: every descriptor completed (timing only, nothing to check)\n");
  return failures ? 1 : 0;
}
