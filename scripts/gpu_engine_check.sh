#!/usr/bin/env bash
# The GPU engine measured on the GPU machine (docs/benchmarks.md: "serve on several GPUs", "Filter
# changes", "GPU kernels"). Builds vfilter against the carried static FFmpeg (.static-ffmpeg, as
# scripts/gpu_pipeline_check.sh does) into build-device/, then:
#   tests    every GPU-labelled test (the kernel suite, the pipeline and serve on every GPU, the
#            memory tests: out of memory, 200 filter changes) and serve's tests with the GPU present
#   e2e      the GPU end-to-end tests (the pipeline, serve on every GPU, auto's bytes in fresh
#            processes), the memory tests and serve's tests with the GPU present: the tests a
#            machine of several GPUs adds to the kernel suite
#   gpus     vfilter serve with NS streams (32) of a 60 s 1080p30 clip, gaussian=sigma=3.2 to null on
#            NVDEC, --gpus 0 then --gpus all, for the camera-like clip (4 Mb/s) and the noisy one
#            (about 80 Mb/s); every stream's frames counted
#   churn    bench/serve_filter_churn.py: 4 streams at their own pace, 240 filter changes over 36 s,
#            the serve process's GPU memory before, during and after
#   kernels  the kernel benchmark of this tree against the tree in BASE (default .device/base, a
#            kernels-only copy of the commit before), both kernels-only builds, run base, new, base,
#            new; bench/compare_gpu_bench.py compares every auto row (fastest of each pair)
#   repeat   the kernel suite REPEATS times (5), shuffled, in 16 processes side by side
#   sanitize memcheck, initcheck, racecheck and synccheck on the whole kernel suite, side by side
#   build    build both (the kernels alone, and everything against the static FFmpeg), nothing else
#   soak     bench/soak.sh with CAMERAS (8) GPU streams for MINUTES (8), LOAD busy loops (0) and
#            MEMORY_PRESSURE MiB held (0) beside serve: ffmpeg cameras over TCP (no GStreamer
#            there), GPU and page-locked memory sampled; needs STATIC_FFMPEG built with --profile
#            container (TCP, and an ffmpeg to be the cameras; the container image's build stage
#            builds one at /opt/ffmpeg). A soak longer than one device command (10 minutes) runs with DETACH=1: it starts
#            in a session of its own and the command returns; `soak-wait` on the same warm machine
#            waits up to WAIT seconds (570) for it and then copies its results to $OUT.
# STATIC_FFMPEG names the carried FFmpeg (default .static-ffmpeg). PYTHON=1 builds the Python
# module against PyTorch's pybind11 too, and `tests` then runs tests/python there.
# (kernels, repeat and sanitize build the kernels alone, without FFmpeg, into /tmp/vf-new.)
# Results under $OUT (or gpu-out/); raw files under /tmp/vf-engine.
set -uo pipefail
# serve with the serve: block's settings given as flags (scripts/serve_with_settings.sh).
vs=$(dirname "$0")/serve_with_settings.sh
mode=${1:-tests}
case $mode in build|tests|e2e|gpus|churn|kernels|repeat|sanitize|soak|soak-wait) ;; *) echo "usage: $0 [build|tests|e2e|gpus|churn|kernels|repeat|sanitize|soak|soak-wait]"; exit 2 ;; esac
out=${OUT:-gpu-out}; raw=/tmp/vf-engine; mkdir -p "$out" $raw
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
copy_soak_results() { cp $raw/soak_gpu.json $raw/soak_gpu.txt "$out/" 2>/dev/null; tail -30 $raw/soak/serve.log >"$out/soak_serve_log_tail.txt" 2>/dev/null; }
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; nproc; } >"$out/machine_$mode.txt" 2>&1
cat "$out/machine_$mode.txt"
new=/tmp/vf-new
build_new() {
  cmake -S . -B $new -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_BUILD_TESTS=ON -DVF_WERROR=ON >$raw/new.log 2>&1 &&
    cmake --build $new -j "$(nproc)" --target vfilter_gpu_bench vfilter_gpu_tests >>$raw/new.log 2>&1 || { grep -E "error" $raw/new.log | head; exit 1; }
}
if [ $mode = kernels ]; then
  base=${BASE:-.device/base}
  cmake -S $base -B /tmp/vf-base -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_BUILD_TESTS=OFF >$raw/base.log 2>&1 &&
    cmake --build /tmp/vf-base -j "$(nproc)" --target vfilter_gpu_bench >>$raw/base.log 2>&1 || { grep -E "error" $raw/base.log | head; exit 1; }
  build_new
  el "built base and new"
  for run in 1 2; do
    /tmp/vf-base/vfilter_gpu_bench --json "$out/bench_base_$run.json" >$raw/bench_base_$run.txt 2>&1; el "base run $run exit $?"
    $new/vfilter_gpu_bench --json "$out/bench_new_$run.json" >"$out/bench_new_$run.txt" 2>&1; el "new run $run exit $?"
  done
  python3 bench/compare_gpu_bench.py "$out"/bench_base_*.json -- "$out"/bench_new_*.json | tee "$out/bench_compare.txt"
  grep "auto runs" "$out/bench_new_1.txt" >"$out/bench_auto_rows.txt"
  exit 0
fi
if [ $mode = repeat ]; then
  [ -x $new/vfilter_gpu_tests ] || build_new
  n=16 repeats=${REPEATS:-5}
  for i in $(seq 0 $((n - 1))); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout 480 $new/vfilter_gpu_tests --gtest_brief=1 --gtest_shuffle \
      --gtest_repeat=$repeats >$raw/repeat_$i.txt 2>&1 &
  done
  failed=0
  for job in $(jobs -p); do wait $job || failed=$((failed + 1)); done
  cat $raw/repeat_*.txt | grep -E "^\[  (PASSED|FAILED)|Failure" | sort | uniq -c | tee "$out/repeat.txt"
  el "kernel suite x$repeats shuffled, 16 shards: $failed shards failed"
  exit 0
fi
if [ $mode = build ]; then build_new; el "built the kernels alone"; fi
if [ $mode = sanitize ]; then
  [ -x $new/vfilter_gpu_tests ] || build_new
  # TOOLS and SHARDS_<tool> ("TOTAL:I,J,...") pick a part, e.g. the shards that ran out of time
  # last: TOOLS=racecheck SHARDS_racecheck=24:0,6,12,18 (shard 0 of 6 is 0, 6, 12 and 18 of 24).
  for tool in ${TOOLS:-memcheck initcheck racecheck synccheck}; do
    n=3; [ $tool = racecheck ] && n=6
    picked=$(seq 0 $((n - 1)))
    spec_var=SHARDS_$tool; spec=${!spec_var:-}
    if [ -n "$spec" ]; then n=${spec%%:*}; picked=$(echo "${spec#*:}" | tr , ' '); fi
    for i in $picked; do
      ( s=$(date +%s)
        GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout 540 compute-sanitizer --tool $tool --error-exitcode 99 \
          $new/vfilter_gpu_tests --gtest_brief=1 >$raw/sanitize_${tool}_$i.txt 2>&1
        echo "$tool shard $i of $n exit $? in $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $raw/sanitize_${tool}_$i.txt | tr '\n' ' ')" ) &
    done
  done | tee "$out/sanitize.txt"
  wait
  exit 0
fi
if [ $mode = soak-wait ]; then
  end=$(( $(date +%s) + ${WAIT:-570} ))
  while [ ! -e $raw/soak_done ] && [ "$(date +%s)" -lt $end ]; do sleep 5; done
  copy_soak_results  # the JSON is there only once the soak has ended
  if [ -e $raw/soak_done ]; then el "soak finished: $(cat $raw/soak_done)"
  else el "soak still running: $(tail -c 400 $raw/soak_gpu.txt 2>/dev/null)"; fi
  exit 0
fi
static=${STATIC_FFMPEG:-.static-ffmpeg}
. scripts/use_static_ffmpeg.sh "$static" || exit 1
b=$PWD/build-device
py_args=()
if [ "${PYTHON:-0}" = 1 ]; then
  py_inc=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))') &&
    py_args=(-DVF_PYBIND11_INCLUDE_DIR="$py_inc" -DPython_EXECUTABLE="$(command -v python3)")
fi
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DVF_FFMPEG_STATIC=ON -DVF_WERROR=ON "${py_args[@]}" >$raw/build.log 2>&1 &&
  cmake --build $b -j "$(nproc)" ${TARGETS:+--target $TARGETS} >>$raw/build.log 2>&1 || { grep -E "error|Error" -A3 $raw/build.log | head -40; exit 1; }
el built
[ $mode = build ] && exit 0
if [ $mode = tests ]; then
  (cd $b && timeout 560 ctest -L gpu -j ${JOBS:-6} --timeout 500 --output-on-failure >"$out/ctest_gpu.txt" 2>&1)
  el "GPU tests exit $?: $(grep -E 'tests passed|tests failed' "$out/ctest_gpu.txt")"
  grep -E "^\s+[0-9]+ - |Failure|Expected|Which is|GPU memory after" "$out/ctest_gpu.txt" | head -40
  (cd $b && timeout 200 ./vfilter_tests --gtest_brief=1 --gtest_filter='Serve*' >"$out/serve_tests.txt" 2>&1)
  el "serve tests (GPU present) exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/serve_tests.txt" | tr '\n' ' ')"
  if [ "${PYTHON:-0}" = 1 ]; then
    VFILTER_BIN=$b/vfilter PYTHONPATH=$b/python timeout 240 python3 -m pytest -q tests/python >"$out/python_tests.txt" 2>&1
    el "Python tests exit $?: $(tail -1 "$out/python_tests.txt")"
  fi
  exit 0
fi
if [ $mode = soak ]; then
  soak=(python3 bench/soak.py --camera tcp --ffmpeg "$PWD/$static/bin/ffmpeg" --device cuda --vfilter $b/vfilter
    --minutes "${MINUTES:-8}" --cameras "${CAMERAS:-8}" --size "${SIZE:-1280x720}" --load "${LOAD:-0}"
    --memory-pressure "${MEMORY_PRESSURE:-0}" --out $raw/soak --json $raw/soak_gpu.json --check)
  rm -rf $raw/soak $raw/soak_done
  if [ "${DETACH:-0}" = 1 ]; then
    setsid nohup bash -c '"$@" >'$raw/soak_gpu.txt' 2>&1; echo "exit $?" >'$raw/soak_done _ "${soak[@]}" </dev/null >/dev/null 2>&1 &
    sleep 30; el "soak started: $(cat $raw/soak_gpu.txt 2>/dev/null | tail -3)"
    exit 0
  fi
  timeout 580 "${soak[@]}" | tee $raw/soak_gpu.txt  # within one device command's 10 minutes
  el "soak exit ${PIPESTATUS[0]}"
  copy_soak_results
  exit 0
fi
if [ $mode = e2e ]; then
  (cd $b && timeout 300 ./vfilter_gpu_e2e_tests --gtest_brief=1 >"$out/e2e.txt" 2>&1)
  el "GPU end-to-end tests exit $?: $(grep -E '^\[  (PASSED|FAILED)' "$out/e2e.txt" | tr '\n' ' ')"
  grep -E "Failure|Expected|Which is|^\[  FAILED" -A3 "$out/e2e.txt" | head -30
  (cd $b && timeout 200 ./vfilter_gpu_memory_test --gtest_brief=1 >"$out/memory.txt" 2>&1)
  el "GPU memory tests exit $?: $(grep -E '^\[  (PASSED|FAILED)|GPU memory after' "$out/memory.txt" | tr '\n' ' ')"
  (cd $b && timeout 200 ./vfilter_tests --gtest_brief=1 --gtest_filter='Serve*' >"$out/serve_tests.txt" 2>&1)
  el "serve tests (GPU present) exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/serve_tests.txt" | tr '\n' ' ')"
  [ "${CHURN:-1}" = 1 ] || exit 0
  mode=churn
fi
FF=ffmpeg
now() { date +%s.%N; }
calc() { awk "BEGIN{printf \"%.2f\", $1}"; }
mkdir -p $raw/clips
[ -f $raw/clips/camera.mp4 ] || PROFILE=camera FFMPEG=$FF scripts/make_test_clip.sh $raw/clips/camera.mp4 1920x1080 60 30 >/dev/null
el "camera clip: $(du -m $raw/clips/camera.mp4 | cut -f1) MB"
churn() {
  python3 bench/serve_filter_churn.py $b/vfilter $raw/clips/camera.mp4 --streams 4 --changes 240 --seconds 36 --gpus 0 \
    --json "$out/churn.json" | grep -E '"(gpu_mib|grown|answered|module)'
  CUDA_MODULE_LOADING=EAGER python3 bench/serve_filter_churn.py $b/vfilter $raw/clips/camera.mp4 --streams 4 --changes 240 \
    --seconds 36 --gpus 0 --json "$out/churn_eager.json" | grep -E '"(gpu_mib|grown|answered|module)'
  el "churn done"
}
if [ $mode = churn ]; then churn; exit 0; fi
[ -f $raw/clips/noisy.mp4 ] || FFMPEG=$FF scripts/make_test_clip.sh $raw/clips/noisy.mp4 1920x1080 60 30 >/dev/null
el "noisy clip: $(du -m $raw/clips/noisy.mp4 | cut -f1) MB"
N=${NS:-32}
G="gaussian=sigma=3.2"
for clip in camera noisy; do
  { echo "defaults: {filter: '$G', output: 'null', device: cuda}"; echo "streams:"
    for k in $(seq $N); do echo "  - {name: cam$k, input: $raw/clips/$clip.mp4}"; done; } >$raw/serve.yaml
  for rep in 1 2; do
    for gpus in 0 all; do
      s=$(now); $vs $b/vfilter $raw/serve.yaml --gpus $gpus -q --stats-json $raw/s_${clip}_$gpus.json; rc=$?; e=$(now)
      fps=$(python3 -c "import json;d=json.load(open('$raw/s_${clip}_$gpus.json'));print(sum(v['frames_out'] for v in d.values()))")
      rate=$(calc "$fps/($e-$s)")
      eval "r_$gpus=$rate"
      python3 -c "import json;d=json.load(open('$raw/s_${clip}_$gpus.json'));f=sorted(v['frames_out'] for v in d.values());print('  $clip --gpus $gpus: exit $rc, streams', len(f), 'frames per stream min', f[0], 'max', f[-1], 'states', sorted(set(v.get('state','?') for v in d.values())), 'hwdec', sorted(set(v['stats']['hw_decode'] for v in d.values())))"
      echo "$clip rep $rep --gpus $gpus: $rate fps ($fps frames)"
    done
    echo "$clip rep $rep: all GPUs / GPU 0 = $(calc "$r_all/$r_0")x"
  done
done | tee "$out/gpus.txt"
el "gpus done"
[ "${CHURN:-1}" = 1 ] && churn
