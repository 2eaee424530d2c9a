#!/usr/bin/env bash
# Regenerates test/e2e/expected/gemm.json from the current build. Run it only
# when a change to the model's figures is intended, and say why in the commit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
eva=${1:-$root/build/platform/eva-sim}
out=$root/test/e2e/expected/gemm.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=(
  "gemm --arch sa --m 1 --n 4096 --k 4096"
  "gemm --arch sa --m 1 --n 4096 --k 4096 --set systolic.weight_load=overlapped"
  "gemm --arch sa --m 16 --n 11008 --k 4096 --set systolic.weight_load=scalesim"
  "gemm --arch sa --m 4 --n 1000 --k 1000 --set systolic.weight_load=overlapped --set dram.latency_ns=100 --set dram.bandwidth_gbps=16"
  "gemm --arch sa --m 1500 --n 512 --k 4096 --set systolic.weight_load=overlapped"
  "gemm --arch ant --m 1 --n 4096 --k 4096"
  "gemm --arch figna --m 1 --n 4096 --k 4096"
  "gemm --arch figlut --m 1 --n 4096 --k 4096"
  "gemm --arch figlut --m 64 --n 1000 --k 1000 --set formats.weight_bits=2 --set systolic.weight_load=overlapped"
  "gemm --arch eva --m 1 --n 4096 --k 4096"
  "gemm --arch vq-conflict --m 1 --n 1024 --k 1024"
)
{
  echo '{"cases": ['
  sep=""
  for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    "$eva" $c --json "$tmp/r.json" >/dev/null
    python3 - "$tmp/r.json" "$c" "$sep" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
keep = {k: r[k] for k in ("cycles", "dram_bytes_read", "dram_bytes_written", "dram_bw_utilization", "sram_bank_conflict_cycles", "energy_j")}
print(sys.argv[3] + json.dumps({"args": sys.argv[2].split(), "report": keep}))
PY
    sep=","
  done
  echo ']}'
} >"$tmp/out.json"
mkdir -p "$(dirname "$out")"
python3 -m json.tool "$tmp/out.json" >"$out"
echo "wrote $out"
