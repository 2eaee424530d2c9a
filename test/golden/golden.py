#!/usr/bin/env python3
"""Golden reports: the simulator's results must not change when only its speed does.

Each group runs a fixed set of eva-sim commands and compares every report with the
one recorded in test/golden/<group>.json.gz, field by field, except the wall-clock
figures (keys ending in "wall_s"). A difference is listed by its path in the report.

  golden.py EVA_SIM GROUP            check one group (exit 1 on any difference)
  golden.py EVA_SIM GROUP --update   record the group's reports anew
  golden.py --list                   the groups

Record anew only when a change of results is intended, and say why in the commit
(scripts/update-expected.sh does this and the gemm figures together).
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

ARCHS = ("sa,ant,figna,figlut,vq-conflict,vq-conflict-free,vq-conflict-rep50,"
         "eva,eva-w3,eva-w4,eva-gptvq,eva-oc1,eva-eu1x4,eva-eu1x32")
PRESETS = ("ideal", "ddr4-3200", "lpddr4-4266", "lpddr5-6400", "hbm2")
PATTERNS = ("seq", "random", "strided", "mix")


def groups():
    g = {}
    for p in PRESETS:
        cases = [["compare", "--model", "llama2-7b", "--phase", "decode", "--archs", ARCHS, "--dram", p]]
        cases += [["compare", "--model", "llama2-7b", "--phase", "decode", "--archs", "sa,figna,figlut,eva",
                   "--dram", p, "--set", "systolic.weight_load=overlapped"]]
        cases += [["dram-bench", "--dram", p, "--pattern", pat] for pat in PATTERNS]
        g[p] = cases
    g["direct"] = [["run", "--arch", a, "--model", "llama2-7b", "--phase", "decode", "--direct", "--dram", d]
                   for a in ("eva", "figlut", "vq-conflict", "sa") for d in ("ideal", "lpddr5-6400")]
    g["e2e"] = [["e2e", "--model", "llama2-7b", "--archs", "eva,figlut,figna", "--requests", "24",
                 "--dram", d] for d in ("ideal", "hbm2")]
    g["e2e"] += [["compare", "--model", "mixtral-8x7b", "--phase", "decode", "--batch", "4",
                  "--archs", "eva,figlut", "--dram", "ddr4-3200"],
                 ["compare", "--model", "llama2-7b", "--phase", "prefill", "--seq-len", "64",
                  "--archs", "eva,sa,figlut", "--dram", "lpddr5-6400"]]
    return g


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if not k.endswith("wall_s")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def diff(a, b, path, out, limit=20):
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: {'missing now' if k not in b else 'new'}")
            else:
                diff(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} entries recorded, {len(b)} now")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out, limit)
    elif a != b or type(a) != type(b):
        out.append(f"{path}: recorded {a!r}, now {b!r}")


def run(eva, args, tmp):
    out = os.path.join(tmp, "r.json")
    subprocess.run([eva, *args, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return strip(json.load(f))


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(groups()))
        return 0
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    eva, group = sys.argv[1], sys.argv[2]
    update = "--update" in sys.argv[3:]
    cases = groups().get(group)
    if cases is None:
        print(f"golden: no group {group!r}", file=sys.stderr)
        return 2
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{group}.json.gz")
    with tempfile.TemporaryDirectory() as tmp:
        reports = {" ".join(c): run(eva, c, tmp) for c in cases}
    if update:
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write(json.dumps(reports, sort_keys=True, indent=0).encode())
        print(f"golden: recorded {len(reports)} reports in {path}")
        return 0
    with gzip.open(path, "rt") as f:
        recorded = json.load(f)
    failed = False
    for key, now in reports.items():
        if key not in recorded:
            print(f"golden: {key}: no recorded report (record with --update)")
            failed = True
            continue
        out = []
        diff(recorded[key], now, "report", out)
        if out:
            failed = True
            print(f"golden: eva-sim {key}: differs from the recorded report:")
            for line in out:
                print("  " + line)
    if not failed:
        print(f"golden: {len(reports)} reports identical to the recorded ones (wall-clock figures aside)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
