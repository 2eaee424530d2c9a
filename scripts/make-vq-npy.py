#!/usr/bin/env python3
"""Writes a random VQ problem as .npy files for eva-sim vq-gemv, without numpy:
x (M, K) float16, codebooks (C, 2^n, d) float16, indices (C, K/d, N) int32.
Usage: make-vq-npy.py DIR M K N [C n d] [seed]"""
import os
import random
import struct
import sys


def save(path, descr, shape, fmt, values):
    dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def main():
    out, m, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    c, bits, d = (int(a) for a in sys.argv[5:8]) if len(sys.argv) >= 8 else (2, 8, 8)
    rng = random.Random(int(sys.argv[8]) if len(sys.argv) > 8 else 1)
    os.makedirs(out, exist_ok=True)
    save(os.path.join(out, "x.npy"), "<f2", (m, k), "e", [rng.gauss(0, 1) for _ in range(m * k)])
    save(os.path.join(out, "cb.npy"), "<f2", (c, 2 ** bits, d), "e", [rng.gauss(0, 0.1) for _ in range(c * 2 ** bits * d)])
    save(os.path.join(out, "idx.npy"), "<i4", (c, k // d, n), "i", [rng.randrange(2 ** bits) for _ in range(c * (k // d) * n)])


if __name__ == "__main__":
    main()
