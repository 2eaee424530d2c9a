/* soc_map.h: the example SoC's memory map and its own devices' registers
 * (docs/SOC.md). C99, for the firmware and for the SoC model (one source).
 * The accelerators' register windows follow eva_regs.h. */
#ifndef EVA_SOC_MAP_H
#define EVA_SOC_MAP_H

/* Local SRAM of the core: code, data and stack (not reachable by the DMAs). */
#define SOC_SRAM_BASE 0x10000000u
#define SOC_SRAM_BYTES 0x40000u /* 256 KiB */

/* Devices: one 128 KiB block the core sends through the router as TLM
 * transactions; every 4 KiB page holds at most one device, the rest are holes. */
#define SOC_DEVICES_BASE 0x20000000u
#define SOC_DEVICES_BYTES 0x20000u
#define SOC_SYSCTL_BASE 0x20000000u
#define SOC_UART_BASE 0x20001000u
#define SOC_INTC_BASE 0x20002000u
#define SOC_EVA_BASE 0x20010000u    /* EVA's register window (eva_regs.h) */
#define SOC_FIGLUT_BASE 0x20011000u /* FIGLUT's register window */
#define SOC_DEVICE_WINDOW 0x1000u

/* DRAM: shared by the core and both accelerators' DMAs. */
#define SOC_DRAM_BASE 0x80000000ull

/* Interrupt lines into the interrupt controller. */
#define SOC_IRQ_EVA 0u
#define SOC_IRQ_FIGLUT 1u
#define SOC_IRQ_LINES 2u

/* System control: 32-bit registers; a 64-bit value is a LO/HI pair and
 * reading LO latches HI. */
#define SOC_SYSCTL_ID 0x00u           /* RO: SOC_SYSCTL_ID_VALUE */
#define SOC_SYSCTL_CPU_MHZ 0x04u      /* RO: the core's clock, MHz */
#define SOC_SYSCTL_TIME_NS_LO 0x08u   /* RO: simulated time at the access, ns */
#define SOC_SYSCTL_TIME_NS_HI 0x0Cu   /* RO */
#define SOC_SYSCTL_TABLE_LO 0x10u     /* RO: the image's op table (0: no image) */
#define SOC_SYSCTL_TABLE_HI 0x14u     /* RO */
#define SOC_SYSCTL_SCRATCH_LO 0x18u   /* RO: free DRAM for rings and descriptors */
#define SOC_SYSCTL_SCRATCH_HI 0x1Cu   /* RO */
#define SOC_SYSCTL_SCRATCH_BYTES 0x20u /* RO: its size */
#define SOC_SYSCTL_EXIT 0x24u         /* WO: the firmware ends with this exit code */
#define SOC_SYSCTL_FAULT_LO 0x28u     /* RO: a DRAM window that answers one access with an error (0: none) */
#define SOC_SYSCTL_FAULT_HI 0x2Cu     /* RO */
#define SOC_SYSCTL_FAULT_BYTES 0x30u  /* RO: its size */
#define SOC_SYSCTL_ID_VALUE 0x534F4331u /* the bytes "1COS": 'S' 'O' 'C' '1' read as a word */

/* UART: TX only. */
#define SOC_UART_TXDATA 0x00u /* WO: bits 7:0 are sent */
#define SOC_UART_STATUS 0x04u /* RO: bit 0 TX ready (always 1) */

/* Interrupt controller: level-sensitive lines. */
#define SOC_INTC_PENDING 0x00u /* RO: bit i = line i is high */
#define SOC_INTC_ENABLE 0x04u  /* RW: bit i = line i may wake WAIT */
#define SOC_INTC_WAIT 0x08u    /* RO: blocks until PENDING & ENABLE != 0, returns it (0 at once if ENABLE is 0) */
#define SOC_INTC_LINES 0x0Cu   /* RO: number of lines */

#endif /* EVA_SOC_MAP_H */
