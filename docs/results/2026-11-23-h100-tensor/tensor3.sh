#!/usr/bin/env bash
# Tensor path with 32 outputs across a warp (A fragments feed 4 products): block shapes compared.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
F=kernels/cuda/conv_tensor.cu
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error|warning" $out/build.log | head -30; exit 1; }
timeout 120 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='*Tensor*:GpuVariants*:Gpu.LargeKernelsAndFourK' >$out/gpu_tests.txt 2>&1; echo "tensor tests exit $?"
grep -E "FAILED|PASSED|SKIPPED|Failure|Expected|Which is|differ|max diff|ms\)" $out/gpu_tests.txt | head -20
B=/tmp/bk/vfilter_gpu_bench
timeout 200 $B --only "dense 7x7" --only "dense 13" --only "dense 27" --only "dense 63" >$out/bench_a.txt 2>&1
echo "--- 2x4 warps, kMT 2 (64x128)"; grep -E " (tiled|fft|tensor|npp) +[0-9]" $out/bench_a.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
  --gtest_filter='Gpu.TensorPathExactAgainstReference' >$out/memcheck.txt 2>&1
echo "memcheck exit $? : $(grep -E 'ERROR SUMMARY|PASSED' $out/memcheck.txt | tr '\n' ' ')"
try() {  # name wx wy mt
  sed -i "s/constexpr int kWarpsX = [0-9], kWarpsY = [0-9];/constexpr int kWarpsX = $2, kWarpsY = $3;/; s/constexpr int kMT = [0-9];/constexpr int kMT = $4;/" $F
  cmake --build /tmp/bk -j16 --target vfilter_gpu_bench vfilter_gpu_tests >$out/build_$1.log 2>&1 || { grep error $out/build_$1.log | head; return; }
  timeout 60 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='*Tensor*' > $out/t_$1.txt 2>&1; echo "--- $1: tests exit $?"
  timeout 100 $B --only "dense 7x7" --only "dense 13" --only "dense 27" >$out/bench_$1.txt 2>&1
  grep -E " tensor +[0-9]" $out/bench_$1.txt
}
try b 2 4 1
try c 4 2 2
try d 4 2 1
git checkout $F
