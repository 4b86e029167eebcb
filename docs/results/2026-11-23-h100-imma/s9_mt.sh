#!/usr/bin/env bash
# Ninth pass: the integer tensor kernel with the bands prefetched a step ahead and MT row tiles a
# warp: A = (small shapes 1, run-time shapes 4), B = (2, 2), C = (1, 1); the test on A.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
mk() { local d=$1 s=$2 l=$3; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
  sed -i "s/constexpr int kSmallMT = 1, kLargeMT = 4;/constexpr int kSmallMT = $s, kLargeMT = $l;/" $d/kernels/cuda/conv_imma.cu; grep -c "kSmallMT = $s, kLargeMT = $l" $d/kernels/cuda/conv_imma.cu; }
mk /tmp/vB 2 2; mk /tmp/vC 1 1
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j8 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
for v in B C; do (cmake -S /tmp/v$v -B /tmp/v$v/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/v$v/b -j4 --target vfilter_gpu_bench >/tmp/v$v/build.log 2>&1) & done
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 200 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*:Gpu.TensorPath*' >$out/imma_test.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|Failure|differ|max diff" $out/imma_test.txt | head -20
/tmp/bk/vfilter_gpu_bench --only dense >$out/bench_A.txt 2>&1
/tmp/vB/b/vfilter_gpu_bench --only dense >$out/bench_B.txt 2>&1
/tmp/vC/b/vfilter_gpu_bench --only dense >$out/bench_C.txt 2>&1
echo "plane filter tiled | tensor A(1,4) B(2,2) C(1,1) | f16 auto(A) npp"
for k in 3x3 5x5 7x7 13x13 27x27 63x63; do for s in 1920x1080 3840x2160; do
  row() { grep -E "^$s +dense $k +$2 " $1 | awk '{print $5}'; }
  echo "$s $k $(row $out/bench_A.txt tiled) | $(row $out/bench_A.txt tensor) $(row $out/bench_B.txt tensor) $(row $out/bench_C.txt tensor) | $(row $out/bench_A.txt tensor-f16) $(row $out/bench_A.txt auto) $(row $out/bench_A.txt npp)"
done; done
echo "done in $(( $(date +%s) - t0 )) s"
