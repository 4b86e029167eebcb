#!/usr/bin/env bash
# Eleventh pass, final code: memcheck, racecheck and synccheck on the whole GPU kernel suite
# (side by side, as scripts/gpu_pipeline_check.sh sanitize does, on the kernels-only build).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out; res=/tmp/res_san; mkdir -p $res
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
for tool in memcheck racecheck synccheck; do
  ( s=$(date +%s)
    timeout 470 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/full_$tool.txt 2>&1
    echo "$tool exit $? in $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests ran|PASSED|FAILED|SKIPPED' /tmp/full_$tool.txt | tr '\n' ' ')" >$res/sanitize_$tool.txt ) &
done
wait
cat $res/sanitize_*.txt
cd $res && tar czf $out/sanitize.tgz *
echo "done in $(( $(date +%s) - t0 )) s"
