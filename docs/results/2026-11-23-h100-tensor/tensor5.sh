#!/usr/bin/env bash
# Two more shapes of the unrolled tensor kernel: kernel rows unrolled by 2; 2 row blocks a warp.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
F=kernels/cuda/conv_tensor.cu; cp $F /tmp/orig.cu
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
try() {  # name sed-expr
  cp /tmp/orig.cu $F; sed -i "$2" $F
  cmp -s $F /tmp/orig.cu && { echo "$1: sed did not apply"; return; }
  cmake --build /tmp/bk -j16 --target vfilter_gpu_bench vfilter_gpu_tests >$out/build_$1.log 2>&1 || { grep error $out/build_$1.log | head; return; }
  timeout 60 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='*Tensor*' > $out/t_$1.txt 2>&1; echo "--- $1: tests exit $?"
  timeout 100 /tmp/bk/vfilter_gpu_bench --only "dense 7x7" --only "dense 13" --only "dense 27" >$out/bench_$1.txt 2>&1
  grep -E " tensor +[0-9]" $out/bench_$1.txt
}
try unroll2 's/^    for (int i = 0; i < kh; ++i) {$/#pragma unroll 2\n    for (int i = 0; i < kh; ++i) {/'
try mt2 's/constexpr int kMT = 1; /constexpr int kMT = 2; /'
cp /tmp/orig.cu $F
