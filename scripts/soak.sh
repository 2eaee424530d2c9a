#!/usr/bin/env bash
# The long soak (docs/ARCHITECTURE.md, "The soak"): builds eva-soak in the
# AddressSanitizer + UBSan preset (build-asan/) and runs COUNT random
# descriptors, valid and invalid, spread evenly over every built-in
# architecture, each through its register interface, from SEED. Prints each
# architecture's summary and the totals; exit 1 if any check failed (the
# failing architecture's output says how to replay it).
#   scripts/soak.sh [count] [seed]      defaults: 10000 descriptors, seed 1
#   JOBS=N scripts/soak.sh ...          build with N jobs (default: the cores)
set -euo pipefail
cd "$(dirname "$0")/.."

count=${1:-10000}
seed=${2:-1}
if ! [[ $count =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/soak.sh [count] [seed]" >&2
  exit 2
fi

cmake --preset asan >/dev/null
cmake --build --preset asan --target eva-soak -- -j"${JOBS:-$(nproc)}"
soak=build-asan/test/soak/eva-soak
# As the asan test preset (CMakePresets.json): leaks are findings; SystemC's
# coroutine stacks are not walked; any undefined behaviour stops the run.
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=use_stacks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

mapfile -t archs < <("$soak" --list-archs)
n=${#archs[@]}
failed=()
start=$(date +%s)
for i in "${!archs[@]}"; do
  # count / n each, the remainder to the first ones.
  share=$((count / n + (i < count % n ? 1 : 0)))
  ((share > 0)) || continue
  if ! "$soak" --arch "${archs[$i]}" --seed "$seed" --count "$share"; then
    failed+=("${archs[$i]}")
  fi
done
echo "soak: $count descriptors over $n architectures, seed $seed, $(($(date +%s) - start)) s under ASan/UBSan"
if ((${#failed[@]})); then
  echo "soak: FAILED on ${failed[*]}" >&2
  exit 1
fi
echo "soak: every check passed"
