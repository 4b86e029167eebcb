#!/usr/bin/env bash
# Mutation check of the new GPU paths: each mutation must make the new tests fail.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >$out/build.log 2>&1 || { echo build failed; exit 1; }
F='Gpu.BoxExactAtEveryTileEdge:Gpu.SeparableAtEveryTapCount:Gpu.InterleavedAndShiftedLayouts:AllFilters/GpuMatchesReference.AutoPath/*'
S=kernels/cuda/conv_separable.cu; T=kernels/cuda/tile_loader.cuh
mutate() {  # name file from to
  cp $2 /tmp/orig; python3 -c "import sys;p,a,b=sys.argv[1:];s=open(p).read();assert a in s,a;open(p,'w').write(s.replace(a,b,1))" "$2" "$3" "$4" || { echo "$1: pattern missing"; return; }
  cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >$out/build_$1.log 2>&1 || { echo "$1: build failed"; cp /tmp/orig $2; return; }
  /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter="$F" >$out/m_$1.txt 2>&1
  echo "$1: $(grep -cE '^\[  FAILED  \] ' $out/m_$1.txt) failed test lines; $(grep -E 'tests ran' $out/m_$1.txt)"
  cp /tmp/orig $2
}
mutate walk_no_leave $S 's += (in[u] >> src.shift) - (out[u] >> src.shift);' 's += (in[u] >> src.shift);'
mutate edge_off_by_one $S 'in[u] = at(y0 + q0 + u + ry + 1)' 'in[u] = at(y0 + q0 + u + ry)'
mutate across_off_by_one $S 'const int sum = row[x + kw - 1]' 'const int sum = row[x + kw - 2]'
mutate rowpass_taps $S 'const float k = c_sep_taps[off + ib + ii];' 'const float k = c_sep_taps[off + ii];'
mutate loader_step $T 'const int sx_step = sx * src.step;' 'const int sx_step = sx;'
mutate loader_last_rows $T 'if (r < rows) tile[r * cols + c] = v[u];' 'if (r < rows - 1) tile[r * cols + c] = v[u];'
