#!/usr/bin/env bash
# Tenth pass, fourth call: block height side by side (Gaussian rows, 3 runs each): v1 128 x 64
# outputs, 512 threads, 3 blocks an SM (40 registers); vA 128 x 32, 256 threads, 4 blocks an SM
# (64 registers); the tests on vA.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
here=$(pwd)
rm -rf /tmp/vA; mkdir -p /tmp/vA; tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/vA
sed -i 's/kOutH = 64;/kOutH = 32;/; s/kMinBlocks = 3; /kMinBlocks = 4; /' /tmp/vA/kernels/cuda/conv_separable_imma.cu
grep -c "kOutH = 32;" /tmp/vA/kernels/cuda/conv_separable_imma.cu
for v in v1 vA; do
  src=$here; [ $v = v1 ] || src=/tmp/$v
  ( cmake -S $src -B /tmp/b$v -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake_$v.log 2>&1
    cmake --build /tmp/b$v -j8 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build_$v.log 2>&1 ) &
done; wait
for v in v1 vA; do [ -x /tmp/b$v/vfilter_gpu_bench ] || { echo "build $v failed"; grep -E "error|warning" /tmp/build_$v.log | head; }; done
echo "built in $(( $(date +%s) - t0 )) s"
timeout 250 /tmp/bvA/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.Separable*:*GpuVariants.*' >/tmp/tests_vA.txt 2>&1
echo "tests vA: $(grep -E 'PASSED|FAILED|tests ran' /tmp/tests_vA.txt | tr '\n' ' ')"; grep -B3 -A8 "Failure" /tmp/tests_vA.txt | head -30
for r in 1 2 3; do for v in v1 vA; do
  /tmp/b$v/vfilter_gpu_bench --only gaussian >/tmp/bench_${v}_$r.txt 2>&1
  echo "$v run $r: $(grep -E ' separable ' /tmp/bench_${v}_$r.txt | awk '{print $1, $(NF-2)}' | tr '\n' ' ')"
done; done
cd /tmp && tar czf $out/call4.tgz tests_vA.txt bench_v*_?.txt
echo "done in $(( $(date +%s) - t0 )) s"
