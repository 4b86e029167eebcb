#!/usr/bin/env bash
# Builds a minimal static FFmpeg + x264 from the distribution's source packages (FFmpeg 5.1 on
# Debian 12) into PREFIX (default .static-ffmpeg/), for machines without FFmpeg (the GPU machines:
# see docs/gpu-machine.md) and for the container image (--profile container: adds the network
# protocols, live demuxers and muxers, and V4L2 capture, so the runtime image needs no FFmpeg
# packages and their hundreds of megabytes of dependencies); --profile opencl adds FFmpeg's
# OpenCL filters for the comparison benchmark (docs/benchmarks.md; its ffmpeg then needs
# libOpenCL.so.1, copied into PREFIX/lib, and an ICD naming the GPU's OpenCL driver).
# vfilter links it with -DVF_FFMPEG_STATIC=ON (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig; see
# scripts/gpu_check.sh pipeline), and the ffmpeg command built here runs the side-by-side
# comparisons. Options after --disable-everything only: it resets every component list.
# Needs deb-src access (added for the build if missing).
#   scripts/build_static_ffmpeg.sh [--profile minimal|container|opencl] [PREFIX]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
profile=minimal
if [ "${1:-}" = --profile ]; then profile=$2; shift 2; fi
case $profile in minimal|container|opencl) ;; *) echo "unknown profile '$profile'" >&2; exit 2 ;; esac
prefix="$(realpath -m "${1:-$here/.static-ffmpeg}")"
work="$prefix/src"
mkdir -p "$work"
export DEBIAN_FRONTEND=noninteractive

"$here/scripts/enable_deb_src.sh" || [ $? = 10 ]
apt-get update -qq
apt-get install -y -qq --no-install-recommends dpkg-dev nasm libffmpeg-nvenc-dev pkg-config build-essential \
  ca-certificates xz-utils >/dev/null

cd "$work"
[ -d x264-* ] 2>/dev/null || apt-get source -qq --download-only x264 ffmpeg >/dev/null
for dsc in x264_*.dsc ffmpeg_*.dsc; do
  dir=$(dpkg-source --help >/dev/null; basename "$dsc" .dsc | sed 's/_/-/; s/-[^-]*$//')
  [ -d "$dir" ] || dpkg-source -x --skip-patches "$dsc" >/dev/null
done
x264_dir=$(ls -d x264-*/ | head -1)
ffmpeg_dir=$(ls -d ffmpeg-*/ | head -1)

echo "== x264 ($x264_dir)"
(cd "$x264_dir" && ./configure --prefix="$prefix" --enable-static --enable-pic --disable-cli --disable-opencl \
  --disable-lavf --disable-ffms --disable-gpac --disable-lsmash >/dev/null && make -j"$(nproc)" >/dev/null && make install >/dev/null)

echo "== FFmpeg ($ffmpeg_dir)"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
components=(
  --enable-protocol=file,pipe
  --enable-decoder=h264,hevc,mpeg4,ffv1,rawvideo,mjpeg,aac,mp2,mp3,pcm_s16le,png,h264_cuvid,hevc_cuvid
  --enable-encoder=libx264,ffv1,mjpeg,mpeg4,rawvideo,aac,mp2,pcm_s16le,flac,h264_nvenc,hevc_nvenc
  --enable-hwaccel=h264_nvdec,hevc_nvdec
  --enable-demuxer=mov,matroska,mpegts,nut,avi,rawvideo,h264,hevc,image2
  --enable-muxer=mp4,mov,matroska,mpegts,nut,avi,rawvideo,null,h264,flac,segment,stream_segment,hls
  --enable-parser=h264,hevc,aac,mpeg4video,mpegaudio,png
  --enable-bsf=h264_mp4toannexb,hevc_mp4toannexb,aac_adtstoasc
  --enable-filter=sobel,prewitt,scharr,roberts,kirsch,convolution,gblur,avgblur,boxblur,unsharp
  --enable-filter=scale,format,null,anull,aresample,testsrc2,sine,noise,crop
  # The watch tests' clips (tests/cli/serve_watch_test.cpp, serve_clips_test.cpp): a picture going
  # black, and each frame's mean luma.
  --enable-filter=color,concat,signalstats
  --enable-indev=lavfi
  # FFmpeg's own tests of these filters (tests/e2e/fate_filter_test.cpp): FATE's pgmyuv frames,
  # framecrc output, and the avgblur refcmp tests' comparison (to -f null, which takes
  # wrapped_avframe frames).
  --enable-decoder=pgmyuv --enable-muxer=framecrc,framemd5 --enable-filter=psnr,ssim,metadata,split
  --enable-encoder=wrapped_avframe)
network=--disable-network
if [ "$profile" = container ]; then
  # Cameras and streams: RTSP/RTP, RTMP, UDP, TCP, HTTP (no TLS: rtsps, rtmps and https need a
  # TLS library this static build leaves out), V4L2 capture (raw and MJPEG), and the muxers of
  # every network output kind (FLV for RTMP, RTSP, RTP). Segments and HLS are in both profiles:
  # serve records with them wherever it runs.
  network=--enable-network
  components+=(
    --enable-protocol=file,pipe,tcp,udp,rtp,rtmp,http,httpproxy,hls
    --enable-decoder=mjpeg,vp8,vp9,mpeg2video,opus,ac3,pcm_mulaw,pcm_alaw,adpcm_g726
    --enable-demuxer=rtsp,sdp,rtp,flv,live_flv,hls,mjpeg,mpegvideo,aac,mp3,wav,ogg,webm_dash_manifest
    --enable-muxer=flv,rtsp,rtp,rtp_mpegts,webm,ogg,wav
    --enable-parser=mjpeg,vp8,vp9,mpegvideo,opus,ac3
    --enable-bsf=extract_extradata,dump_extradata
    --enable-indev=v4l2)
fi
if [ "$profile" = opencl ]; then
  # FFmpeg's GPU versions of the convolution filters (Khronos headers, the ICD loader linked).
  apt-get install -y -qq --no-install-recommends opencl-c-headers ocl-icd-opencl-dev >/dev/null
  components+=(--enable-opencl
    --enable-filter=sobel_opencl,prewitt_opencl,roberts_opencl,convolution_opencl,avgblur_opencl,boxblur_opencl
    --enable-filter=unsharp_opencl,hwupload,hwdownload)
fi
(cd "$ffmpeg_dir" && ./configure --prefix="$prefix" --enable-static --disable-shared --enable-pic --enable-gpl \
  --disable-autodetect --disable-doc --disable-debug "$network" \
  --enable-libx264 --enable-ffnvcodec --enable-nvdec --enable-cuvid --enable-nvenc \
  --disable-everything "${components[@]}" \
  --enable-swscale --enable-swresample --enable-avdevice --enable-avfilter \
  --extra-cflags="-I$prefix/include" --extra-ldflags="-L$prefix/lib" --pkg-config-flags=--static >/dev/null \
  && make -j"$(nproc)" >/dev/null && make install >/dev/null)
if [ "$profile" = opencl ]; then  # the loader travels with the ffmpeg command
  cp -L "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" "$prefix/lib/libOpenCL.so.1"
fi
# The Video Codec SDK's headers FFmpeg was configured with, for vfilter's own NVDEC decoder
# (decode/nvdec_decoder.*), so that the GPU machine builds it from this prefix alone.
[ -d /usr/include/ffnvcodec ] && cp -r /usr/include/ffnvcodec "$prefix/include/"
# yaml-cpp for `vfilter serve`, beside FFmpeg.
"$here/scripts/build_static_deps.sh" "$prefix"
# .pc paths relative to ${prefix}, so that the folder can be moved or carried elsewhere.
. "$here/scripts/use_static_ffmpeg.sh" "$prefix"
echo "static FFmpeg in $prefix ($(du -sh "$prefix/lib" | cut -f1) of libraries); ffmpeg: $prefix/bin/ffmpeg"
