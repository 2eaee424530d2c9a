#!/usr/bin/env python3
"""The accelerator peripheral's register map and descriptor format: the one source.

CMake runs this script at build time to generate
  eva_regs.h              C99 (stdint only) for bare-metal firmware, installed;
  periph/regmap.hpp       the same numbers as C++ constants, for the models;
and it writes or checks the generated tables in docs/REGISTERS.md and
docs/DESCRIPTORS.md (between the BEGIN/END GENERATED markers).

  regmap.py --c-header FILE --cpp-header FILE
  regmap.py --update-docs DOCS_DIR | --check-docs DOCS_DIR
"""
import argparse
import difflib
import sys

REGMAP_VERSION = 1  # bump on any change to the register map
DESC_VERSION = 1  # bump on any change to the descriptor layout
ID_VALUE = 0x45564150  # "PAVE": the bytes 'E' 'V' 'A' 'P' read as a little-endian word
WINDOW_BYTES = 0x100  # the register window the target socket decodes
DESC_MAGIC = 0x44415645  # the bytes 'E' 'V' 'A' 'D' as a little-endian word
DESC_BYTES = 128

# name, value, meaning (ArchKind of models/arch/arch_config.hpp, in order)
ARCH_CODES = [
    ("EVA", 1, "EVA (VQ weights, output-codebook lookups)"),
    ("SA", 2, "systolic array, A8W8"),
    ("ANT", 3, "ANT, A8W8 with int/flint/PoT decoders"),
    ("FIGNA", 4, "FIGNA, A16W4 pre-aligned"),
    ("FIGLUT", 5, "FIGLUT, LUT-based FP-INT"),
    ("VQ_CONFLICT", 6, "VQ with codebook bank conflicts"),
]

# name, value, meaning: ERROR_CODE values
ERROR_CODES = [
    ("NONE", 0, "no error"),
    ("DESC_SHORT", 1, "fewer bytes than a descriptor (decoder only; never in ERROR_CODE)"),
    ("DESC_MAGIC", 2, "the descriptor's magic is not EVA_DESC_MAGIC"),
    ("DESC_VERSION", 3, "the descriptor's version is not EVA_DESC_VERSION"),
    ("DESC_OPCODE", 4, "unknown opcode"),
    ("DESC_RESERVED", 5, "a reserved field or flag bit is not zero"),
    ("DESC_OPERAND", 6, "unknown GEMM operand kind"),
    ("DESC_VECTOR_OP", 7, "unknown vector operation"),
    ("DESC_SHAPE", 8, "a zero dimension or count, or a shape too large to count in bytes"),
    ("UNSUPPORTED", 9, "the accelerator cannot run the operation in its configuration"),
    ("FETCH_BUS_ERROR", 10, "a bus error while fetching a descriptor"),
    ("DATA_BUS_ERROR", 11, "a bus error while moving an operation's data"),
    ("RING_CONFIG", 12, "doorbell with RING_SIZE 0 or RING_TAIL >= RING_SIZE"),
    ("CHAIN_LIMIT", 13, "a chain longer than the peripheral's chain limit (a loop?)"),
    ("BUS_TIMEOUT", 14, "a memory access got no response within dma.response_timeout_ns (fetch or data)"),
]

# Registers: name, offset, access, reset, meaning, fields [(name, lsb, width, meaning)].
# Access: RO read-only (a write is a TLM command error), RW, W1C (bits written 1 clear), WO
# (reads 0). 64-bit values are LO/HI pairs: reading LO latches HI, so LO then HI is one value.
REGISTERS = [
    ("ID", 0x000, "RO", "0x45564150", "identification: EVA_ID_VALUE", []),
    ("VERSION", 0x004, "RO", "", "versions of this map and of the descriptor format",
     [("REGMAP", 0, 16, "register map version (EVA_REGMAP_VERSION)"),
      ("DESC", 16, 16, "descriptor format version (EVA_DESC_VERSION)")]),
    ("ARCH", 0x008, "RO", "", "architecture code (EVA_ARCH_*)", []),
    ("CAPS_FORMAT", 0x00C, "RO", "", "number formats in memory, bits per element",
     [("ACT_BITS", 0, 8, "activations"), ("WEIGHT_BITS", 8, 8, "weights (dense formats)"),
      ("OUT_BITS", 16, 8, "outputs"), ("KV_BITS", 24, 8, "KV-cache elements (attention)")]),
    ("CAPS_VQ", 0x010, "RO", "", "VQ weight format (0 for dense architectures)",
     [("VECTOR_DIM", 0, 8, "elements per sub-vector d"), ("INDEX_BITS", 8, 8, "bits per index n"),
      ("CODEBOOKS", 16, 8, "additive codebooks C")]),
    ("CAPS_ARRAY", 0x014, "RO", "", "systolic array size",
     [("ROWS", 0, 16, "rows"), ("COLS", 16, 16, "columns")]),
    ("CAPS_UNITS", 0x018, "RO", "", "other compute units",
     [("EPILOGUE_UNITS", 0, 16, "epilogue units (EVA; 0 elsewhere)"),
      ("ADDER_INPUTS", 16, 16, "inputs per epilogue adder tree (EVA; 0 elsewhere)")]),
    ("CTRL", 0x020, "RW", "0", "control",
     [("ENABLE", 0, 1, "take descriptors from the ring"),
      ("SOFT_RESET", 1, 1, "write 1: every register (CTRL too) and counter to its reset value; reads 0"),
      ("IRQ_ENABLE", 2, 1, "drive the interrupt while STATUS.DONE or STATUS.ERROR is set")]),
    ("STATUS", 0x024, "RW", "0", "status (BUSY read-only, DONE and ERROR write-1-to-clear)",
     [("BUSY", 0, 1, "a descriptor is being fetched or run"),
      ("DONE", 1, 1, "W1C: the ring became empty (HEAD reached TAIL)"),
      ("ERROR", 2, 1, "W1C: a descriptor failed; clearing it also clears ERROR_CODE and ERROR_ADDR")]),
    ("ERROR_CODE", 0x028, "RO", "0", "the first error since STATUS.ERROR was cleared (EVA_ERR_*)", []),
    ("ERROR_ADDR_LO", 0x030, "RO", "0", "its address: the faulting burst, or the descriptor", []),
    ("ERROR_ADDR_HI", 0x034, "RO", "0", "", []),
    ("RING_BASE_LO", 0x040, "RW", "0", "descriptor ring base in system memory (ignored while BUSY)", []),
    ("RING_BASE_HI", 0x044, "RW", "0", "", []),
    ("RING_SIZE", 0x048, "RW", "0", "ring entries of EVA_DESC_BYTES each (a write while BUSY is ignored; "
                                    "a write resets HEAD and TAIL to 0)", []),
    ("RING_HEAD", 0x04C, "RO", "0", "the entry the accelerator takes next", []),
    ("RING_TAIL", 0x050, "RW", "0", "one past the last entry the host queued (modulo RING_SIZE)", []),
    ("DOORBELL", 0x054, "WO", "0", "any write: take entries from HEAD up to TAIL", []),
    ("CYCLES_BUSY_LO", 0x080, "RO", "0", "accelerator cycles with STATUS.BUSY set", []),
    ("CYCLES_BUSY_HI", 0x084, "RO", "0", "", []),
    ("DRAM_READ_LO", 0x088, "RO", "0", "bytes the accelerator read from memory (descriptors included)", []),
    ("DRAM_READ_HI", 0x08C, "RO", "0", "", []),
    ("DRAM_WRITTEN_LO", 0x090, "RO", "0", "bytes the accelerator wrote to memory", []),
    ("DRAM_WRITTEN_HI", 0x094, "RO", "0", "", []),
    ("DESC_DONE_LO", 0x098, "RO", "0", "descriptors completed without error (chained ones each count)", []),
    ("DESC_DONE_HI", 0x09C, "RO", "0", "", []),
    ("BANK_CONFLICT_LO", 0x0A0, "RO", "0", "SRAM bank-conflict cycles", []),
    ("BANK_CONFLICT_HI", 0x0A4, "RO", "0", "", []),
    ("DESC_FAILED_LO", 0x0A8, "RO", "0", "descriptors rejected or failed", []),
    ("DESC_FAILED_HI", 0x0AC, "RO", "0", "", []),
]

# Descriptor layouts: (name, offset, C type, meaning). Every descriptor starts with HEADER.
HEADER = [
    ("magic", 0x00, "uint32_t", "EVA_DESC_MAGIC"),
    ("version", 0x04, "uint8_t", "EVA_DESC_VERSION"),
    ("opcode", 0x05, "uint8_t", "EVA_OP_GEMM or EVA_OP_VECTOR"),
    ("flags", 0x06, "uint16_t", "EVA_DESC_FLAG_* (other bits reserved, zero)"),
    ("next", 0x08, "uint64_t", "address of the next descriptor of the chain; 0 ends it"),
]
GEMM = HEADER + [
    ("act_addr", 0x10, "uint64_t", "x (M x K), row-major, CAPS_FORMAT.ACT_BITS per element"),
    ("weight_addr", 0x18, "uint64_t", "W (K x N) in the architecture's weight layout, or the K/V cache"),
    ("codebook_addr", 0x20, "uint64_t", "VQ codebooks or scales (architectures that use them)"),
    ("out_addr", 0x28, "uint64_t", "y (M x N), row-major, CAPS_FORMAT.OUT_BITS per element"),
    ("act_stride", 0x30, "uint64_t", "bytes between the count GEMMs' x"),
    ("weight_stride", 0x38, "uint64_t", "bytes between their W"),
    ("out_stride", 0x40, "uint64_t", "bytes between their y"),
    ("m", 0x48, "uint32_t", "rows of x and y (> 0)"),
    ("n", 0x4C, "uint32_t", "columns of W and y (> 0)"),
    ("k", 0x50, "uint32_t", "columns of x, rows of W (> 0)"),
    ("count", 0x54, "uint32_t", "GEMMs of this shape, operands strided (> 0)"),
    ("operand", 0x58, "uint32_t", "EVA_OPERAND_WEIGHTS (an FC layer) or EVA_OPERAND_KV_CACHE (attention)"),
    ("tag", 0x5C, "uint32_t", "any value; names the operation in traces"),
    ("reserved", 0x60, "uint64_t[4]", "zero"),
]
VECTOR = HEADER + [
    ("in_addr", 0x10, "uint64_t", "first operand, rows x cols FP16"),
    ("in2_addr", 0x18, "uint64_t", "second operand of a binary operation (else ignored)"),
    ("out_addr", 0x20, "uint64_t", "result, rows x cols FP16"),
    ("rows", 0x28, "uint32_t", "> 0"),
    ("cols", 0x2C, "uint32_t", "> 0"),
    ("op", 0x30, "uint32_t", "EVA_VOP_*"),
    ("tag", 0x34, "uint32_t", "any value; names the operation in traces"),
    ("reserved", 0x38, "uint64_t[9]", "zero"),
]
OPCODES = [("GEMM", 1, "an FC layer or attention GEMM"), ("VECTOR", 2, "a vector-unit operation")]
FLAGS = [("FUNCTIONAL", 0, "move and compute real data (else timing only)")]
OPERANDS = [("WEIGHTS", 0, "weights in the architecture's format"), ("KV_CACHE", 1, "the K or V cache (dense; FIGLUT: bit-planes)"),
            ("FP16_WEIGHTS", 2, "dense FP16 weights, e.g. an FP16 LM head (FIGLUT: 16 bit-planes)")]
# VectorOp of models/common/op_descriptor.hpp, in order
VECTOR_OPS = [("ADD", 0, "x + y"), ("MUL", 1, "x * y"), ("SILU_MUL", 2, "silu(x) * y"), ("GELU", 3, "gelu(x)"),
              ("RMSNORM", 4, "RMSNorm of each row"), ("LAYERNORM", 5, "LayerNorm of each row"),
              ("SOFTMAX", 6, "softmax of each row"), ("ROPE", 7, "rotary position embedding")]

TYPE_BYTES = {"uint8_t": 1, "uint16_t": 2, "uint32_t": 4, "uint64_t": 8}


def field_bytes(ctype):
    base, _, count = ctype.partition("[")
    return TYPE_BYTES[base] * (int(count[:-1]) if count else 1)


def check_layout(name, fields):
    at = 0
    for f, off, ctype, _ in fields:
        size = field_bytes(ctype)
        if off != at or off % TYPE_BYTES[ctype.partition("[")[0]]:
            sys.exit(f"regmap.py: {name}.{f} at 0x{off:x}, expected 0x{at:x} (naturally aligned, no gaps)")
        at += size
    if at != DESC_BYTES:
        sys.exit(f"regmap.py: {name} takes {at} bytes, not {DESC_BYTES}")


def c_header():
    o = ["/* eva_regs.h: the EVA accelerator peripheral's registers and descriptors.",
         " * Generated by models/periph/regmap.py; do not edit. Plain C99, stdint only.",
         " * Registers are 32-bit, little-endian, accessed as aligned 32-bit words;",
         " * descriptors are little-endian, EVA_DESC_BYTES each, naturally aligned. */",
         "#ifndef EVA_REGS_H", "#define EVA_REGS_H", "", "#include <stdint.h>", "",
         f"#define EVA_REGMAP_VERSION {REGMAP_VERSION}u", f"#define EVA_DESC_VERSION {DESC_VERSION}u",
         f"#define EVA_ID_VALUE 0x{ID_VALUE:08X}u", f"#define EVA_REG_WINDOW_BYTES 0x{WINDOW_BYTES:X}u",
         f"#define EVA_DESC_MAGIC 0x{DESC_MAGIC:08X}u", f"#define EVA_DESC_BYTES {DESC_BYTES}u", "",
         "/* Register offsets */"]
    o += [f"#define EVA_REG_{r[0]} 0x{r[1]:03X}u" for r in REGISTERS]
    o += ["", "/* Register fields: shift and mask (mask in place) */"]
    for r in REGISTERS:
        for f, lsb, width, _ in r[5]:
            o.append(f"#define EVA_{r[0]}_{f}_SHIFT {lsb}u")
            o.append(f"#define EVA_{r[0]}_{f}_MASK 0x{((1 << width) - 1) << lsb:08X}u")
    for title, prefix, rows in [("Error codes (ERROR_CODE)", "EVA_ERR_", ERROR_CODES),
                                ("Architecture codes (ARCH)", "EVA_ARCH_", ARCH_CODES),
                                ("Descriptor opcodes", "EVA_OP_", OPCODES),
                                ("GEMM operand kinds", "EVA_OPERAND_", OPERANDS),
                                ("Vector operations", "EVA_VOP_", VECTOR_OPS)]:
        o += ["", f"/* {title} */"] + [f"#define {prefix}{n} {v}u /* {m} */" for n, v, m in rows]
    o += ["", "/* Descriptor flags (masks) */"]
    o += [f"#define EVA_DESC_FLAG_{n} (1u << {b}) /* {m} */" for n, b, m in FLAGS]
    for struct, fields in [("gemm", GEMM), ("vector", VECTOR)]:
        o += ["", f"typedef struct eva_desc_{struct} {{"]
        for f, off, ctype, meaning in fields:
            base, _, count = ctype.partition("[")
            arr = f"[{count}" if count else ""
            o.append(f"  {base} {f}{arr}; /* 0x{off:02X}: {meaning} */")
        o.append(f"}} eva_desc_{struct}_t;")
        for f, off, _, _ in fields:
            o.append(f"#define EVA_DESC_{struct.upper()}_{f.upper()}_OFFSET 0x{off:02X}u")
        o.append(f"typedef char eva_desc_{struct}_size_check[sizeof(eva_desc_{struct}_t) == EVA_DESC_BYTES ? 1 : -1];")
    o += ["", "#endif /* EVA_REGS_H */", ""]
    return "\n".join(o)


def cpp_ident(name):
    return name.lower()


def cpp_header():
    o = ["#pragma once", "// The peripheral's register map and descriptor format as C++ constants.",
         "// Generated by models/periph/regmap.py (the one source, with eva_regs.h); do not edit.",
         "#include <cstdint>", "", "namespace eva::regs {", "",
         f"inline constexpr std::uint32_t regmap_version = {REGMAP_VERSION};",
         f"inline constexpr std::uint32_t desc_version = {DESC_VERSION};",
         f"inline constexpr std::uint32_t id_value = 0x{ID_VALUE:08X};",
         f"inline constexpr std::uint32_t window_bytes = 0x{WINDOW_BYTES:X};",
         f"inline constexpr std::uint32_t desc_magic = 0x{DESC_MAGIC:08X};",
         f"inline constexpr std::uint32_t desc_bytes = {DESC_BYTES};", "",
         "// A bit field of a register.", "struct Field {", "  std::uint32_t shift, width;",
         "  constexpr std::uint32_t mask() const { return ((width >= 32 ? 0u : (1u << width)) - 1u) << shift; }",
         "  constexpr std::uint32_t get(std::uint32_t reg) const { return (reg & mask()) >> shift; }",
         "  constexpr std::uint32_t put(std::uint32_t value) const { return (value << shift) & mask(); }",
         "};", "", "// Register offsets.", "enum class Reg : std::uint32_t {"]
    o += [f"  {cpp_ident(r[0])} = 0x{r[1]:03X}," for r in REGISTERS] + ["};", ""]
    for r in REGISTERS:
        for f, lsb, width, _ in r[5]:
            o.append(f"inline constexpr Field {cpp_ident(r[0])}_{cpp_ident(f)}{{{lsb}, {width}}};")
    for enum, rows in [("ErrorCode", ERROR_CODES), ("ArchCode", ARCH_CODES), ("DescOpcode", OPCODES),
                       ("OperandCode", OPERANDS), ("VectorOpCode", VECTOR_OPS)]:
        o += ["", f"enum class {enum} : std::uint32_t {{"] + [f"  {cpp_ident(n)} = {v},  // {m}" for n, v, m in rows]
        o.append("};")
    o += ["", "// Descriptor flag bits."]
    o += [f"inline constexpr std::uint32_t desc_flag_{cpp_ident(n)} = 1u << {b};" for n, b, _ in FLAGS]
    for struct, fields in [("gemm", GEMM), ("vector", VECTOR)]:
        o += ["", f"// Byte offsets of the {struct} descriptor's fields.", f"namespace {struct}_desc {{"]
        o += [f"inline constexpr std::uint32_t {f} = 0x{off:02X};" for f, off, _, _ in fields]
        o.append(f"}}  // namespace {struct}_desc")
    o += ["", "}  // namespace eva::regs", ""]
    return "\n".join(o)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def registers_md():
    o = [f"Register map version {REGMAP_VERSION}; window 0x{WINDOW_BYTES:X} bytes; "
         f"ID reads 0x{ID_VALUE:08X}.", ""]
    o += md_table(["offset", "name", "access", "reset", "meaning"],
                  [(f"0x{r[1]:03X}", r[0], r[2], r[3] or "config", r[4] or f"upper 32 bits of {r[0][:-3]}")
                   for r in REGISTERS])
    o += ["", "Fields (C macros `EVA_<REG>_<FIELD>_SHIFT` and `_MASK`):", ""]
    o += md_table(["register", "field", "bits", "meaning"],
                  [(r[0], f, f"{lsb + w - 1}:{lsb}" if w > 1 else str(lsb), m) for r in REGISTERS
                   for f, lsb, w, m in r[5]])
    o += ["", "Error codes (`EVA_ERR_*`):", ""] + md_table(["code", "name", "meaning"],
                                                         [(v, n, m) for n, v, m in ERROR_CODES])
    o += ["", "Architecture codes (`EVA_ARCH_*`):", ""] + md_table(["code", "name", "meaning"],
                                                                 [(v, n, m) for n, v, m in ARCH_CODES])
    return "\n".join(o)


def descriptors_md():
    o = [f"Format version {DESC_VERSION}; {DESC_BYTES} bytes; magic 0x{DESC_MAGIC:08X} (bytes `E V A D`).", ""]
    for title, rows in [("GEMM (`eva_desc_gemm_t`, opcode EVA_OP_GEMM)", GEMM),
                        ("Vector operation (`eva_desc_vector_t`, opcode EVA_OP_VECTOR)", VECTOR)]:
        o += [title + ":", ""] + md_table(["offset", "field", "type", "meaning"],
                                          [(f"0x{off:02X}", f, t, m) for f, off, t, m in rows]) + [""]
    o += ["Opcodes (`EVA_OP_*`):", ""] + md_table(["code", "name", "meaning"], [(v, n, m) for n, v, m in OPCODES])
    o += ["", "Flags (`EVA_DESC_FLAG_*`):", ""] + md_table(["bit", "name", "meaning"], [(b, n, m) for n, b, m in FLAGS])
    o += ["", "Operand kinds (`EVA_OPERAND_*`):", ""] + md_table(["code", "name", "meaning"],
                                                               [(v, n, m) for n, v, m in OPERANDS])
    o += ["", "Vector operations (`EVA_VOP_*`):", ""] + md_table(["code", "name", "meaning"],
                                                               [(v, n, m) for n, v, m in VECTOR_OPS])
    return "\n".join(o)


BEGIN, END = "<!-- BEGIN GENERATED by models/periph/regmap.py -->", "<!-- END GENERATED -->"


def with_tables(text, tables, path):
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        sys.exit(f"regmap.py: {path}: no '{BEGIN}' ... '{END}' block")
    return text[:start + len(BEGIN)] + "\n" + tables + "\n" + text[stop:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c-header")
    ap.add_argument("--cpp-header")
    ap.add_argument("--update-docs", metavar="DOCS_DIR")
    ap.add_argument("--check-docs", metavar="DOCS_DIR")
    a = ap.parse_args()
    check_layout("gemm", GEMM)
    check_layout("vector", VECTOR)
    for path, text in [(a.c_header, c_header), (a.cpp_header, cpp_header)]:
        if path:
            with open(path, "w") as f:
                f.write(text())
    docs = a.update_docs or a.check_docs
    if not docs:
        return 0
    stale = 0
    for name, tables in [("REGISTERS.md", registers_md()), ("DESCRIPTORS.md", descriptors_md())]:
        path = f"{docs}/{name}"
        with open(path) as f:
            text = f.read()
        want = with_tables(text, tables, path)
        if a.update_docs and want != text:
            with open(path, "w") as f:
                f.write(want)
        elif a.check_docs and want != text:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), want.splitlines(True), path,
                                                       path + " (generated)"))
    if stale:
        print("regmap.py: the docs do not match the register map; run "
              "models/periph/regmap.py --update-docs docs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
