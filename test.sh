#!/usr/bin/env bash
# Installs what is missing, builds everything (warnings are errors) and runs the whole test
# suite with ctest, then again under the sanitizers (scripts/sanitize.sh). GPU tests run when a GPU is present and skip with a message otherwise.
# Where nvcc is installed, the CPU-only configuration (what a machine without CUDA builds) is
# compiled as well, so it cannot rot.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
scripts/install_deps.sh --test
scripts/install_python_deps.sh  # the Python module and its tests (docs/python.md)
scripts/install_web_test_deps.sh  # Chromium and playwright-core for serve's page (tests/web)
scripts/build.sh -DVF_WERROR=ON -DVF_BUILD_TESTS=ON
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "== CPU-only build check (-DVF_CUDA=OFF)"
  cmake -S . -B build-cpu-only -DCMAKE_BUILD_TYPE=Release -DVF_CUDA=OFF -DVF_BUILD_TESTS=OFF -DVF_WERROR=ON >/dev/null
  cmake --build build-cpu-only -j "$(nproc)" --target vfilter >/dev/null
fi
(cd "${VF_BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)" "$@")
# The same suite under AddressSanitizer + UBSan, and the threaded tests under ThreadSanitizer
# (VF_SKIP_SANITIZERS=1 skips them for a quick local run).
if [ "${VF_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/sanitize.sh all
fi
