/* crt0: the reset entry at the start of the SRAM. Sets the stack and global
 * pointers, zeroes .bss, calls main and hands its return value to the SoC's
 * EXIT register (docs/SOC.md), which ends the run. */
#include "soc_map.h"

  .section .text.start, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  sd zero, 0(t0)
  addi t0, t0, 8
  j 1b
2:
  call main
  li t0, SOC_SYSCTL_BASE + SOC_SYSCTL_EXIT
  sw a0, 0(t0)
3:
  j 3b
