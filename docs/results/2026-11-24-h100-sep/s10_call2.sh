#!/usr/bin/env bash
# Tenth pass, second call: ncu on one launch of the separable integer-row-pass kernel a plane
# size (Gaussian 27x27), and the tests after the test fix.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 250 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.Separable*:*GpuVariants.*' >$out/tests.txt 2>&1 &
for s in 1920x1080 3840x2160; do
  timeout 120 ncu --set full --clock-control none --cache-control none --kernel-name regex:sep_imma \
    --launch-skip 3 --launch-count 1 /tmp/bk/vfilter_gpu_bench --only gaussian --size $s --iterations 10 >$out/ncu_$s.txt 2>&1
  echo "ncu $s exit $? ($(( $(date +%s) - t0 )) s)"
done
for s in 1920x1080 3840x2160; do
  echo "== $s"; grep -E "Duration|Executed Ipc Active|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|L1/TEX Hit|Mem Busy|DRAM Throughput|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Executed Instructions  |Block Limit|Eligible Warps|No Eligible|Bank" $out/ncu_$s.txt | sed 's/  */ /g' | head -40
  grep -E "^ +(OPT|INF|WRN)" -A3 $out/ncu_$s.txt | sed 's/  */ /g' | grep -iE "stall|cycles|bank|warp" | head -20
done
wait; echo "tests: $(grep -E 'PASSED|FAILED|tests ran' $out/tests.txt | tr '\n' ' ')"; grep -B3 -A8 "Failure" $out/tests.txt | head -30
echo "done in $(( $(date +%s) - t0 )) s"
