#!/usr/bin/env bash
# Tenth pass, third call: the separable integer path's column pass, side by side (Gaussian rows,
# twice each): v0 one column x 16 rows a thread (call 1), v1 4 x 4 with 16-byte reads and 3 blocks
# an SM at two chunks (40 registers), v2 the same at 2 blocks (no register cap); SASS and per-
# instruction executed counts of v1 at 4K; the tests on v1.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
here=$(pwd); d=docs/results/2026-11-24-h100-sep
rm -rf /tmp/v0 /tmp/v2; mkdir -p /tmp/v0 /tmp/v2
for v in v0 v2; do tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/$v; done
cp $d/v0_conv_separable_imma.cu /tmp/v0/kernels/cuda/conv_separable_imma.cu
sed -i 's/__launch_bounds__(kThreads, NC == 2 ? 3 : 2)/__launch_bounds__(kThreads, 2)/' /tmp/v2/kernels/cuda/conv_separable_imma.cu
grep -c "__launch_bounds__(kThreads, 2)" /tmp/v2/kernels/cuda/conv_separable_imma.cu
for v in v1 v0 v2; do
  src=$here; [ $v = v1 ] || src=/tmp/$v
  ( cmake -S $src -B /tmp/b$v -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake_$v.log 2>&1
    cmake --build /tmp/b$v -j6 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build_$v.log 2>&1 ) &
done; wait
for v in v1 v0 v2; do [ -x /tmp/b$v/vfilter_gpu_bench ] || { echo "build $v failed"; grep -E "error|warning" /tmp/build_$v.log | head; }; done
echo "built in $(( $(date +%s) - t0 )) s"
timeout 250 /tmp/bv1/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.Separable*:*GpuVariants.*' >$out/tests_v1.txt 2>&1 &
tp=$!
wait $tp; echo "tests v1: $(grep -E 'PASSED|FAILED|tests ran' $out/tests_v1.txt | tr '\n' ' ')"; grep -B3 -A8 "Failure" $out/tests_v1.txt | head -30
for r in 1 2; do for v in v0 v1 v2; do
  /tmp/b$v/vfilter_gpu_bench --only gaussian --json $out/bench_${v}_$r.json >$out/bench_${v}_$r.txt 2>&1
  echo "$v run $r: $(grep -E ' separable ' $out/bench_${v}_$r.txt | awk '{print $1, $(NF-2)}' | tr '\n' ' ')"
done; done
cuobjdump -sass -fun 'sep_imma_kernel' /tmp/bv1/vfilter_gpu_bench > /tmp/sass_all.txt 2>&1
awk '/Function : .*sep_imma_kernelILi2ELin3ELi4ELb1/{f=1} f&&/Function : .*sep_imma_kernelILi[34]/{f=0} f' /tmp/sass_all.txt > $out/sass_v1_nc2_u8.txt
echo "sass lines: $(wc -l < $out/sass_v1_nc2_u8.txt)"
timeout 120 ncu --set full --import-source no --clock-control none --cache-control none --kernel-name regex:sep_imma \
  --launch-skip 3 --launch-count 1 -o /tmp/rep /tmp/bv1/vfilter_gpu_bench --only gaussian --size 3840x2160 --iterations 10 >/tmp/ncu.log 2>&1
echo "ncu exit $?"
ncu --import /tmp/rep.ncu-rep --page source --csv --print-source sass > $out/ncu_source_v1_4k.csv 2>&1; echo "source page exit $? lines $(wc -l < $out/ncu_source_v1_4k.csv)"
ncu --import /tmp/rep.ncu-rep > $out/ncu_v1_4k.txt 2>&1
grep -E "Duration|Issue Slots Busy|Registers Per|Achieved Occupancy|Executed Instructions  |FMA is|Warp Cycles Per Issued" $out/ncu_v1_4k.txt | sed 's/  */ /g'
echo "done in $(( $(date +%s) - t0 )) s"
