#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, CPU only) into build-fuzz/ and fuzzes each
# for SECONDS (default 600), JOBS at a time (default: half the cores, at least 1). New interesting
# inputs are merged (minimised) into tests/fuzz/corpus/TARGET; crashes, leaks and timeouts are
# written to tests/fuzz/crashes/TARGET/ and fail the script. CI replays both directories
# (ctest -R FuzzReplay).
#   scripts/fuzz.sh [SECONDS] [TARGET...]    targets: filter_spec kernel_text cli decode http_request serve_config preview_query
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(filter_spec kernel_text cli decode http_request serve_config preview_query)
jobs=${JOBS:-$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))}
command -v clang++ >/dev/null || { echo "clang++ is needed (apt-get install clang)"; exit 1; }
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVF_CUDA=OFF -DVF_FUZZ=ON \
  -DVF_SANITIZE=address,undefined -DVF_BUILD_TESTS=ON >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target $(printf 'vfilter_fuzz_%s ' "${targets[@]}") >/dev/null
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fuzz_one() {
  local t=$1 work
  work=$(mktemp -d)
  mkdir -p "tests/fuzz/crashes/$t"
  echo "== $t: ${seconds} s"
  if ! build-fuzz/vfilter_fuzz_$t "$work" "tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=25 \
       -rss_limit_mb=4096 -max_len=65536 -artifact_prefix="tests/fuzz/crashes/$t/" -print_final_stats=1 \
       >"build-fuzz/fuzz_$t.log" 2>&1; then
    echo "!! $t found a problem: see build-fuzz/fuzz_$t.log and tests/fuzz/crashes/$t/"; tail -30 "build-fuzz/fuzz_$t.log"
    return 1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/fuzz_$t.log" | sed "s/^/   $t /"
  build-fuzz/vfilter_fuzz_$t -merge=1 "tests/fuzz/corpus/$t" "$work" >/dev/null 2>&1
  rm -rf "$work"
}
status=0
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" & running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || status=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
exit $status
