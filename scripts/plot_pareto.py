#!/usr/bin/env python3
"""Draws the Pareto front of a sweep: one panel per pair of objectives, the
front's points solid and labelled with their swept values, the dominated ones
faded.

    scripts/plot_pareto.py DATA.json OUT.png

DATA.json: {"title": str, "objectives": [{"key", "maximise"}],
            "points": [{"values": [...], "front": bool, "label": str}]}.
eva-sim sweep --plot and eva-sim pareto --plot write DATA.json and run this
same script (compiled into eva-sim). Needs matplotlib (Debian: python3-matplotlib)."""
import itertools
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_pareto.py DATA.json OUT.png\n")
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    objectives = data["objectives"]
    points = data["points"]
    if not points:
        sys.stderr.write("plot_pareto.py: no point has every objective\n")
        return 2
    pairs = list(itertools.combinations(range(len(objectives)), 2))
    fig, axes = plt.subplots(1, len(pairs), figsize=(6.5 * len(pairs), 5.5), squeeze=False)
    fig.suptitle(data.get("title", "Pareto front"))
    for ax, (i, j) in zip(axes[0], pairs):
        dominated = [p for p in points if not p["front"]]
        front = [p for p in points if p["front"]]
        ax.scatter([p["values"][i] for p in dominated], [p["values"][j] for p in dominated],
                   color="tab:gray", alpha=0.25, s=18, label="dominated")
        ax.scatter([p["values"][i] for p in front], [p["values"][j] for p in front],
                   color="tab:red", s=30, label="Pareto front")
        for p in front:
            ax.annotate(p["label"], (p["values"][i], p["values"][j]), fontsize=6,
                        xytext=(3, 3), textcoords="offset points")

        def name(o):
            return o["key"] + (" (higher is better)" if o["maximise"] else " (lower is better)")

        ax.set_xlabel(name(objectives[i]))
        ax.set_ylabel(name(objectives[j]))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
