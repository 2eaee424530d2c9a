#!/usr/bin/env bash
# Formats every C++ source of the project in place (.clang-format at the root).
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.cpp' '*.hpp' | xargs clang-format -i
