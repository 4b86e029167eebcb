#!/usr/bin/env bash
# Ninth pass: ncu on one launch of the integer tensor kernel per plane size (3x3, 13x13, 63x63).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
for k in 3x3 13x13 63x63; do
  timeout 200 ncu --set full --clock-control none --cache-control none --filter-mode per-launch-config --kernel-name regex:imma_kernel \
    --launch-skip 3 --launch-count 1 /tmp/bk/vfilter_gpu_bench --only "dense $k" --iterations 10 >$out/ncu_$k.txt 2>&1
  echo "ncu $k exit $? ($(( $(date +%s) - t0 )) s)"
done
for k in 3x3 13x13 63x63; do
  echo "== $k"; grep -E "imma_kernel|Duration|Executed Ipc Active|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|L1/TEX Hit|Mem Busy|Max Bandwidth|DRAM Throughput|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Executed Instructions  |Block Limit" $out/ncu_$k.txt | sed 's/  */ /g' | head -40
done
