#!/usr/bin/env bash
# Tenth pass, after the second mend (cuda::upload): the same tests and rows.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 330 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*:*GpuVariants*' >/tmp/mend2_tests.txt 2>&1; echo "tests exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" /tmp/mend2_tests.txt | head; grep -B3 -A8 "Failure" /tmp/mend2_tests.txt | head -30
/tmp/bk/vfilter_gpu_bench --only gaussian --only box --only "dense 13" >/tmp/mend2_bench.txt 2>&1
grep -E " (auto|npp) +[0-9]" /tmp/mend2_bench.txt
cd /tmp && tar czf $out/mend2.tgz mend2_tests.txt mend2_bench.txt
echo "done in $(( $(date +%s) - t0 )) s"
