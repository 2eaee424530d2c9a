#!/usr/bin/env bash
# The test command: sets up (scripts/setup.sh), builds and runs the whole
# suite, first in the release build (then checks the installed package with
# scripts/check-consumer.sh), then under AddressSanitizer and UBSan, then runs
# every fuzz harness for 20 seconds (scripts/fuzz.sh, docs/TESTING.md).
#   scripts/test.sh            all of it
#   scripts/test.sh --quick    the release build only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh
ctest --preset release -j"$jobs"
scripts/check-consumer.sh build
if [[ "${1:-}" != "--quick" ]]; then
  scripts/setup.sh --asan
  ctest --preset asan -j"$jobs"
  scripts/fuzz.sh 20
fi
