#!/usr/bin/env bash
# Seventh pass, second call: windows (byte permutes) again; the new test; the mid rows; ncu on the
# 16-wide strips at 7x7 and 13x13, 1080p and 4K, and on the 7x7 tile for comparison.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*:Gpu.AllFilters*' >/tmp/t.txt 2>&1; echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|Failure" /tmp/t.txt | head
only=(--only sobel --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --only "dense 13x13")
/tmp/bk/vfilter_gpu_bench "${only[@]}" --size 1920x1080 --size 3840x2160 >$out/bench_windows.txt 2>&1
grep -E " (auto|npp|tiled|tensor) +[0-9]" $out/bench_windows.txt
m="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,smsp__warp_issue_stalled_imc_miss_per_warp_active.pct"
for c in "dense 7x7:1920x1080:strip16" "dense 7x7:3840x2160:strip16" "dense 13x13:1920x1080:strip16" "dense 13x13:3840x2160:strip16" "dense 13x13:3840x2160:tensor_kernel" "dense 3x3:1920x1080:strip16"; do
  IFS=: read -r f s k <<<"$c"
  timeout 120 ncu --clock-control none --cache-control none --kernel-name regex:$k --launch-skip 3 --launch-count 1 --metrics $m \
    /tmp/bk/vfilter_gpu_bench --only "$f" --size $s --iterations 5 >/tmp/ncu.txt 2>&1
  echo "== ncu $f $s $k"; grep -E "^\s+(gpu__|sm__|smsp__|launch__|dram__)" /tmp/ncu.txt | awk '{print $1, $(NF)}'
done
echo "done in $(( $(date +%s) - t0 )) s"
