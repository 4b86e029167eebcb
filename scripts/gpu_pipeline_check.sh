#!/usr/bin/env bash
# One call on the GPU machine for the streaming pipeline: build vfilter against the
# static FFmpeg carried in .static-ffmpeg (lib, include, bin: scripts/build_static_ffmpeg.sh),
# run every test (the GPU ones included), compute-sanitizer on the GPU stage tests, then time
# `vfilter bench --pipeline` and bench/gpu_pipeline_targets.py on a 1080p30 and a 4K clip.
# Results go to $OUT (or ./gpu-out).
#   scripts/gpu_pipeline_check.sh [tests|bench|sweep|live|kernels|all]   (default all; sweep: streams
#   and NVDEC decoder threads against throughput, to choose the defaults; live: latency of
#   --realtime --low-latency on the GPU path, and SIGINT/SIGKILL during a GPU recording; kernels:
#   only the GPU-labelled tests, the kernel benchmark against NPP and cuDNN; sanitize: memcheck,
#   initcheck, racecheck and synccheck on the whole kernel suite, side by side; repeat: the whole
#   kernel suite REPEATS times (20), shuffled, in SHARDS processes (16) side by side, so that a
#   failure that comes one run in ten shows; kills: SIGKILL at 1.5, 2, 3 and 5 s into GPU and CPU
#   recordings, and what each left behind)
set -uo pipefail
what=${1:-all}
modes="tests|bench|sweep|live|kernels|sanitize|repeat|kills|all"
case "|$modes|" in *"|$what|"*) ;; *) echo "usage: $0 [$modes]"; exit 2;; esac
out=${OUT:-gpu-out}
mkdir -p "$out"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
. scripts/use_static_ffmpeg.sh .static-ffmpeg || exit 1
full=$PWD/build-device  # ignored; kept between calls while the machine stays warm
t0=$(date +%s)
# OpenSSL: the machine's own where it has the headers, else the static one carried beside FFmpeg.
openssl_args=()
if [ ! -f /usr/include/openssl/ssl.h ] && [ -d .static-ffmpeg/openssl ]; then
  openssl_args=(-DOPENSSL_ROOT_DIR="$PWD/.static-ffmpeg/openssl" -DOPENSSL_USE_STATIC_LIBS=TRUE)
  echo "OpenSSL: no headers here; linking the static one carried in .static-ffmpeg/openssl"
fi
cmake -S . -B $full -DCMAKE_BUILD_TYPE=Release -DVF_FFMPEG_STATIC=ON -DVF_WERROR=ON "${openssl_args[@]}" >"$out/build.log" 2>&1 &&
  cmake --build $full -j "$(nproc)" >>"$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
if [ "$what" = kernels ]; then
  echo "== GPU-labelled tests (kernels, GPU end to end, out of memory, lost context)"
  (cd $full && ctest -L gpu -j 8 --timeout 600 >"$out/ctest_gpu.log" 2>&1)
  grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run" "$out/ctest_gpu.log" | head -30
  (cd $full && ctest -R GpuFault --output-on-failure -V 2>&1 | grep -E "GPU context broken|Failure|error|Expected|Which is" | head -10)
  echo "== kernel benchmark (vfilter variants, NPP, floor)"
  $full/vfilter_gpu_bench --json "$out/gpu_bench.json" >"$out/gpu_bench.txt" 2>&1
  grep -E "device:|copy|sobel|dense (3|5|7)x|auto " "$out/gpu_bench.txt" | grep -vE "naive|constant" | head -60
  echo "== cuDNN, timed like the benchmark"
  PYTHONUNBUFFERED=1 timeout 200 python3 bench/cudnn_anchor.py >"$out/cudnn_anchor.txt" 2>&1
  grep -E "dense (3|5|7)x" "$out/cudnn_anchor.txt"
  # compute-sanitizer: the `sanitize` mode, in a call of its own (this one takes about 7 minutes
  # on an H100 without it; the device tool allows 10 a call).
  echo "== the GPU stage with the new kernels (vfilter bench --pipeline)"
  $full/vfilter bench --pipeline --size 1920x1080 --size 3840x2160 --filter identity --filter sobel \
    --filter gaussian=sigma=3.2 >"$out/bench_pipeline.txt" 2>&1
  tail -8 "$out/bench_pipeline.txt"
  if [ -f .device/anchors.py ]; then
    echo "== anchors (../shared/anchors/anchors.py, carried in .device)"
    PYTHONUNBUFFERED=1 timeout 200 python3 .device/anchors.py >"$out/anchors.txt" 2>&1
    tail -25 "$out/anchors.txt"
  fi
  exit 0
fi
if [ "$what" = sanitize ]; then
  # Each tool runs the whole kernel suite, split over SANITIZER_SHARDS processes (3; racecheck
  # RACECHECK_SHARDS, 6) so that every one ends in time; mostly host-bound, so they share the GPU.
  # initcheck: reads of device memory nobody wrote (a table read before its upload landed).
  for tool in memcheck initcheck racecheck synccheck; do
    # racecheck is the slowest: 6 shards end within the call's limit where 3 did not.
    n=${SANITIZER_SHARDS:-3}; [ $tool = racecheck ] && n=${RACECHECK_SHARDS:-6}
    for i in $(seq 0 $((n - 1))); do
      ( s=$(date +%s)
        GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout 560 compute-sanitizer --tool $tool --error-exitcode 99 \
          $full/vfilter_gpu_tests --gtest_brief=1 >"$out/sanitize_${tool}_$i.txt" 2>&1
        echo "$tool shard $i of $n exit $? in $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests ran|PASSED|FAILED' "$out/sanitize_${tool}_$i.txt" | tr '\n' ' ')" ) &
    done
  done
  wait
  exit 0
fi
if [ "$what" = repeat ]; then
  # The whole kernel suite REPEATS times in a row, in a new random order each time
  # (--gtest_shuffle; the seed of each iteration is printed), each test in one of SHARDS processes.
  n=${SHARDS:-16} repeats=${REPEATS:-20}
  s=$(date +%s)
  for i in $(seq 0 $((n - 1))); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout ${REPEAT_TIMEOUT:-480} $full/vfilter_gpu_tests --gtest_brief=1 --gtest_shuffle \
      --gtest_repeat=$repeats >"$out/repeat_$i.txt" 2>&1 &
  done
  failed=0
  for job in $(jobs -p); do wait $job || failed=$((failed + 1)); done
  cat "$out"/repeat_*.txt >"$out/repeat.txt"
  echo "repeat: $repeats iterations in $n shards, $(( $(date +%s) - s )) s: $failed shards failed;" \
    "$(grep -c 'PASSED' "$out/repeat.txt") shard iterations passed, $(grep -c 'FAILED TEST' "$out/repeat.txt") failed"
  grep -B2 -A6 "Failure" "$out/repeat.txt" | head -40
  rm -f "$out"/repeat_*.txt
  exit 0
fi
if [ "$what" = kills ]; then
  # SIGKILL at 1.5, 2, 3 and 5 s into a --realtime recording (fragmented MP4), on the GPU and the
  # CPU: the output must decode without one error line, or be absent (OUT.partial alone, killed
  # before its first fragment was written). Also when the output first appeared under its name.
  [ -f /tmp/live1080.mp4 ] || ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 10 -c:v libx264 \
    -preset veryfast -bf 0 -g 60 /tmp/live1080.mp4
  for dev in cuda cpu; do
    for t in 1.5 2 3 5; do
      rec=/tmp/kill_${dev}_$t.mp4; rm -f $rec $rec.partial /tmp/appeared
      start=$EPOCHREALTIME
      $full/vfilter -q -i /tmp/live1080.mp4 --realtime --device $dev -f sobel -o $rec -y & pid=$!
      ( while [ ! -f $rec ]; do sleep 0.02; done; awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $start }" >/tmp/appeared ) &
      watcher=$!
      sleep $t; kill -KILL $pid; wait $pid 2>/dev/null
      kill $watcher 2>/dev/null; wait $watcher 2>/dev/null
      appeared=$(cat /tmp/appeared 2>/dev/null)
      if [ -f $rec ]; then
        frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 $rec 2>&1)
        errors=$(ffmpeg -nostdin -v error -i $rec -c:v rawvideo -f nut -y /dev/null 2>&1 | wc -l)
        echo "$dev SIGKILL at $t s: $rec kept (under its name from ${appeared:-?} s), $frames frames decode, $errors decoder error lines"
      else
        echo "$dev SIGKILL at $t s: no $rec (OUT.partial $( [ -f $rec.partial ] && echo present || echo absent)): killed before its first fragment"
      fi
    done
  done | tee "$out/kills.txt"
  exit 0
fi
if [ "$what" = tests ] || [ "$what" = all ]; then
  echo "== tests"
  (cd $full && ctest -j 12 --timeout 600 >"$out/ctest.log" 2>&1)
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | grep -v Skipped | head -30
  echo "== compute-sanitizer on the GPU stage tests"
  for tool in memcheck racecheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 $full/vfilter_gpu_e2e_tests --gtest_brief=1 \
      --gtest_filter='Streams/GpuStage.*' >"$out/sanitizer_$tool.txt" 2>&1
    echo "$tool exit $? : $(grep -E 'ERROR SUMMARY|tests ran|PASSED' "$out/sanitizer_$tool.txt" | tr '\n' ' ')"
  done
fi
# Environment: CLIPS (default "1080 4k"), CLIP_SECONDS (default 10 for 1080p, 5 for 4K), RUNS (2).
clips=${CLIPS:-1080 4k}
make_clips() {
  for c in $clips; do
    [ -f /tmp/clip$c.mp4 ] && continue
    if [ $c = 1080 ]; then scripts/make_test_clip.sh /tmp/clip1080.mp4 1920x1080 "${CLIP_SECONDS:-10}" 30 >/dev/null
    else scripts/make_test_clip.sh /tmp/clip4k.mp4 3840x2160 "${CLIP_SECONDS:-5}" 30 >/dev/null; fi
  done
}
fps() {  # runs vfilter with "$@" and prints sustained and average fps
  $full/vfilter -q "$@" --stats-json /tmp/s.json >/dev/null 2>&1 &&
    python3 -c "import json;d=json.load(open('/tmp/s.json'));print(f\"{d['sustained_fps']:.1f} sustained, {d['average_fps']:.1f} average\")"
}
if [ "$what" = live ] || [ "$what" = tests ]; then
  echo "== live: --realtime --low-latency, 1080p30, 10 s (latency from packet read to packet written)"
  # Like a camera's stream: no B-frames (their reordering would add up to 3 frames of delay
  # before vfilter sees a frame; measured: p50 100 ms instead of 8 ms).
  [ -f /tmp/live1080.mp4 ] || ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 10 -c:v libx264 \
    -preset veryfast -bf 0 -g 60 /tmp/live1080.mp4
  for dev in "--device cpu" "--device cuda --hwdec none" "--device cuda --hwdec cuda"; do
    for f in sobel gaussian=sigma=3.2; do
      $full/vfilter -q -i /tmp/live1080.mp4 --realtime --low-latency -f $f $dev -o /tmp/live.mp4 -y --stats-json /tmp/l.json
      python3 -c "import json;d=json.load(open('/tmp/l.json'));l=d['latency_ms'];print(f\"$dev -f $f: p50 {l['p50']:.1f} ms, p99 {l['p99']:.1f} ms, {d['frames_out']} out, {d['frames_dropped']} dropped\")"
    done
  done | tee "$out/live_latency.txt"
  echo "== live: SIGINT and SIGKILL during a GPU recording (fragmented MP4)"
  for sig in INT KILL; do
    $full/vfilter -q -i /tmp/live1080.mp4 --realtime --device cuda -f sobel -o /tmp/rec_$sig.mp4 -y & pid=$!
    sleep 3; kill -$sig $pid; wait $pid; code=$?
    frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 /tmp/rec_$sig.mp4 2>&1)
    errors=$(ffmpeg -nostdin -v error -i /tmp/rec_$sig.mp4 -c:v rawvideo -f nut -y /dev/null 2>&1 | wc -l)
    echo "SIG$sig after 3 s: exit $code, $frames frames decode, $errors decoder error lines"
  done | tee "$out/live_signals.txt"
  [ "$what" = live ] && exit 0
fi
[ "$what" = tests ] && exit 0
if [ "$what" = sweep ]; then
  for s in 2 3 4 6 8 12; do
    echo "== bench --pipeline, $s streams"
    $full/vfilter bench --pipeline --gpu-streams $s --size 1920x1080 --size 3840x2160 --filter identity --filter sobel \
      --filter gaussian=sigma=3.2 2>&1 | tail -6
  done | tee "$out/sweep_streams.txt"
  make_clips
  for c in 1080 4k; do
    for t in 1 2 4 8; do echo "clip$c decode only, NVDEC, $t decoder threads: $(fps -i /tmp/clip$c.mp4 --hwdec cuda --decoder-threads $t -o null)"; done
    echo "clip$c decode only, CPU: $(fps -i /tmp/clip$c.mp4 --hwdec none -o null)"
  done | tee "$out/sweep_nvdec_threads.txt"
  exit 0
fi
[ -n "${SKIP_PIPELINE_BENCH:-}" ] || {
echo "== vfilter bench --pipeline"
$full/vfilter bench --pipeline --size 1920x1080 --size 3840x2160 --json "$out/bench_pipeline.json" 2>&1 | tee "$out/bench_pipeline.txt"
}
echo "== clips"
make_clips
for c in $clips; do
  echo "== targets, clip $c"
  python3 bench/gpu_pipeline_targets.py /tmp/clip$c.mp4 --runs "${RUNS:-2}" --vfilter $full/vfilter --ffmpeg ffmpeg \
    --json "$out/targets_$c.json" 2>&1 | tee "$out/targets_$c.txt"
done
