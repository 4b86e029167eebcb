#!/usr/bin/env bash
# Tenth pass, fifth call: the separable integer path's column taps in chunks of 4 instead of 8
# (27 taps: 28 multiply-adds an output instead of 32), side by side, 3 runs each; the tests on it;
# ncu per-instruction counts and stall samples of the box kernel at 1080p and 4K.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
here=$(pwd)
rm -rf /tmp/vK; mkdir -p /tmp/vK; tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/vK
sed -i 's/constexpr int kChunk = 8; /constexpr int kChunk = 4; /' /tmp/vK/kernels/cuda/conv_separable_imma.cu
grep -c "kChunk = 4; " /tmp/vK/kernels/cuda/conv_separable_imma.cu
for v in v1 vK; do
  src=$here; [ $v = v1 ] || src=/tmp/$v
  ( cmake -S $src -B /tmp/b$v -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake_$v.log 2>&1
    cmake --build /tmp/b$v -j8 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build_$v.log 2>&1 ) &
done; wait
for v in v1 vK; do [ -x /tmp/b$v/vfilter_gpu_bench ] || { echo "build $v failed"; grep -E "error|warning" /tmp/build_$v.log | head; }; done
echo "built in $(( $(date +%s) - t0 )) s"
timeout 250 /tmp/bvK/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.Separable*:*GpuVariants.*' >/tmp/tests_vK.txt 2>&1
echo "tests vK: $(grep -E 'PASSED|FAILED|tests ran' /tmp/tests_vK.txt | tr '\n' ' ')"; grep -B3 -A8 "Failure" /tmp/tests_vK.txt | head -30
for r in 1 2 3; do for v in v1 vK; do
  /tmp/b$v/vfilter_gpu_bench --only gaussian >/tmp/bench_${v}_$r.txt 2>&1
  echo "$v run $r: $(grep -E ' separable ' /tmp/bench_${v}_$r.txt | awk '{print $1, $(NF-2)}' | tr '\n' ' ')"
done; done
for s in 1920x1080 3840x2160; do
  timeout 120 ncu --set full --import-source no --clock-control none --cache-control none --kernel-name regex:box_kernel \
    --launch-skip 3 --launch-count 1 -o /tmp/box_$s /tmp/bv1/vfilter_gpu_bench --only box --size $s --iterations 10 >/tmp/ncu_box_$s.log 2>&1
  ncu --import /tmp/box_$s.ncu-rep --page source --csv --print-source sass > /tmp/box_source_$s.csv 2>&1
  ncu --import /tmp/box_$s.ncu-rep > /tmp/box_details_$s.txt 2>&1
  grep -E "Duration|Issue Slots Busy|Registers Per|Achieved Occupancy|Executed Instructions  |Warp Cycles Per Issued|Block Limit Shared" /tmp/box_details_$s.txt | sed 's/  */ /g'
done
cd /tmp && tar czf $out/call5.tgz tests_vK.txt bench_v*_?.txt box_source_*.csv box_details_*.txt
echo "done in $(( $(date +%s) - t0 )) s"
