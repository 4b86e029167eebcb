#!/usr/bin/env bash
# Where the kept tensor kernel's time goes (4K 13x13 and 27x27): stall reasons, tensor pipe use.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
B=/tmp/bk/vfilter_gpu_bench
m=""
for r in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected lg_throttle dispatch_stall no_instruction branch_resolving tex_throttle drain membar imc_miss; do
  m="$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
m="${m:1},sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
for k in 13 27; do
  timeout 120 ncu --clock-control none --cache-control none --metrics $m -k regex:tensor_kernel --launch-skip 3 --launch-count 1 \
    $B --iterations 6 --only "dense $k" --size 3840x2160 >$out/ncu_$k.txt 2>&1
  echo "== 4K ${k}x${k}"; grep -E "smsp__|sm__|dram__|gpu__|l1tex__" $out/ncu_$k.txt | awk '{printf "%-90s %s\n", $1, $NF}' | sort -k2 -g -r | head -24
done
