#!/usr/bin/env bash
# Ninth pass: the 3x3 strips with cache hints, built side by side: V1 the strip's 16-byte loads with
# an L2 256-byte prefetch hint, V2 = V1 + streaming (.cs) stores, V3 the .cs stores alone.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
f=kernels/cuda/strip16_dp4a.cuh
LD='uint4 m; asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(m.x), "=r"(m.y), "=r"(m.z), "=r"(m.w) : "l"(p));'
ST='asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(out + x), "r"(o[0]), "r"(o[1]), "r"(o[2]), "r"(o[3]) : "memory");'
mk() { local d=/tmp/v$1; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/; }
mk 1; mk 2; mk 3
python3 - "$LD" "$ST" <<'PY'
import sys
ld, st = sys.argv[1], sys.argv[2]
f='kernels/cuda/strip16_dp4a.cuh'
a='    const uint4 m = __ldg(reinterpret_cast<const uint4*>(p));'
b='        *reinterpret_cast<uint4*>(out + x) = make_uint4(o[0], o[1], o[2], o[3]);'
for v, (L, S) in {1: (True, False), 2: (True, True), 3: (False, True)}.items():
    p = f'/tmp/v{v}/{f}'; s = open(p).read()
    assert a in s and b in s
    if L: s = s.replace(a, '    ' + ld)
    if S: s = s.replace(b, '        ' + st)
    open(p, 'w').write(s)
PY
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j4 --target vfilter_gpu_bench >/tmp/build.log 2>&1 &
for v in 1 2 3; do (cmake -S /tmp/v$v -B /tmp/v$v/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/v$v/b -j4 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/v$v/build.log 2>&1) & done
wait
echo "built in $(( $(date +%s) - t0 )) s"; for v in 1 2 3; do [ -x /tmp/v$v/b/vfilter_gpu_bench ] || grep -E "error" /tmp/v$v/build.log | head -5; done
for r in 1 2; do for v in 0 1 2 3; do b=/tmp/v$v/b/vfilter_gpu_bench; [ $v = 0 ] && b=/tmp/bk/vfilter_gpu_bench
  $b --only "dense 3x3" --only "dense 5x5" --only sobel --only "dense 7x7" >$out/small_v${v}_r$r.txt 2>&1; done; done
echo "variant: 0 as is, 1 L2::256B loads, 2 + .cs stores, 3 .cs stores"
for s in 1920x1080 3840x2160; do for k in "sobel   " "dense 3x3" "dense 5x5" "dense 7x7"; do
  line="$s $k:"; for v in 0 1 2 3; do for r in 1 2; do line="$line $(grep -E "^$s +$k +(auto|tiled) " $out/small_v${v}_r$r.txt | head -1 | awk '{print $(NF-2)}')"; done; line="$line |"; done; echo "$line"; done; done
grep -E "npp " $out/small_v0_r1.txt | grep -v b2b
timeout 120 /tmp/v2/b/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*:Gpu.FiveByFive*' >$out/v2_tests.txt 2>&1; echo "v2 small tests exit $?"; grep -E "PASSED|FAILED" $out/v2_tests.txt
echo "done in $(( $(date +%s) - t0 )) s"
