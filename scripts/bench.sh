#!/usr/bin/env bash
# Benchmarks, not tests: prints figures, asserts nothing.
# 1. dram-bench for every DRAM preset and pattern: achieved bandwidth, efficiency,
#    mean and p99 latency (simulated figures: deterministic).
# 2. The DRAM model's simulation speed: transactions per wall-clock second on
#    sequential traffic of 32 MiB, the best and the median of 7 runs (wall-clock
#    figures vary with the host's load and clock; the median says how much).
# 3. With valgrind on the machine: instructions per transaction (callgrind), a
#    figure that does not vary with the host (4 MiB of sequential reads,
#    process start-up included).
# 4. EVA: one LLaMA-2-7B decoder layer's seven FC layers in timing mode, and a
#    4096 x 4096 layer in functional mode: simulation wall-clock seconds.
# 5. Whole-model compare and the Dolly e2e, the latter in one process and in
#    one per core (-j).
# 6. The simulator-speed table of docs/PERFORMANCE.md, each row with its goal
#    (direct runs, e2e in both settings, validate, dram-bench rates).
#    scripts/bench.sh --speed runs this section alone.
# Usage: scripts/bench.sh [path/to/eva-sim]   (or: cmake --build build --target eva-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
speed_only=0
if [[ "${1:-}" == "--speed" ]]; then
  speed_only=1
  shift
fi
eva=${1:-$root/build/platform/eva-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Wall-clock seconds of one command (its output discarded).
wall() {
  local start
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)"
}
# The best of three.
best3() {
  local a b c
  a=$(wall "$@"); b=$(wall "$@"); c=$(wall "$@")
  python3 -c "import sys; print(min(map(float, sys.argv[1:])))" "$a" "$b" "$c"
}
# Million transactions per wall-clock second of a dram-bench run, the best of three.
rate3() {
  local best=0 r
  for _ in 1 2 3; do
    "$eva" dram-bench "$@" --json "$tmp/rate.json" >/dev/null
    r=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['transactions_per_wall_s'] / 1e6)" "$tmp/rate.json")
    best=$(python3 -c "import sys; print(f'{max(float(sys.argv[1]), float(sys.argv[2])):.2f}')" "$best" "$r")
  done
  echo "$best"
}

speed_table() {
  local nine=sa,ant,figna,figlut,vq-conflict,eva,eva-w3,eva-w4,eva-gptvq
  echo "## Simulator speed (docs/PERFORMANCE.md)"
  echo
  echo "| run | now | goal |"
  echo "|---|---|---|"
  echo "| run eva llama2-7b decode --direct, ideal | $(best3 "$eva" run --arch eva --model llama2-7b --phase decode --direct --quiet) s | < 0.3 s |"
  echo "| the same on lpddr5-6400 | $(best3 "$eva" run --arch eva --model llama2-7b --phase decode --direct --dram lpddr5-6400 --quiet) s | < 1 s |"
  echo "| e2e llama2-7b, 9 architectures, paper setting | $(wall "$eva" e2e --model llama2-7b --archs "$nine" --quiet) s | < 30 s |"
  echo "| the same, lpddr5-6400 and weight_load=overlapped | $(wall "$eva" e2e --model llama2-7b --archs "$nine" --dram lpddr5-6400 --set systolic.weight_load=overlapped --quiet) s | < 60 s |"
  echo "| validate | $(wall "$eva" validate --quiet) s | < 60 s |"
  echo "| dram-bench ddr4-3200 seq, M transactions per wall s | $(rate3 --dram ddr4-3200 --pattern seq) | >= 5 |"
  echo "| dram-bench ddr4-3200 random, 1 rank, M transactions per wall s | $(rate3 --dram ddr4-3200 --pattern random --set dram.ranks=1) | >= 1.5 |"
}

if ((speed_only)); then
  speed_table
  exit 0
fi
presets=(ideal ddr4-3200 lpddr4-4266 lpddr5-6400 hbm2)

echo "| preset | pattern | GB/s | peak GB/s | efficiency | latency mean ns | latency p99 ns | pJ/bit |"
echo "|---|---|---|---|---|---|---|---|"
for d in "${presets[@]}"; do
  for p in seq random strided mix; do
    "$eva" dram-bench --dram "$d" --pattern "$p" --json "$tmp/r.json" >/dev/null
    python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"| {r['dram']} | {r['pattern']} | {r['bandwidth_gbps']:.2f} | {r['peak_gbps']:.2f} | {100*r['efficiency']:.1f}% "
      f"| {r['latency_ns_mean']:.1f} | {r['latency_ns_p99']:.1f} | {r['energy_pj_per_bit']:.2f} |")
PY
  done
done

echo
echo "| preset | million transactions per wall-clock second, sequential: best | median of 7 |"
echo "|---|---|---|"
for d in "${presets[@]}"; do
  for i in 1 2 3 4 5 6 7; do
    "$eva" dram-bench --dram "$d" --pattern seq --bytes 33554432 --json "$tmp/s$i.json" >/dev/null
  done
  python3 - "$d" "$tmp"/s*.json <<'PY'
import json, statistics, sys
rates = sorted(json.load(open(f))["transactions_per_wall_s"] / 1e6 for f in sys.argv[2:])
print(f"| {sys.argv[1]} | {rates[-1]:.2f} | {statistics.median(rates):.2f} |")
PY
done

if command -v valgrind >/dev/null; then
  echo
  echo "| preset | instructions per transaction (sequential) |"
  echo "|---|---|"
  for d in "${presets[@]}"; do
    n=$(valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$eva" dram-bench --dram "$d" --pattern seq \
          --bytes 4194304 2>&1 | awk '/Collected/ {print $4}')
    python3 -c "import sys; print(f'| {sys.argv[1]} | {int(sys.argv[2]) / 65536:.0f} |')" "$d" "$n"
  done
fi

echo
echo "| EVA workload | cycles | simulation wall-clock s (best of 3) |"
echo "|---|---|---|"
best=""
for _ in 1 2 3; do
  total=0; cycles=0
  for s in "4096 4096" "4096 4096" "4096 4096" "4096 4096" "4096 11008" "4096 11008" "11008 4096"; do
    read -r k n <<<"$s"
    "$eva" gemm --arch eva --m 1 --k "$k" --n "$n" --json "$tmp/l.json" >/dev/null
    read -r c w < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['cycles'], r['sim_wall_s'])" "$tmp/l.json")
    cycles=$((cycles + c)); total=$(python3 -c "print($total + $w)")
  done
  best=$(python3 -c "print(min(float('${best:-1e9}'), $total))")
done
echo "| LLaMA-2-7B decoder layer, 7 FC, batch 1, timing | $cycles | $(python3 -c "print(f'{$best:.3f}')") |"
"$root/scripts/make-vq-npy.py" "$tmp/vq" 1 4096 4096
best=""
for _ in 1 2 3; do
  "$eva" vq-gemv --x "$tmp/vq/x.npy" --codebooks "$tmp/vq/cb.npy" --indices "$tmp/vq/idx.npy" --out "$tmp/vq/y.npy" \
    --json "$tmp/v.json" >/dev/null
  read -r c w < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['cycles'], r['sim_wall_s'])" "$tmp/v.json")
  best=$(python3 -c "print(min(float('${best:-1e9}'), $w))")
done
echo "| 4096 x 4096, AQLM 2x8, batch 1, functional | $c | $(python3 -c "print(f'{$best:.3f}')") |"

echo
echo "## Whole-model runs (wall-clock seconds; issue targets: e2e of 709 requests under 60 s)"
echo
echo "| run | wall s |"
echo "|---|---|"
start=$(date +%s.%N)
"$eva" compare --model llama2-7b --phase decode --quiet >/dev/null
echo "| compare, LLaMA-2-7B decode, 6 archs | $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") |"
for jobs in 1 "$(nproc)"; do
  start=$(date +%s.%N)
  "$eva" e2e --model llama2-7b --archs eva,figlut,sa --quiet -j "$jobs" >/dev/null
  echo "| e2e, LLaMA-2-7B, Dolly (709 requests), eva figlut sa, -j $jobs | $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") |"
done

echo
speed_table
