#!/usr/bin/env bash
# Mutations of the tensor kernel must fail Gpu.TensorPathExactAgainstReference.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
F=kernels/cuda/conv_tensor.cu; cp $F /tmp/orig.cu
mut() {  # name sed-expr
  cp /tmp/orig.cu $F; sed -i "$2" $F
  if cmp -s $F /tmp/orig.cu; then echo "$1: sed did not apply"; return; fi
  cmake --build build-device -j16 --target vfilter_gpu_tests >$out/b_$1.log 2>&1 || { echo "$1: build failed"; return; }
  timeout 60 build-device/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.TensorPath*' >$out/m_$1.txt 2>&1
  echo "$1: exit $? $(grep -c 'Failure' $out/m_$1.txt) failures"
}
mut prev_chunk 's/if (c > 0) {/if (c > 1) {/'
mut a_half 's/wx \* 32 + 8 \* (lane \/ 16)/wx * 32/'
mut b_rows 's/const int bn = (lane % 8) + 8 \* (lane \/ 16);/const int bn = lane % 8;/'
cp /tmp/orig.cu $F
