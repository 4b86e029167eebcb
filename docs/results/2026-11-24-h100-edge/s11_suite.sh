#!/usr/bin/env bash
# Eleventh pass: the whole GPU kernel suite, and three more mutations of the edge halo, each
# against the sixteen-wide test.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out; res=/tmp/res; mkdir -p $res
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 420 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$res/suite_gpu_tests.txt 2>&1 &
suite=$!
rm -rf /tmp/m; mkdir -p /tmp/m; git ls-files | tar cf - -T - | tar xf - -C /tmp/m
cmake -S /tmp/m -B /tmp/bm -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1
cmake --build /tmp/bm -j8 --target vfilter_gpu_tests >/tmp/build_m.log 2>&1
mutate() {  # name file sed-expression test-filter
  cp /tmp/m/$2 /tmp/orig; sed -i "$3" /tmp/m/$2
  if cmp -s /tmp/m/$2 /tmp/orig; then echo "mutation $1: sed did not apply" >>$res/suite_mutations.txt; return; fi
  cmake --build /tmp/bm -j8 --target vfilter_gpu_tests >/tmp/build_$1.log 2>&1 || { echo "mutation $1: build failed" >>$res/suite_mutations.txt; cp /tmp/orig /tmp/m/$2; return; }
  timeout 90 /tmp/bm/vfilter_gpu_tests --gtest_brief=1 --gtest_filter="$4" >/tmp/mut_$1.txt 2>&1
  echo "mutation $1 exit $?: $(grep -cE 'Failure' /tmp/mut_$1.txt) failing checks; $(grep -E 'PASSED|FAILED  \]' /tmp/mut_$1.txt | head -2 | tr '\n' ' ')" >>$res/suite_mutations.txt
  cp /tmp/orig /tmp/m/$2
}
mutate right_mirror_off kernels/cuda/strip16_dp4a.cuh 's/w\[L + 3 - i\], 0x3456)/w[L + 3 - i], 0x2345)/' 'Gpu.SixteenWide*'
mutate replicate_wrong_sample kernels/cuda/strip16_dp4a.cuh 's/__byte_perm(w\[L\], 0, 0x0000)/__byte_perm(w[L], 0, 0x1111)/' 'Gpu.SixteenWide*'
mutate rolled_edge_halo_dropped kernels/cuda/strip16_dp4a.cuh 's/if constexpr (kCheckX && kHaloFromStrip<R>) edge_halo<R>(x, src.width, border, cur);//' 'Gpu.SixteenWide*'
cat $res/suite_mutations.txt
wait $suite; echo "suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|SKIPPED|tests ran" $res/suite_gpu_tests.txt | head; grep -B3 -A8 "Failure" $res/suite_gpu_tests.txt | head -30
cd $res && tar czf $out/suite.tgz *
echo "done in $(( $(date +%s) - t0 )) s"
