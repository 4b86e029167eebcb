#!/usr/bin/env bash
# Tenth pass, final call: the whole benchmark (NPP in the same run), bench/cudnn_anchor.py,
# memcheck and racecheck on the forced variants (both new kernels on aligned planes), and four
# mutations of the new kernels, each against its test.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out; res=/tmp/res; mkdir -p $res
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $res/machine.txt; date -u >> $res/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_bench --json $res/final_gpu_bench.json >$res/final_gpu_bench.txt 2>&1
echo "bench ($(( $(date +%s) - t0 )) s)"; grep -E "device:| (auto|npp) +[0-9]|1D" $res/final_gpu_bench.txt
timeout 150 python3 bench/cudnn_anchor.py >$res/final_cudnn_anchor.txt 2>&1; echo "cudnn exit $? ($(( $(date +%s) - t0 )) s)"; tail -25 $res/final_cudnn_anchor.txt
( timeout 240 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='*GpuVariants*' >/tmp/memcheck.txt 2>&1
  echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/memcheck.txt | tr '\n' ' ')" >$res/final_sanitizers.txt
  timeout 240 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='*GpuVariants*' >/tmp/racecheck.txt 2>&1
  echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' /tmp/racecheck.txt | tr '\n' ' ')" >>$res/final_sanitizers.txt ) &
san=$!
# Mutations, in a copy with its own build (each one rebuilt incrementally, then undone).
rm -rf /tmp/m; mkdir -p /tmp/m; tar cf - --exclude=./.device --exclude=./.git . | tar xf - -C /tmp/m
cmake -S /tmp/m -B /tmp/bm -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/dev/null 2>&1
cmake --build /tmp/bm -j12 --target vfilter_gpu_tests >/tmp/build_m.log 2>&1
mutate() {  # name file sed-expression test-filter
  cp /tmp/m/$2 /tmp/orig; sed -i "$3" /tmp/m/$2
  if cmp -s /tmp/m/$2 /tmp/orig; then echo "mutation $1: sed did not apply" >>$res/final_mutations.txt; return; fi
  cmake --build /tmp/bm -j12 --target vfilter_gpu_tests >/tmp/build_$1.log 2>&1 || { echo "mutation $1: build failed" >>$res/final_mutations.txt; cp /tmp/orig /tmp/m/$2; return; }
  timeout 90 /tmp/bm/vfilter_gpu_tests --gtest_brief=1 --gtest_filter="$4" >/tmp/mut_$1.txt 2>&1
  echo "mutation $1 exit $?: $(grep -cE 'Failure' /tmp/mut_$1.txt) failing checks; $(grep -E 'PASSED|FAILED  \]' /tmp/mut_$1.txt | head -2 | tr '\n' ' ')" >>$res/final_mutations.txt
  cp /tmp/orig /tmp/m/$2
}
mutate unsigned_as_signed kernels/cuda/conv_separable_imma.cu 's/if (row_tap_kind(op) == 1) launch<true>(shape, op, l);/if (row_tap_kind(op) == 1) launch<false>(shape, op, l);/' 'Gpu.SeparableInteger*'
mutate lower_rows_shifted kernels/cuda/conv_separable_imma.cu 's/m + 8 \* kMidStride + 8 \* ob/m + 7 * kMidStride + 8 * ob/' 'Gpu.SeparableInteger*'
mutate column_window_off kernels/cuda/conv_separable_imma.cu 's/(cy + jb + i) \* kMidStride + cx/(cy + jb + i + 1) * kMidStride + cx/' 'Gpu.SeparableInteger*'
mutate box_enter_row_off kernels/cuda/conv_box.cu 's/s += col\[(q + kh) \* cols\] - col\[q \* cols\];/s += col[(q + kh - 1) * cols] - col[q * cols];/' 'Gpu.BoxWalks*'
cat $res/final_mutations.txt
wait $san; cat $res/final_sanitizers.txt
cd $res && tar czf $out/final.tgz *
echo "done in $(( $(date +%s) - t0 )) s"
