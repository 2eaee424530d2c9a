/* The firmware's helpers: register and DRAM access, the UART's printf. */
#ifndef EVA_SOC_FW_H
#define EVA_SOC_FW_H

#include <stdarg.h>
#include <stdint.h>

static inline uint32_t rd32(uint64_t addr) { return *(volatile uint32_t*)(uintptr_t)addr; }
static inline void wr32(uint64_t addr, uint32_t v) { *(volatile uint32_t*)(uintptr_t)addr = v; }
static inline uint64_t rd64(uint64_t addr) { return *(volatile uint64_t*)(uintptr_t)addr; }
static inline void wr64(uint64_t addr, uint64_t v) { *(volatile uint64_t*)(uintptr_t)addr = v; }
static inline uint16_t rd16(uint64_t addr) { return *(volatile uint16_t*)(uintptr_t)addr; }
/* A 64-bit register pair: LO first (it latches HI). */
static inline uint64_t rd_pair(uint64_t lo_addr) {
  uint64_t lo = rd32(lo_addr);
  return lo | (uint64_t)rd32(lo_addr + 4) << 32;
}

/* printf over the UART: %d %u %x %s %c %%, with the l and ll length
 * modifiers, a field width and the 0 flag. */
int printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void putchar_uart(char c);

#endif /* EVA_SOC_FW_H */
