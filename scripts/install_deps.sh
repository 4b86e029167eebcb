#!/usr/bin/env bash
# Installs what vfilter needs to build and test, from the distribution's packages (Debian 12 /
# Ubuntu 22.04+). The one install script: run.sh, test.sh and docker/Dockerfile all call it.
#   scripts/install_deps.sh          build + run dependencies
#   scripts/install_deps.sh --test   also the test tools (GoogleTest, the ffmpeg command, python3)
#   scripts/install_deps.sh --runtime  only the shared libraries vfilter needs at run time
set -euo pipefail

mode=build
case "${1:-}" in
  --test) mode=test ;;
  --runtime) mode=runtime ;;
  "") ;;
  *) echo "usage: $0 [--test|--runtime]" >&2; exit 2 ;;
esac

build_pkgs=(build-essential cmake pkg-config
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev
  libspdlog-dev libcli11-dev nlohmann-json3-dev)
# python3: tests/data/bad/make_bad_inputs.sh. The live tests' real peers: GStreamer's RTSP
# server (python3-gi, gir1.2-gst-rtsp-server-1.0, x264enc from plugins-ugly) and nginx's RTMP module.
test_pkgs=(libgtest-dev ffmpeg python3
  python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
  nginx-light libnginx-mod-rtmp)
runtime_pkgs=(libavformat59 libavcodec59 libavutil57 libswscale6 libavdevice59 libspdlog1.10 ca-certificates)

case $mode in
  build) wanted=("${build_pkgs[@]}") ;;
  test) wanted=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
  runtime) wanted=("${runtime_pkgs[@]}") ;;
esac

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
