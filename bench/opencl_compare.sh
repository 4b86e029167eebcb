#!/usr/bin/env bash
# vfilter against FFmpeg's own GPU filters (OpenCL), one stream encoded with libx264 veryfast, and
# the ceiling of any such pipeline: x264 alone, encoding vfilter's filtered frames from memory with
# nothing else running (docs/benchmarks.md, "Against FFmpeg's own GPU filters"). For the GPU machine.
#   bench/opencl_compare.sh 1080|2160
# Environment: VFILTER (default build-device/vfilter, built with -DVF_FFMPEG_STATIC=ON), FFMPEG (an
# ffmpeg with libx264, default ffmpeg: the static one of scripts/use_static_ffmpeg.sh), OCL_DIR (the
# ffmpeg of `scripts/build_static_ffmpeg.sh --profile opencl` and its libOpenCL.so.1, default
# .device/ocl; see docs/gpu-machine.md), WORK (scratch, default /tmp/vf-opencl).
# The clip: scripts/make_test_clip.sh, 30 s at 1080p30 or 10 s at 2160p30. Prints a markdown table;
# fps = frames / wall time of the whole command, start-up included.
set -euo pipefail
res=${1:?usage: $0 1080|2160}
here="$(cd "$(dirname "$0")/.." && pwd)"
vfilter=${VFILTER:-$here/build-device/vfilter}
ffmpeg=${FFMPEG:-ffmpeg}
ocl_dir=$(realpath "${OCL_DIR:-$here/.device/ocl}")
work=${WORK:-/tmp/vf-opencl}
mkdir -p "$work"
# The filtered frames, raw, in memory (up to 3.7 GB at 2160p): removed however the script ends.
frames_raw=/dev/shm/vf-opencl-$$.nut
trap 'rm -f "$frames_raw"' EXIT
case $res in
  1080) size=1920x1080 secs=30 ;;
  2160) size=3840x2160 secs=10 ;;
  *) echo "resolution must be 1080 or 2160" >&2; exit 2 ;;
esac
frames=$((secs * 30))
clip=$work/clip_${res}_${secs}s.mp4
[ -f "$clip" ] || FFMPEG=$ffmpeg "$here/scripts/make_test_clip.sh" "$clip" $size $secs 30 >/dev/null

# FFmpeg finds NVIDIA's OpenCL driver through an ICD file naming it.
driver=$(ldconfig -p | awk '/libnvidia-opencl.so.1 /{print $NF; exit}')
[ -n "$driver" ] || { echo "no libnvidia-opencl.so.1 on this machine" >&2; exit 1; }
mkdir -p "$work/icd" && echo "$driver" >"$work/icd/nvidia.icd"
ocl_ffmpeg() { OCL_ICD_VENDORS=$work/icd LD_LIBRARY_PATH=$ocl_dir "$ocl_dir/ffmpeg" "$@"; }

binomial="1 4 6 4 1 4 16 24 16 4 6 24 36 24 6 4 16 24 16 4 1 4 6 4 1"
conv="0m=$binomial:1m=$binomial:2m=$binomial:0rdiv=1/256:1rdiv=1/256:2rdiv=1/256"
x264=(-c:v libx264 -preset veryfast -crf 23)
# name | FFmpeg's OpenCL filter | the same string for vfilter --compat ffmpeg
cases=(
  "sobel|sobel_opencl|sobel"
  "5x5 convolution|convolution_opencl=$conv|convolution=$conv"
  "avgblur (box 7)|avgblur_opencl=sizeX=3|avgblur=sizeX=3"
  "boxblur|boxblur_opencl|boxblur"
  "unsharp|unsharp_opencl|unsharp"
)
now() { date +%s.%N; }
fps() { awk -v n=$frames -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", n / (b - a)}'; }
ratio() { awk -v x="$1" -v y="$2" 'BEGIN{printf "%.2fx", x / y}'; }

echo "${res}p, $frames frames, libx264 veryfast crf 23"
echo "| filter | FFmpeg OpenCL | vfilter | ratio | vfilter sustained | x264 alone | ratio | vfilter's bottleneck |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS='|' read -r name ocl vf <<<"$c"
  a=$(now)
  ocl_ffmpeg -v error -y -init_hw_device opencl=gpu:0.0 -filter_hw_device gpu -i "$clip" \
    -vf "format=yuv420p,hwupload,$ocl,hwdownload,format=yuv420p" "${x264[@]}" "$work/ocl.mp4"
  b=$(now); anchor=$(fps "$a" "$b")
  a=$(now)
  "$vfilter" -q --compat ffmpeg --device cuda -i "$clip" -f "$vf" --codec libx264 --preset veryfast --crf 23 \
    -y -o "$work/vf.mp4" --stats-json "$work/stats.json"
  b=$(now); ours=$(fps "$a" "$b")
  read -r sustained bottleneck < <(python3 -c "import json; d = json.load(open('$work/stats.json')); print(round(d['sustained_fps'], 1), d['bottleneck'])")
  # x264's ceiling: the same filtered frames, raw, from memory, encoded alone.
  "$vfilter" -q --compat ffmpeg --device cuda -i "$clip" -f "$vf" --no-audio --codec rawvideo -y -o "$frames_raw"
  a=$(now)
  "$ffmpeg" -v error -y -i "$frames_raw" "${x264[@]}" -f mp4 "$work/x264.mp4"
  b=$(now); alone=$(fps "$a" "$b")
  rm -f "$frames_raw"
  echo "| $name | $anchor | $ours | $(ratio "$ours" "$anchor") | $sustained | $alone | $(ratio "$alone" "$anchor") | $bottleneck |"
done
