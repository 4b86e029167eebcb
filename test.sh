#!/usr/bin/env bash
# Installs what is missing, builds everything (warnings are errors) and runs the whole test
# suite with ctest. GPU tests run when a GPU is present and skip with a message otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
scripts/install_deps.sh --test
scripts/build.sh -DVF_WERROR=ON -DVF_BUILD_TESTS=ON
cd "${VF_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" "$@"
