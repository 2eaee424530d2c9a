#!/usr/bin/env bash
# Formats every C++ source of the project in place (.clang-format at the root).
#   scripts/format.sh           format in place
#   scripts/format.sh --check   change nothing; list what is not formatted and fail
#                               (exit 77, which ctest counts as skipped, without clang-format)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=(-i)
case "${1:-}" in
  "") ;;
  --check) mode=(--dry-run --Werror) ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
if ! command -v clang-format >/dev/null; then
  echo "format: clang-format is not installed (scripts/setup.sh installs it)" >&2
  exit 77
fi

# The tracked sources and new ones not yet added; a copy without git: every source.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.hpp' | xargs -0 -r clang-format "${mode[@]}"
else
  find models platform workloads test examples \( -name '*.cpp' -o -name '*.hpp' \) -print0 | xargs -0 -r clang-format "${mode[@]}"
fi
