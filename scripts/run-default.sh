#!/usr/bin/env bash
# The default job: sets up (scripts/setup.sh), then runs a comparison on a
# built-in model. Today that is the plain systolic array (`sa`) on the seven FC
# layers of one LLaMA-2-7B decoder layer at batch 1 (shapes from
# workloads/models/llama2-7b.yaml: hidden 4096, FFN 11008), under each
# systolic.weight_load convention and the paper's 64 GB/s DRAM: how much the
# baseline's latency depends on the weight-loading assumption. Reports go to
# results/default/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
eva=build/platform/eva-sim
out=results/default
mkdir -p "$out"

layers=("q_proj 4096 4096" "k_proj 4096 4096" "v_proj 4096 4096" "o_proj 4096 4096"
        "gate_proj 4096 11008" "up_proj 4096 11008" "down_proj 11008 4096")
printf '%-11s %-10s %12s %12s %8s\n' layer weight_load cycles us "DRAM %"
for mode in paper scalesim overlapped; do
  total=0
  for l in "${layers[@]}"; do
    read -r name k n <<<"$l"
    "$eva" gemm --arch sa --m 1 --k "$k" --n "$n" --set systolic.weight_load="$mode" \
      --json "$out/sa-$mode-$name.json" >/dev/null
    read -r cycles us util < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
print(r['cycles'], round(r['seconds']*1e6,1), round(100*r['dram_bw_utilization'],1))" "$out/sa-$mode-$name.json")
    printf '%-11s %-10s %12d %12s %8s\n' "$name" "$mode" "$cycles" "$us" "$util"
    total=$((total + cycles))
  done
  printf '%-11s %-10s %12d %12s\n\n' "layer" "$mode" "$total" "$(python3 -c "print(round($total/500,1))")"
done
echo "reports: $out/"
