#!/usr/bin/env bash
# Eighth pass, first call: the mend (51d3ed6) on the GPU (byte-path, tensor, separable, box tests),
# the rows this pass may touch, and ncu on the tensor, separable and box kernels (per-opcode counts).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*' >$out/tests.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|tests ran" $out/tests.txt | head
only=(--only sobel --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --only "dense 13x13" --only "dense 27x27" --only gaussian --only box)
/tmp/bk/vfilter_gpu_bench "${only[@]}" --size 1920x1080 --size 3840x2160 --json $out/bench_before.json >$out/bench_before.txt 2>&1
grep -E " (auto|npp|tiled|tensor|separable|fft) +[0-9]|^(plane|[0-9]+x[0-9]+)|bandwidth|TFLOP" $out/bench_before.txt | head -80
m="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,sass__inst_executed_per_opcode"
for c in "dense 27x27:3840x2160:tensor_kernel" "dense 13x13:1920x1080:tensor_kernel" "gaussian:3840x2160:separable_kernel" "gaussian:1920x1080:separable_kernel" "box:1920x1080:box_kernel" "box:3840x2160:box_kernel"; do
  IFS=: read -r f s k <<<"$c"
  timeout 100 ncu --clock-control none --cache-control none --kernel-name regex:$k --launch-skip 3 --launch-count 1 --metrics $m --print-metric-instances values \
    /tmp/bk/vfilter_gpu_bench --only "$f" --size $s --iterations 5 >/tmp/ncu.txt 2>&1
  echo "== ncu $f $s $k"; grep -E "^\s+(gpu__|sm__|smsp__|launch__|dram__|lts__)" /tmp/ncu.txt | awk '{print $1, $(NF)}'
  grep -E "sass__inst_executed_per_opcode" /tmp/ncu.txt | sed 's/  */ /g' | cut -c1-1500
done 2>&1 | tee $out/ncu.txt
echo "done in $(( $(date +%s) - t0 )) s"
