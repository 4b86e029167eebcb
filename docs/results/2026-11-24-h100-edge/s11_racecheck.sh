#!/usr/bin/env bash
# racecheck on the whole GPU kernel suite, in three gtest shards side by side (alone it outran the
# sanitize call's limit when run beside memcheck and synccheck).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out; res=/tmp/res_race; mkdir -p $res
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
for i in 0 1 2; do
  ( s=$(date +%s)
    GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 500 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/race_$i.txt 2>&1
    echo "racecheck shard $i of 3 exit $? in $(( $(date +%s) - s )) s: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED|SKIPPED' /tmp/race_$i.txt | tr '\n' ' ')" >$res/racecheck_shard$i.txt ) &
done
wait
cat $res/racecheck_shard*.txt
cd $res && tar czf $out/racecheck.tgz *
echo "done in $(( $(date +%s) - t0 )) s"
