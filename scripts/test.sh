#!/usr/bin/env bash
# The test command: sets up (scripts/setup.sh), builds and runs the whole
# suite, first in the release build, then under AddressSanitizer and UBSan.
#   scripts/test.sh            both builds
#   scripts/test.sh --quick    the release build only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh
ctest --preset release -j"$jobs"
if [[ "${1:-}" != "--quick" ]]; then
  scripts/setup.sh --asan
  ctest --preset asan -j"$jobs"
fi
