#!/usr/bin/env bash
# vfilter against the ffmpeg command line on the same clip, same filter, same encoder settings.
# Prints a markdown table (fps = frames / wall time, best of N runs) and writes JSON.
#   bench/compare_ffmpeg.sh CLIP [RUNS] [OUT.json]
# Environment: VFILTER (binary, default build/vfilter), FFMPEG (default ffmpeg), VFILTER_ARGS
# (extra vfilter options, e.g. "--device cpu"), CASES (only the cases whose name contains it,
# e.g. CASES=gaussian).
set -euo pipefail
clip=${1:?usage: $0 CLIP [RUNS] [OUT.json]}
runs=${2:-3}
json_out=${3:-}
here="$(cd "$(dirname "$0")/.." && pwd)"
vfilter=${VFILTER:-$here/build/vfilter}
ffmpeg=${FFMPEG:-ffmpeg}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
frames=$("$ffmpeg" -hide_banner -i "$clip" -map 0:v:0 -c copy -f null - 2>&1 | grep -o 'frame= *[0-9]*' | tail -1 | grep -o '[0-9]*')
enc=(-c:v libx264 -preset veryfast -crf 23)
sharpen="0 -1 0 -1 5 -1 0 -1 0"

# name | ffmpeg -vf (empty: none) | vfilter --filter | encode (x264 or null)
cases=(
  "transcode, no filter||identity|x264"
  "sobel|sobel|sobel=planes=all:rest=copy|x264"
  "3x3 convolution (sharpen)|convolution=0m='$sharpen':1m='$sharpen':2m='$sharpen'|convolution=m=$sharpen|x264"
  "gaussian sigma 3.2 (ffmpeg gblur)|gblur=sigma=3.2|gaussian=sigma=3.2|x264"
  "sobel, no encode|sobel|sobel=planes=all:rest=copy|null"
  "3x3 convolution, no encode|convolution=0m='$sharpen':1m='$sharpen':2m='$sharpen'|convolution=m=$sharpen|null"
  "gaussian sigma 3.2, no encode|gblur=sigma=3.2|gaussian=sigma=3.2|null"
  "decode only|||null"
)

best_time() {  # runs "$@" $runs times, prints the shortest wall time in seconds
  local best=""
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/err" || { echo "command failed: $*" >&2; cat "$work/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    best=$(python3 -c "a=$t1-$t0; b='$best'; print(a if not b else min(a, float(b)))")
  done
  echo "$best"
}

echo "clip: $clip ($frames frames), best of $runs runs, $(nproc) cores"
printf '| case | ffmpeg fps | vfilter fps | vfilter / ffmpeg |\n|---|---|---|---|\n'
json="["
for c in "${cases[@]}"; do
  IFS='|' read -r name ffvf vfspec encode <<<"$c"
  [[ -z "${CASES:-}" || "$name" == *"$CASES"* ]] || continue
  ff=("$ffmpeg" -hide_banner -loglevel error -y -i "$clip")
  vf=("$vfilter" -q -i "$clip" -y ${VFILTER_ARGS:-})
  [ -n "$ffvf" ] && ff+=(-vf "$ffvf")
  [ -n "$vfspec" ] && vf+=(-f "$vfspec") || vf+=(-f identity)
  if [ "$encode" = x264 ]; then
    ff+=("${enc[@]}" -c:a copy "$work/ff.mp4")
    vf+=(--codec libx264 --preset veryfast --crf 23 -o "$work/vf.mp4")
  else
    ff+=(-an -f null -)
    vf+=(-o null)
  fi
  tf=$(best_time "${ff[@]}")
  tv=$(best_time "${vf[@]}")
  row=$(python3 -c "f=$frames; print(f'{f/$tf:.1f} | {f/$tv:.1f} | {$tf/$tv:.2f}x')")
  echo "| $name | $row |"
  json+=$(python3 -c "import json; print(json.dumps({'case': '''$name''', 'frames': $frames, 'ffmpeg_s': $tf, 'vfilter_s': $tv}))"),
done
json="${json%,}]"
[ -n "$json_out" ] && echo "$json" >"$json_out"
echo
echo "ffmpeg: $("$ffmpeg" -version | head -1)"
