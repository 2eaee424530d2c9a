#!/usr/bin/env python3
"""Plots an eva-sim compare or e2e report: latency, energy per token by module,
and the speedup and energy efficiency against a baseline.

    scripts/plot_compare.py compare.json out.png

eva-sim compare --plot FILE.png runs this same script (compiled into eva-sim).
Needs matplotlib (Debian: python3-matplotlib)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_compare.py REPORT.json OUT.png\n")
        return 2
    with open(argv[1]) as f:
        report = json.load(f)
    results = report["results"]
    log_latency = report.get("plot", {}).get("latency_axis") == "log"
    if not results:
        sys.stderr.write("plot_compare.py: the report has no results\n")
        return 2
    archs = [r["arch"] for r in results]
    first = results[0]
    config = first.get("config", {})
    dram = config.get("dram", {}).get("preset", "?")
    weight_load = config.get("systolic", {}).get("weight_load", "?")
    title = f"{first.get('model', '?')} {first.get('phase', '?')} on {dram} DRAM ({weight_load})"
    baseline = next((b for b in ("figlut", "sa") if b in archs), None)

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    fig.suptitle(title)
    x = range(len(archs))

    # Latency on a linear axis from zero, so that bar heights compare as the
    # times do (a log axis made a 17% gap look like an order of magnitude;
    # it is drawn only on request, `--plot-log`);
    # each bar is labelled with its value, which keeps small bars readable.
    ax = axes[0]
    latency_ms = [r["seconds"] * 1e3 for r in results]
    bars = ax.bar(x, latency_ms, color="tab:blue")
    if log_latency:  # on request (--plot-log): times that span decades
        ax.set_yscale("log")
        ax.set_ylabel("total time (ms, log scale)")
    else:
        ax.set_ylim(bottom=0)
        ax.set_ylabel("total time (ms)")
    ax.bar_label(bars, labels=[f"{v:.3g}" for v in latency_ms], fontsize=8)

    # Energy per token, stacked by module.
    ax = axes[1]
    modules = []
    for r in results:
        for m in r.get("energy_breakdown_j", {}):
            if m not in modules:
                modules.append(m)
    bottom = [0.0] * len(results)
    for m in modules:
        mj = [r.get("energy_breakdown_j", {}).get(m, 0.0) / max(r.get("tokens", 1), 1) * 1e3 for r in results]
        ax.bar(x, mj, bottom=bottom, label=m)
        bottom = [b + v for b, v in zip(bottom, mj)]
    ax.set_ylabel("energy per token (mJ)")
    ax.legend(fontsize=7, loc="best")

    # Ratios against the baseline.
    ax = axes[2]
    if baseline:
        speedup = [r.get(f"speedup_vs_{baseline}", 0.0) for r in results]
        efficiency = [r.get(f"energy_efficiency_vs_{baseline}", 0.0) for r in results]
        w = 0.4
        b1 = ax.bar([i - w / 2 for i in x], speedup, w, label="speedup")
        b2 = ax.bar([i + w / 2 for i in x], efficiency, w, label="energy efficiency")
        ax.bar_label(b1, labels=[f"{v:.2f}" for v in speedup], fontsize=7)
        ax.bar_label(b2, labels=[f"{v:.2f}" for v in efficiency], fontsize=7)
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel(f"x over {baseline}")
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no sa or figlut to compare with", ha="center", va="center", transform=ax.transAxes)

    for ax in axes:
        ax.set_xticks(list(x))
        ax.set_xticklabels(archs, rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(argv[2], format="png", dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
