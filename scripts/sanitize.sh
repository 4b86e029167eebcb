#!/usr/bin/env bash
# The sanitizer runs of CI (called by test.sh; also usable alone after scripts/install_deps.sh --test):
#   address  the CPU test suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
#   thread   the threaded pipeline tests under ThreadSanitizer (build-tsan/)
#   build    both trees built, no test run (test.sh builds them in the background while the
#            release tests run; address and thread then find them built)
# Any finding fails the run: ASan/UBSan abort the test that hit it, TSan halts on the first report.
#   scripts/sanitize.sh [address|thread|build|all]   (default all)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
what=${1:-all}
jobs=$(nproc)

# -O1, as the sanitizers' own documentation advises: the build is much faster than at
# RelWithDebInfo's -O2 and the suite runs as fast. -g1 (line tables: the reports still name file
# and line) rather than -g: a UBSan-instrumented file compiles in 30% less time (app/serve/fleet/fleet.cpp:
# 33 s instead of 47 on this project's 2-core test machine).
configure() {  # dir, sanitizers
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DVF_CUDA=OFF \
    -DVF_WERROR=ON -DVF_BUILD_TESTS=ON -DVF_SANITIZE="$2" >/dev/null
}
build_address() { configure build-asan address,undefined && cmake --build build-asan -j "$jobs" >/dev/null; }
build_thread() { configure build-tsan thread && cmake --build build-tsan -j "$jobs" --target vfilter_tests vfilter >/dev/null; }
case $what in address|thread|build|all) ;; *) echo "usage: $0 [address|thread|build|all]" >&2; exit 2 ;; esac
if [ "$what" = build ]; then
  build_address
  build_thread
  exit 0
fi

if [ "$what" = address ] || [ "$what" = all ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: the CPU test suite"
  build_address
  scripts/seed_test_costs.sh build-asan tests/ctest_costs/asan.txt
  # LeakSanitizer is on (ASan's default on Linux); UBSan prints a stack and aborts.
  export ASAN_OPTIONS=abort_on_error=0:halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # One more test than cores: the live tests spend much of their time waiting on their peers.
  # Left out: the byte comparisons with ffmpeg (FATE's lines, FFmpegExact, FFmpegParity), whose
  # time goes to ffmpeg and to frames of photographs; the kernels they compare run here under the
  # sanitizers in their own tests (CpuMatchesReference, the FFmpeg arithmetic's unit tests). And
  # the watch through nine RTSP cameras, whose 40 s are the clips' playing time: serve's watch
  # runs under the sanitizers in ServeWatch.* and ServeClips.*. And the minute of retention on a
  # small disk (Live.ServeRetention...): 543 s of a test slot under ASan in this machine's record
  # (147 in release); its code runs under the sanitizers in RetentionKeeper*,
  # SegmentFiles.Retention* and Live.ServeRecordingOnAFullDisk....
  # The API fuzz (six serve processes kept busy) runs alone afterwards, in 30 s: beside the others
  # it took minutes, and the fleet's tests of leases of seconds starved beside it and saw a stream
  # on two shards at once (measured on 2 cores: 2 runs of 2 beside it, 0 of 2 without it).
  (cd build-asan && ctest --output-on-failure -j "$((jobs + 1))" -L cpu -E '(^|/)(Fate|FFmpegExact|FFmpegParity)\.|^Live\.(WatchedRtsp|ServeRetention)|^ApiFuzz\.')
  (cd build-asan && ctest --output-on-failure --no-tests=error -R '^ApiFuzz\.')
fi
if [ "$what" = thread ] || [ "$what" = all ]; then
  echo "== ThreadSanitizer: queues, thread pool, the multi-frame engine, the HTTP server and client (TLS too), the pipeline end to end"
  build_thread
  TSAN_OPTIONS="suppressions=$here/tests/sanitizers/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
    build-tsan/vfilter_tests --gtest_brief=1 \
    --gtest_filter='PacketTap.*:ClipRecorderTest.*:BatchWindow.*:NvdecGate.*:DecoderMove.*:StreamService.*:HttpServer.*:HttpServerDeferred.*:HttpCallStop.*:HungPeerForward.*:TricklingPeer.*:FleetChangeView.*:HttpServerTls.*:HttpClientTls.*:FrameTap.*:StreamPreview.*:ControlApi.*:ServeConfig.*:Serve.*:CpuFrameEngine.*:PipelineWithFramesInFlight.*:BoundedQueue*:ThreadPool*:EndToEnd.*:*DecoderBuffers*:CpuBackend.Interleaved*:AllFilters/CpuMatchesReference.Exactly/1*'
fi
