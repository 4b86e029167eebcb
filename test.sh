#!/usr/bin/env bash
# Installs what is missing, builds everything (warnings are errors) and runs the whole test
# suite with ctest, then again under the sanitizers (scripts/sanitize.sh). GPU tests run when a GPU is present and skip with a message otherwise.
# Where nvcc is installed, the CPU-only configuration (what a machine without CUDA builds) is
# compiled as well, so it cannot rot: by the sanitizer builds (-DVF_CUDA=OFF), or on its own when
# they are skipped.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
# Each stage's wall time, printed as it ends and again at the end (CI keeps the run within 45
# minutes; the ten slowest tests of a ctest run show where its time went).
stage_times=()
stage_start=$SECONDS
stage_done() {
  stage_times+=("$1 $((SECONDS - stage_start)) s")
  echo "== $1 took $((SECONDS - stage_start)) s (${SECONDS} s so far)"
  stage_start=$SECONDS
}
slowest_tests() {  # build dir: its last ctest run's slowest tests, from ctest's own cost record
  local costs="$1/Testing/Temporary/CTestCostData.txt"
  [ -f "$costs" ] || return 0
  echo "== the slowest tests in $1 (seconds):"
  # awk, not head: head leaving early would end sort with SIGPIPE, and pipefail would fail the run
  awk 'NF == 3 { printf "  %8.1f  %s\n", $3, $1 }' "$costs" | sort -rn | awk 'NR <= 10'
}
failure_digest() {  # build dir: where each failed test of its last run failed, a few lines each
  local log="$1/Testing/Temporary/LastTest.log"
  [ -f "$log" ] || return 0
  # CI shows a run's tail only, so the assertions that failed are repeated here, bounded.
  awk '/^[0-9]+\/[0-9]+ Test: / { name = $3; n = 0; left = 0 }
       left > 0 && n < 18 { buf[n++] = substr($0, 1, 240); left-- }
       / Failure$/ && n < 18 { buf[n++] = substr($0, 1, 240); left = 5 }
       /^Test Failed|^Test Timed|\*\*\*Failed|^Test Not Run/ && name != "" {
         print "== " name " failed:"; for (i = 0; i < n; i++) print "   " buf[i]; name = "" }' "$log" | awk 'NR <= 60'
}
status=0
image_build_pid=""
sanitizer_build_pid=""
trap 'for pid in "$image_build_pid" "$sanitizer_build_pid"; do [ -z "$pid" ] || kill -- -"$pid" 2>/dev/null || true; done
      for d in "${VF_BUILD_DIR:-build}" build-asan build-tsan; do [ "$status" = 0 ] || failure_digest "$d"; done
      echo "== stage times: ${stage_times[*]:-none}; ${SECONDS} s in all"' EXIT
scripts/install_deps.sh --test
scripts/install_python_deps.sh  # the Python module and its tests (docs/python.md)
scripts/install_web_test_deps.sh  # Chromium and playwright-core for serve's page (tests/web)
stage_done "installing"
# The container image (docker/build_image.sh: Debian, FFmpeg and vfilter compiled inside it) takes
# about ten minutes of both cores. It is built in the background at the lowest CPU priority from
# here on, so its downloads and compiles take what the builds and the tests below leave idle; the
# tests on it (ctest label docker) run last, when it is ready. Only for a whole run as root with
# podman (otherwise those tests run, or skip, with the rest).
image_build_pid=""
if [ $# = 0 ] && [ "$(id -u)" = 0 ] && command -v podman >/dev/null && command -v debootstrap >/dev/null; then
  mkdir -p build-docker
  # SCHED_IDLE: it runs only when no test or build wants the CPU (a group of its own, to stop it).
  setsid chrt --idle 0 nice -n 19 docker/build_image.sh >build-docker/background-build.log 2>&1 &
  image_build_pid=$!
fi
scripts/build.sh -DVF_WERROR=ON -DVF_BUILD_TESTS=ON
if [ "${VF_SKIP_SANITIZERS:-0}" = 1 ] && { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  echo "== CPU-only build check (-DVF_CUDA=OFF)"
  cmake -S . -B build-cpu-only -DCMAKE_BUILD_TYPE=Release -DVF_CUDA=OFF -DVF_BUILD_TESTS=OFF -DVF_WERROR=ON >/dev/null
  cmake --build build-cpu-only -j "$(nproc)" --target vfilter >/dev/null
fi
stage_done "building"
# The release tests wait on real time (cameras, servers, timeouts) for much of their run, leaving
# cores idle (docs/architecture.md, "Tests"): the sanitizer trees are built meanwhile at nice 19
# (ahead of the image build's SCHED_IDLE), and one test more than cores runs at once (as under ASan).
if [ "${VF_SKIP_SANITIZERS:-0}" != 1 ]; then
  setsid nice -n 19 scripts/sanitize.sh build >"${VF_BUILD_DIR:-build}/sanitizer-build.log" 2>&1 &
  sanitizer_build_pid=$!
fi
scripts/seed_test_costs.sh "${VF_BUILD_DIR:-build}" tests/ctest_costs/release.txt
later=()
[ -n "$image_build_pid" ] && later=(-LE '^docker$')
(cd "${VF_BUILD_DIR:-build}" && ctest --output-on-failure -j "$(($(nproc) + 1))" "${later[@]}" "$@") || status=$?
slowest_tests "${VF_BUILD_DIR:-build}"
stage_done "testing"
[ "$status" = 0 ] || exit "$status"
# The same suite under AddressSanitizer + UBSan, and the threaded tests under ThreadSanitizer
# (VF_SKIP_SANITIZERS=1 skips them for a quick local run).
if [ "${VF_SKIP_SANITIZERS:-0}" != 1 ]; then
  # A failed background build is built again below, where its errors show.
  wait "$sanitizer_build_pid" || echo "== the background sanitizer build failed: ${VF_BUILD_DIR:-build}/sanitizer-build.log"
  sanitizer_build_pid=""
  stage_done "sanitizer builds' rest"
  scripts/sanitize.sh address || status=$?
  slowest_tests build-asan
  stage_done "AddressSanitizer"
  [ "$status" = 0 ] || exit "$status"
  scripts/sanitize.sh thread || status=$?
  stage_done "ThreadSanitizer"
  [ "$status" = 0 ] || exit "$status"
fi
if [ -n "$image_build_pid" ]; then
  # Its own failure shows again in Docker.BuildAndRunWithPodman, which builds the image itself.
  wait "$image_build_pid" || echo "== the background image build failed: build-docker/background-build.log"
  image_build_pid=""
  (cd "${VF_BUILD_DIR:-build}" && ctest --output-on-failure --no-tests=error -L '^docker$') || status=$?
  stage_done "containers"
  [ "$status" = 0 ] || exit "$status"
fi
