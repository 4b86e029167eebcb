#!/usr/bin/env bash
# Eighth pass, third call: the word loader with the 4x8 patch mapping (odd strides) and padded
# direct-kernel tiles: the whole GPU kernel suite; three mutations of the loader against the
# tests that stage tiles; the affected rows against the sample-at-a-time loader, side by side.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
tl=kernels/cuda/tile_loader.cuh
muts=('s/k ? 0x4342u : 0x4140u/k ? 0x4342u : 0x4041u/'
      's/b = s ? __ldg(p + 1) : a;/b = a;/'
      's/lg = vec ? 0 : lane % 8;/lg = vec ? 0 : (lane + 1) % 8;/')
names=("half pair bytes swapped" "second word never loaded" "patch lanes one group off")
filters=('Gpu.TensorPathExactAgainstReference' 'Gpu.SeparableAtEveryTapCount:*GpuVariants.*' 'Gpu.SeparableAtEveryTapCount')
mkdir -p /tmp/old && cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests /tmp/old/
cp .device/old_tile_loader.cuh /tmp/old/kernels/cuda/tile_loader.cuh
git -C /tmp/old status >/dev/null 2>&1
sed -i 's/const int cols = tile_cols(kw)/const int cols = kTX + kw - 1/; s/constexpr int cols = tile_cols(K)/constexpr int cols = kTX + K - 1/; s/\* tile_cols(op.kw) \*/* (kTX + op.kw - 1) */' /tmp/old/kernels/cuda/conv_direct.cu
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j6 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/old/b -j2 --target vfilter_gpu_bench >/tmp/build_old.log 2>&1) &
for i in 0 1 2; do
  d=/tmp/m$i; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
  sed -i "${muts[$i]}" $d/$tl
  if cmp -s $tl $d/$tl; then echo "mutation $i did not apply"; continue; fi
  (cmake -S $d -B $d/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build $d/b -j3 --target vfilter_gpu_tests >$d/build.log 2>&1) &
done
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
grep -c "0x4041u\|b = a;\|(lane + 1) % 8" /tmp/m0/$tl /tmp/m1/$tl /tmp/m2/$tl
echo "built in $(( $(date +%s) - t0 )) s"
for i in 0 1 2; do
  b=/tmp/m$i/b/vfilter_gpu_tests
  [ -x $b ] || { echo "mutation $i: no binary"; tail -3 /tmp/m$i/build.log; continue; }
  ( timeout 300 $b --gtest_brief=1 --gtest_filter="${filters[$i]}" >/tmp/mut$i.txt 2>&1
    echo "mutation $i (${names[$i]}; ${filters[$i]}): exit $?, $(grep -c 'Failure' /tmp/mut$i.txt) failures" >>$out/mutations.txt ) &
done
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "whole gpu suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/gpu_tests.txt | head; grep -B3 -A10 "Failure" $out/gpu_tests.txt | head -30
wait; cat $out/mutations.txt
only=(--only "dense 13x13" --only "dense 27x27" --only gaussian --only "dense 5x5")
for b in old new; do
  bin=/tmp/bk/vfilter_gpu_bench; [ $b = old ] && bin=/tmp/old/b/vfilter_gpu_bench
  $bin "${only[@]}" --size 1920x1080 --size 3840x2160 >$out/bench_$b.txt 2>&1
  echo "== $b"; grep -E " (auto|tiled|tensor|separable) +[0-9]" $out/bench_$b.txt
done
echo "done in $(( $(date +%s) - t0 )) s"
