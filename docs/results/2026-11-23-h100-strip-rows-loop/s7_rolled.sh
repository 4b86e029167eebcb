#!/usr/bin/env bash
# Seventh pass, third call: the 16-wide strips from 7x7 with the kernel rows in a loop (registers
# capped at 8 blocks an SM). Whole GPU kernel suite, the small and mid rows, ncu on the rolled
# strips.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "gpu tests exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/gpu_tests.txt | head; grep -B3 -A10 "Failure" $out/gpu_tests.txt | head -40
only=(--only sobel --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --only "dense 13x13")
/tmp/bk/vfilter_gpu_bench "${only[@]}" --size 1920x1080 --size 3840x2160 --json $out/bench_rolled.json >$out/bench_rolled.txt 2>&1
grep -E " (auto|npp|tiled|tensor) +[0-9]" $out/bench_rolled.txt
m="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct"
for c in "dense 7x7:1920x1080" "dense 7x7:3840x2160" "dense 13x13:1920x1080" "dense 13x13:3840x2160"; do
  IFS=: read -r f s <<<"$c"
  timeout 100 ncu --clock-control none --cache-control none --kernel-name regex:strip16 --launch-skip 3 --launch-count 1 --metrics $m \
    /tmp/bk/vfilter_gpu_bench --only "$f" --size $s --iterations 5 >/tmp/ncu.txt 2>&1
  echo "== ncu $f $s"; grep -E "^\s+(gpu__|sm__|smsp__|launch__)" /tmp/ncu.txt | awk '{print $1, $(NF)}'
done
echo "done in $(( $(date +%s) - t0 )) s"
