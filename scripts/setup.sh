#!/usr/bin/env bash
# Installs every dependency from Debian's packages, then configures and builds.
# Idempotent: installs only what is missing, rebuilds only what changed.
#   scripts/setup.sh            the release build, in build/
#   scripts/setup.sh --asan     the AddressSanitizer + UBSan build, in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
case "${1:-}" in
  "") ;;
  --asan) preset=asan ;;
  *) echo "usage: scripts/setup.sh [--asan]" >&2; exit 2 ;;
esac

# Why each package is here: docs/DEPENDENCIES.md.
packages=(cmake ninja-build g++ pkg-config libsystemc-dev libboost-dev libboost-program-options-dev
          libyaml-cpp-dev catch2 nlohmann-json3-dev libfmt-dev python3 python3-matplotlib clang-format
          libunicorn-dev gcc-riscv64-unknown-elf clang libclang-rt-dev slurm-wlm munge valgrind)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) == 0 ]] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -- -j"$(nproc)"
