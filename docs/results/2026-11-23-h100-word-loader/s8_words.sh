#!/usr/bin/env bash
# Eighth pass, second call: 8-bit tiles staged a word at a time (tile_loader.cuh) against the
# sample-at-a-time loader (.device/old_tile_loader.cuh), built side by side; the tests that stage
# tiles; ncu per-opcode counts on the tensor and separable kernels.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
mkdir -p /tmp/old && cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests /tmp/old/
cp .device/old_tile_loader.cuh /tmp/old/kernels/cuda/tile_loader.cuh
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/tmp/cmake_old.log 2>&1
cmake --build /tmp/bk -j12 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
cmake --build /tmp/old/b -j4 --target vfilter_gpu_bench >/tmp/build_old.log 2>&1 &
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*:GpuVariants.*' >$out/tests.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|tests ran" $out/tests.txt | head; grep -B2 -A6 "Failure" $out/tests.txt | head -40
only=(--only "dense 13x13" --only "dense 27x27" --only gaussian --only "dense 63x63")
for b in old bk; do
  bin=/tmp/$b/vfilter_gpu_bench; [ $b = old ] && bin=/tmp/old/b/vfilter_gpu_bench
  $bin "${only[@]}" --size 1920x1080 --size 3840x2160 >$out/bench_$b.txt 2>&1
  echo "== $b"; grep -E " (auto|tiled|tensor|separable|fft) +[0-9]" $out/bench_$b.txt
done
m="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,sass__inst_executed_per_opcode"
for c in "new:dense 27x27:3840x2160:tensor_kernel" "old:dense 27x27:3840x2160:tensor_kernel" "new:dense 13x13:1920x1080:tensor_kernel" "new:gaussian:3840x2160:separable_kernel" "old:gaussian:3840x2160:separable_kernel"; do
  IFS=: read -r w f s k <<<"$c"
  bin=/tmp/bk/vfilter_gpu_bench; [ $w = old ] && bin=/tmp/old/b/vfilter_gpu_bench
  echo "== ncu $w $f $s $k"
  timeout 100 ncu --clock-control none --cache-control none --kernel-name regex:$k --launch-skip 3 --launch-count 1 --metrics $m --print-metric-instances values \
    $bin --only "$f" --size $s --iterations 5 2>&1 | grep -vE "^==PROF==|^\s*$|^(1920|3840)x"
done > $out/ncu.txt 2>&1
grep -E "== ncu|gpu__time|sm__inst_executed.sum|issue_active" $out/ncu.txt
echo "done in $(( $(date +%s) - t0 )) s"
