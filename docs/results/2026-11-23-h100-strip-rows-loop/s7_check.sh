#!/usr/bin/env bash
# Seventh pass, fourth call: rolled strips stepping the row pointer; the byte-path tests; the
# small and mid rows; four mutations of the new code (built in parallel trees) against the test.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
muts=('s/tw\[c\]\[m\] = taps.w\[j\]\[c\]\[m\];/tw[c][m] = taps.w[K - 1 - j][c][m];/'
      's/(src, row, x, y - R + j + 1, border, next)/(src, row, x, y - R + j, border, next)/'
      's/w\[L + 4 + s \/ 4\] |=/w[L + 4 + s \/ 8] |=/'
      's/<< (8 \* ((H - s) % 4));/<< (8 * ((H - s + 1) % 4));/')
names=("taps of kernel row K-1-j used for row j" "checked rows: next row is the current one" "right-edge halo past 4 bytes in the wrong word (8-byte halo)" "left-edge halo byte shifted one place")
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j8 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
for i in 0 1 2 3; do
  d=/tmp/m$i; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
  sed -i "${muts[$i]}" $d/kernels/cuda/strip16_dp4a.cuh
  if cmp -s kernels/cuda/strip16_dp4a.cuh $d/kernels/cuda/strip16_dp4a.cuh; then echo "mutation $i did not apply"; continue; fi
  (cmake -S $d -B $d/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build $d/b -j2 --target vfilter_gpu_tests >$d/build.log 2>&1) &
done
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*:Gpu.AllFilters*:Gpu.LargeKernels*' >/tmp/t.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|tests ran" /tmp/t.txt | head
only=(--only sobel --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --only "dense 13x13")
/tmp/bk/vfilter_gpu_bench "${only[@]}" --size 1920x1080 --size 3840x2160 --json $out/bench_step.json >$out/bench_step.txt 2>&1
grep -E " (auto|npp|tiled|tensor) +[0-9]" $out/bench_step.txt
for i in 0 1 2 3; do
  b=/tmp/m$i/b/vfilter_gpu_tests
  [ -x $b ] || { echo "mutation $i: no binary"; tail -3 /tmp/m$i/build.log; continue; }
  timeout 120 $b --gtest_brief=1 --gtest_filter='Gpu.SixteenWideBytePathExactAgainstReference' >/tmp/mut$i.txt 2>&1
  echo "mutation $i (${names[$i]}): exit $?, $(grep -c 'Failure' /tmp/mut$i.txt) failures"
done | tee $out/mutations.txt
echo "done in $(( $(date +%s) - t0 )) s"
