#!/usr/bin/env bash
# Ninth pass: what mma.sync m16n8k32 u8.s8 becomes on sm_90 (SASS), and the dense rows with the
# products as s8.s8 (wrong results, timing only) to see what the mixed signedness costs.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
d=/tmp/s8; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
sed -i 's/m16n8k32.row.col.s32.u8.s8.s32/m16n8k32.row.col.s32.s8.s8.s32/' $d/kernels/cuda/conv_imma.cu; grep -c "s32.s8.s8.s32" $d/kernels/cuda/conv_imma.cu
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j10 --target vfilter_gpu_bench >/tmp/build.log 2>&1 &
(cmake -S $d -B $d/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build $d/b -j6 --target vfilter_gpu_bench >$d/build.log 2>&1) &
wait
echo "built in $(( $(date +%s) - t0 )) s"
o=$(find /tmp/bk -name "conv_imma.cu.o" | head -1); o2=$(find $d/b -name "conv_imma.cu.o" | head -1)
cuobjdump -sass $o > $out/imma_sass.txt; cuobjdump -sass $o2 > $out/imma_s8s8_sass.txt
for f in $out/imma_sass.txt $out/imma_s8s8_sass.txt; do
  echo "== $f"; awk '/Function :/{fn=$0} fn ~ /ILi2ELin2ELi3ELi3E/ {print}' $f > /tmp/k.txt
  grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+" /tmp/k.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25
  grep -oE "IMMA[A-Z0-9_.]*" /tmp/k.txt | sort | uniq -c
done
/tmp/bk/vfilter_gpu_bench --only dense --iterations 50 >$out/bench_u8s8.txt 2>&1
$d/b/vfilter_gpu_bench --only dense --iterations 50 >$out/bench_s8s8.txt 2>&1
paste <(grep -E " tensor " $out/bench_u8s8.txt | awk '{print $1, $3, $5}') <(grep -E " tensor " $out/bench_s8s8.txt | awk '{print $5}')
echo "done in $(( $(date +%s) - t0 )) s"
