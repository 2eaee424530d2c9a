#!/usr/bin/env bash
# Checks the model as an installed library: installs the build into a
# temporary prefix, then configures, builds and runs examples/consumer against
# that prefix (never the build tree). The consumer links EvaVP::models only, so
# it must not pull in yaml-cpp or Boost.ProgramOptions, and its GEMM must take
# as many cycles as eva-sim's for the same problem.
#   scripts/check-consumer.sh [build dir]   default: build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Quiet unless a step fails; then its whole output.
step() {
  if ! "$@" >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    echo "check-consumer: failed: $*" >&2
    exit 1
  fi
}
step cmake --install "$build" --prefix "$tmp/prefix"
step cmake -S examples/consumer -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
step cmake --build "$tmp/build" -- -j"$(nproc)"

if ldd "$tmp/build/gemm_cycles" | grep -E 'yaml-cpp|program_options'; then
  echo "check-consumer: the consumer of EvaVP::models links a YAML or command-line library" >&2
  exit 1
fi

shape=(1 4096 4096)
out=$("$tmp/build/gemm_cycles" eva ddr4-3200 "${shape[@]}")
echo "$out"
cycles=$(sed -n 's/.* took \([0-9]*\) cycles$/\1/p' <<<"$out")
expected=$("$build/platform/eva-sim" gemm --arch eva --dram ddr4-3200 --m "${shape[0]}" --n "${shape[1]}" \
           --k "${shape[2]}" | sed -n 's/.*: \([0-9]*\) cycles,.*/\1/p')
if [[ -z "$cycles" || "$cycles" != "$expected" ]]; then
  echo "check-consumer: the consumer's GEMM took '${cycles}' cycles, eva-sim's '${expected}'" >&2
  exit 1
fi
echo "check-consumer: ok (installed package, EvaVP::models only, cycles equal eva-sim's)"
