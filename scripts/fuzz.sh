#!/usr/bin/env bash
# Fuzzing (docs/TESTING.md): builds the libFuzzer harnesses (the `fuzz` preset:
# clang, ASan and UBSan, in build-fuzz/) and runs them one after the other,
# each for SECONDS (default 60) on a scratch copy of its seed corpus and of its
# past findings (test/fuzz/corpus/<harness>/, test/fuzz/regressions/<harness>/),
# so that nothing is written into the repository.
#   scripts/fuzz.sh [SECONDS] [HARNESS ...]   every harness, or the ones named
#   JOBS=N scripts/fuzz.sh ...                N parallel build jobs (default: the cores)
# Prints per harness the executions reached, executions per second and whether
# it found anything. A finding's input is saved in build-fuzz/findings/<harness>/
# (crash-*, leak-*, timeout-*, oom-*) with the fuzzer's log beside it, and the
# script exits 1 once every harness has run.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/fuzz.sh [seconds] [harness ...]" >&2; exit 2; }
seconds=60
if (($#)); then
  [[ $1 =~ ^[1-9][0-9]*$ ]] || usage
  seconds=$1
  shift
fi
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
  for dir in test/fuzz/corpus/*/; do harnesses+=("$(basename "$dir")"); done
fi
for h in "${harnesses[@]}"; do
  [[ -d test/fuzz/corpus/$h ]] || { echo "fuzz: unknown harness '$h' (one per folder of test/fuzz/corpus/)" >&2; exit 2; }
done

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -- -j"${JOBS:-$(nproc)}"

root=$PWD
scratch=$(mktemp -d "${TMPDIR:-/tmp}/eva-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
found=()
printf '%-12s %12s %9s  %s\n' harness executions exec/s result
for h in "${harnesses[@]}"; do
  work=$scratch/$h
  mkdir -p "$work/corpus"
  cp test/fuzz/corpus/"$h"/* "$work/corpus/"
  if [[ -d test/fuzz/regressions/$h ]]; then
    for f in test/fuzz/regressions/"$h"/*; do cp "$f" "$work/corpus/regression-$(basename "$f")"; done
  fi
  out=$root/build-fuzz/findings/$h
  mkdir -p "$out"
  log=$out/fuzz.log
  # Each input must finish within -timeout seconds; -rss_limit_mb bounds memory.
  status=0
  (cd "$work" && "$root/build-fuzz/test/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
     -print_final_stats=1 -artifact_prefix="$out/" corpus) >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if [[ -z $execs ]]; then  # ended by a finding: the last progress line
    execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  fi
  if ((status == 0)); then
    result="nothing found"
  else
    artifact=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //')
    what="exit $status"  # the most telling line of the report
    for pattern in '^fuzz: ' '^terminate called' 'runtime error: ' '^==[0-9]+==ERROR: ' '^SUMMARY: '; do
      line=$(grep -m1 -E "$pattern" "$log" || true)
      if [[ -n $line ]]; then what=$line; break; fi
    done
    result="FOUND: $what -> ${artifact:-see $log}"
    found+=("$h")
  fi
  printf '%-12s %12s %9s  %s\n' "$h" "${execs:-?}" "${rate:-?}" "$result"
done
if ((${#found[@]})); then
  echo "fuzz: findings in ${found[*]} (inputs and logs in build-fuzz/findings/)" >&2
  exit 1
fi
