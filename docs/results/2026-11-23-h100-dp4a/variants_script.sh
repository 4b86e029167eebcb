#!/usr/bin/env bash
# DP4A experiment: kernels-only build, the GPU kernel suite, then the small filters timed with
# each variant in one binary (env switches), and compute-sanitizer on the small-kernel test.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $out/machine.txt
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error|warning" $out/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "gpu tests exit $?"; grep -E "FAILED|PASSED|tests ran|Failure" $out/gpu_tests.txt | head -20
only=(--only sobel --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --size 1920x1080 --size 3840x2160)
for v in "A=dp4a_rows2" "VF_DP4A_ROWS=4" "VF_DP4A_ROWS=1 VF_DP4A_ROWS_G=2" "VF_NO_DP4A=1" "B=dp4a_rows2_again"; do
  echo "== $v"
  env $v /tmp/bk/vfilter_gpu_bench "${only[@]}" >"$out/bench_$(echo $v | tr ' =' '__').txt" 2>&1
  grep -E " (auto|auto b2b|npp|copy|tiled|gradient) +[0-9]" "$out/bench_$(echo $v | tr ' =' '__').txt" | head -40
done
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
    --gtest_filter='Gpu.SmallKernelsExactOnBothPaths' >"$out/sanitizer_$tool.txt" 2>&1
  echo "$tool exit $? : $(grep -E 'ERROR SUMMARY|tests ran|PASSED' "$out/sanitizer_$tool.txt" | tr '\n' ' ')"
done
