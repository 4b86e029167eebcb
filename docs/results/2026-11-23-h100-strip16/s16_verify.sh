#!/usr/bin/env bash
# The 16-wide byte path: kernels-only build, the whole GPU kernel suite, the small-filter rows of
# the benchmark (with NPP), three mutations of strip16_dp4a.cuh against the new test, and
# compute-sanitizer on the byte-path tests.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $out/machine.txt
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error|warning" $out/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "gpu tests exit $?"; grep -E "FAILED|PASSED|tests ran|Failure" $out/gpu_tests.txt | head -20
/tmp/bk/vfilter_gpu_bench --only sobel --only "dense 3x3" --only "dense 5x5" --size 1920x1080 --size 3840x2160 --json $out/bench_small.json >$out/bench_small.txt 2>&1
grep -E " (auto|auto b2b|npp|copy|tiled|gradient) +[0-9]" $out/bench_small.txt
for tool in memcheck racecheck; do
  timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
    --gtest_filter='Gpu.SixteenWideBytePathExactAgainstReference:Gpu.SmallKernelsExactOnBothPaths' >"/tmp/sanitizer_$tool.txt" 2>&1
  echo "$tool exit $? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests ran|PASSED' "/tmp/sanitizer_$tool.txt" | tr '\n' ' ')"
done
cp kernels/cuda/strip16_dp4a.cuh /tmp/s16.bak
i=0
for m in 's/"r"(b), "r"(a), "r"(hi)/"r"(a), "r"(b), "r"(hi)/' \
         's/w\[0\] |= sample_at(row, x - s, width, border)/w[0] |= sample_at(row, x + s, width, border)/' \
         's/w\[5\] = __ldg(reinterpret_cast<const unsigned int\*>(at + kV));/w[5] = __ldg(reinterpret_cast<const unsigned int*>(at + kV - 4));/' \
         's/const bool check_y = by < R || by + kBlockY \* kRows + R > src.height;/const bool check_y = by < R || by + kBlockY * kRows > src.height;/' \
         's/const int n = min(s\[0\] \* s\[0\] + s\[1\] \* s\[1\], 255 \* 255);/const int n = min(s[0] * s[0] + s[1] * s[1], 254 * 254);/' \
         's/if ((k + 1) \* (k + 1) <= n) ++k;/(void)0;/'; do
  i=$((i+1)); cp /tmp/s16.bak kernels/cuda/strip16_dp4a.cuh; sed -i "$m" kernels/cuda/strip16_dp4a.cuh
  if cmp -s /tmp/s16.bak kernels/cuda/strip16_dp4a.cuh; then echo "mutation $i: did not apply"; continue; fi
  cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >/tmp/mut$i.build.log 2>&1 || { echo "mutation $i: build failed"; continue; }
  /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWideBytePathExactAgainstReference' >/tmp/mut$i.txt 2>&1
  echo "mutation $i ($m): exit $? , $(grep -c 'Failure' /tmp/mut$i.txt) failures"
done
cp /tmp/s16.bak kernels/cuda/strip16_dp4a.cuh
