#!/usr/bin/env python3
"""Draws a roofline of one run's operations: each operation at its arithmetic
intensity (operations per DRAM byte) and its achieved GOPS, coloured by kind
and marked by what bound it, under the DRAM's peak bandwidth and the array's
dense peak.

    scripts/plot_roofline.py DATA.json OUT.png

DATA.json: {"title": str, "peak_gops": float, "peak_gbps": float, "left_out": int,
            "ops": [{"name", "kind", "bound_by", "count", "ops_per_byte", "gops"}]}.
eva-sim run --plot writes DATA.json and runs this same script (compiled into
eva-sim). Needs matplotlib (Debian: python3-matplotlib)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = {"memory": "o", "compute": "s", "epilogue": "^", "bank conflicts": "X"}


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_roofline.py DATA.json OUT.png\n")
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    ops = data["ops"]
    if not ops:
        sys.stderr.write("plot_roofline.py: no operation has both work and DRAM traffic\n")
        return 2
    peak_gops, peak_gbps = data["peak_gops"], data["peak_gbps"]
    xs = [o["ops_per_byte"] for o in ops]
    lo, hi = min(xs + [peak_gops / peak_gbps]) / 4, max(xs + [peak_gops / peak_gbps]) * 4
    fig, ax = plt.subplots(figsize=(8, 5.5))
    ridge = peak_gops / peak_gbps
    ax.plot([lo, ridge], [lo * peak_gbps, peak_gops], color="black", lw=1.2,
            label=f"DRAM peak, {peak_gbps:.1f} GB/s")
    ax.plot([ridge, hi], [peak_gops, peak_gops], color="black", lw=1.2, ls="--",
            label=f"array dense peak, {peak_gops:.0f} GOPS")
    kinds = sorted({o["kind"] for o in ops})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, kind in enumerate(kinds):
        for bound, marker in MARKERS.items():
            pts = [o for o in ops if o["kind"] == kind and o["bound_by"] == bound]
            if pts:
                ax.scatter([o["ops_per_byte"] for o in pts], [o["gops"] for o in pts], marker=marker,
                           color=colours[i % len(colours)], s=28, alpha=0.7,
                           label=f"{kind}, {bound}-bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity, operations per DRAM byte")
    ax.set_ylabel("achieved GOPS")
    title = data.get("title", "roofline")
    if data.get("left_out"):
        title += f"\n({data['left_out']} operations without work or DRAM traffic not drawn)"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
