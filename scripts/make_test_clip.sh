#!/usr/bin/env bash
# Makes a benchmark/test clip with real motion and noise: FFmpeg's testsrc2 pattern (moving
# objects, gradients, text) with temporal noise, H.264 (libx264 veryfast, crf 18) + AAC sine.
#   scripts/make_test_clip.sh OUT.mp4 [WIDTHxHEIGHT] [SECONDS] [FPS]
set -euo pipefail
out=${1:?usage: $0 OUT.mp4 [WIDTHxHEIGHT] [SECONDS] [FPS]}
size=${2:-1920x1080}
seconds=${3:-10}
fps=${4:-30}
ffmpeg_bin=${FFMPEG:-ffmpeg}
"$ffmpeg_bin" -hide_banner -loglevel error -y \
  -f lavfi -i "testsrc2=size=${size}:rate=${fps}:duration=${seconds},noise=alls=12:allf=t+u" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=${seconds}" \
  -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -g $((fps * 2)) \
  -c:a aac -b:a 128k -shortest "$out"
echo "$out"
