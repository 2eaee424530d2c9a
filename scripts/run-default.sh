#!/usr/bin/env bash
# The default job: sets up (scripts/setup.sh), then compares every built-in
# architecture on one decode step of LLaMA-2-7B (batch 1, 128 cached tokens) in
# the paper's setting (ideal DRAM at 64 GB/s, systolic.weight_load=paper) and
# in a realistic one (LPDDR5-6400, double-buffered weights). Reports go to
# results/default/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
eva=build/platform/eva-sim
out=results/default
mkdir -p "$out"
"$eva" compare --model llama2-7b --phase decode --json "$out/compare-paper.json" --csv "$out/compare-paper.csv"
echo
"$eva" compare --model llama2-7b --phase decode --dram lpddr5-6400 --set systolic.weight_load=overlapped \
  --json "$out/compare-lpddr5.json" --csv "$out/compare-lpddr5.csv"
echo "reports: $out/"
