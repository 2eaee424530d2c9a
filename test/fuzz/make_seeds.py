#!/usr/bin/env python3
"""Writes the binary seed inputs of the fuzz harnesses (the text ones are written by hand):
corpus/npy/ (.npy files), corpus/descriptor/ (descriptor images) and corpus/regs/ (register
sequences for fuzz_regs.cpp, in its input format). The descriptor layout comes from its one
source, models/periph/regmap.py. Run it again after changing either format:

  test/fuzz/make_seeds.py
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "periph"))
import regmap  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")
PACK = {"uint8_t": "<B", "uint16_t": "<H", "uint32_t": "<I", "uint64_t": "<Q"}


def write(folder, name, data):
    path = os.path.join(CORPUS, folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


# ---- .npy -------------------------------------------------------------------

def npy(descr, shape, payload, version=1, fortran="False"):
    dims = "".join(f"{s}," for s in shape) if len(shape) == 1 else ", ".join(str(s) for s in shape)
    header = f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': ({dims}), }}"
    lead = 10 if version == 1 else 12
    header += " " * ((64 - (lead + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin-1") + payload


def npy_seeds():
    write("npy", "f2-vector.npy", npy("<f2", [4], struct.pack("<4H", 0x3C00, 0x4000, 0xBC00, 0x7C00)))
    write("npy", "i4-matrix.npy", npy("<i4", [2, 3], struct.pack("<6i", 1, -2, 3, -4, 5, -6)))
    write("npy", "u1-cube.npy", npy("|u1", [2, 2, 2], bytes(range(8))))
    write("npy", "i8-v2.npy", npy("<i8", [2], struct.pack("<2q", -1, 1 << 40), version=2))
    write("npy", "f4-v3-scalar.npy", npy("<f4", [], struct.pack("<f", 1.5), version=3))
    write("npy", "u2-empty.npy", npy("<u2", [0, 5], b""))
    write("npy", "f8-fortran.npy", npy("<f8", [1, 1], struct.pack("<d", 2.0), fortran="True"))
    write("npy", "f2-huge-shape.npy", npy("<f2", [4096, 4096, 4096], b""))


# ---- descriptors --------------------------------------------------------------

def descriptor(layout, **values):
    out = bytearray(regmap.DESC_BYTES)
    values = {"magic": regmap.DESC_MAGIC, "version": regmap.DESC_VERSION, **values}
    for name, offset, ctype, _ in layout:
        if name in values:
            struct.pack_into(PACK[ctype], out, offset, values[name])
    return bytes(out)


def gemm(m, n, k, at=0x100000, count=1, functional=False, next=0, tag=0, operand=0):
    return descriptor(regmap.GEMM, opcode=1, flags=1 if functional else 0, next=next, act_addr=at,
                      weight_addr=at + 0x40000, codebook_addr=at + 0x80000, out_addr=at + 0xC0000,
                      m=m, n=n, k=k, count=count, operand=operand, tag=tag)


def vector(op, rows, cols, at=0x180000, next=0, tag=0):
    return descriptor(regmap.VECTOR, opcode=2, next=next, in_addr=at, in2_addr=at + 0x10000,
                      out_addr=at + 0x20000, rows=rows, cols=cols, op=op, tag=tag)


def descriptor_seeds():
    write("descriptor", "gemm.bin", gemm(1, 4096, 4096, tag=7))
    write("descriptor", "gemm-functional-chained.bin", gemm(4, 256, 512, functional=True, next=0x80, count=2))
    write("descriptor", "attention.bin", gemm(8, 128, 512, operand=1, count=32))
    write("descriptor", "vector-softmax.bin", vector(6, 2, 512, tag=3))
    write("descriptor", "vector-rope.bin", vector(7, 1, 4096))
    write("descriptor", "short.bin", gemm(1, 1, 1)[:64])


# ---- register sequences (fuzz_regs.cpp) ---------------------------------------

REG = {name: offset for name, offset, *_ in regmap.REGISTERS}
SLOTS = 0x1000  # the harness's descriptor slots: slot i at SLOTS + i * DESC_BYTES
UNITS = ["eva", "sa", "ant", "figna", "figlut", "vq-conflict"]


def bus(cmd, reg, value=0, length=4, width=0xFF, enables=b"", null=False):
    """Op 0: a b_transport (cmd 0 read, 1 write, 2 ignore) at a register or any offset."""
    offset = REG.get(reg, reg) if isinstance(reg, str) else reg
    how = cmd | (0x40 if null else 0) | (0x80 if offset >= 0x10000 else 0)
    addr = struct.pack("<Q", offset) if offset >= 0x10000 else struct.pack("<H", offset)
    data = struct.pack("<Q", value)[:length] if cmd == 1 else bytes(length)
    return bytes([0, how]) + addr + bytes([length, width, len(enables)]) + data + enables


def debug(offset, length, write_=False):
    """Op 1: a transport_dbg."""
    return bytes([1, 1 if write_ else 0]) + struct.pack("<H", offset) + struct.pack("<H", length) + bytes(length)


def pause(ns):
    """Op 2: wait ns (in steps of 10 ns)."""
    return bytes([2, min(ns // 10, 255)])


def place(slot, image):
    """Op 3: a descriptor image into memory slot `slot` (address SLOTS + slot * DESC_BYTES)."""
    return bytes([3, 0, slot, len(image)]) + image


def wait_irq():
    """Op 4: wait for the interrupt (at most 20 us)."""
    return bytes([4])


def ring(entries, tail):
    """A ring of `entries` at the slots, enabled with its interrupt, `tail` entries queued."""
    return (bus(1, "RING_BASE_LO", SLOTS) + bus(1, "RING_SIZE", entries) + bus(1, "CTRL", 0b101) +
            bus(1, "RING_TAIL", tail) + bus(1, "DOORBELL", 1))


def counters():
    return b"".join(bus(0, r) for r in ("STATUS", "ERROR_CODE", "ERROR_ADDR_LO", "RING_HEAD", "DESC_DONE_LO",
                                        "DESC_DONE_HI", "DESC_FAILED_LO", "CYCLES_BUSY_LO", "DRAM_READ_LO"))


def regs_seeds():
    d = regmap.DESC_BYTES
    for unit, name in enumerate(UNITS):
        n, k = (256, 512) if name in ("eva", "vq-conflict") else (64, 128)
        seq = place(0, gemm(1, n, k, tag=1)) + place(1, gemm(2, n, k, count=2, next=SLOTS + 2 * d))
        seq += place(2, vector(0, 1, 256)) + ring(4, 2) + wait_irq() + counters()
        seq += bus(1, "STATUS", 0b110) + wait_irq()
        write("regs", f"{name}-ring.bin", bytes([unit]) + seq)
    # Accesses the map refuses: unaligned, short, long, byte enables, streaming
    # width, read-only registers, the ignore command, no data, beyond the window.
    odd = b"".join([bus(0, 0x22), bus(0, "ID", length=2), bus(1, "CTRL", 1, length=8),
                    bus(1, "CTRL", 1, enables=b"\xff\x00\xff\xff"), bus(0, "STATUS", width=2),
                    bus(1, "ID", 5), bus(2, "CTRL"), bus(0, "CTRL", null=True), bus(0, 0x100), bus(1, 0x5C, 1),
                    bus(0, 0x1_0000_0000), debug(0, 0x100), debug(0x80, 0x40), debug(0x2, 4), debug(0, 8, True),
                    debug(0xF0, 0x20), bus(1, "DOORBELL", 1)])
    write("regs", "refused-accesses.bin", bytes([1]) + odd)
    # A ring with a descriptor that fails and a chain that loops, acknowledged
    # and reset while busy.
    seq = place(0, gemm(1, 256, 512, next=SLOTS)) + place(1, b"\x00" * d) + ring(8, 2) + pause(1000)
    seq += bus(1, "CTRL", 0b010)
    seq += bus(0, "STATUS") + bus(1, "RING_SIZE", 2) + pause(2000) + counters()
    write("regs", "loop-and-reset.bin", bytes([0]) + seq)
    # A functional GEMM on sa, operands in the first MiBs.
    seq = place(0, gemm(2, 64, 64, functional=True)) + ring(2, 1) + wait_irq() + counters()
    write("regs", "sa-functional.bin", bytes([1]) + seq)
    # Doorbells the ring refuses: RING_SIZE 0, TAIL beyond it, while disabled.
    seq = bus(1, "DOORBELL", 1) + bus(1, "CTRL", 1) + bus(1, "DOORBELL", 1) + bus(1, "RING_SIZE", 4)
    seq += bus(1, "RING_TAIL", 9) + bus(1, "DOORBELL", 1) + counters() + bus(1, "CTRL", 0) + bus(1, "RING_TAIL", 1)
    write("regs", "ring-config.bin", bytes([4]) + seq)


if __name__ == "__main__":
    npy_seeds()
    descriptor_seeds()
    regs_seeds()
