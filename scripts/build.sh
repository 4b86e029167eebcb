#!/usr/bin/env bash
# Configures and builds vfilter in Release into build/ (or $VF_BUILD_DIR). Extra arguments go
# to cmake, e.g. scripts/build.sh -DVF_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VF_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
