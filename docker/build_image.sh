#!/usr/bin/env bash
# Builds docker/Dockerfile's CPU-only image with podman, here, without a Docker engine or a
# registry: both stages are based on a local Debian 12 made by debootstrap (kept as the image
# localhost/vfilter-debian-base:bookworm), and podman's layer cache makes a second build of the
# same tree take seconds. Used by docker/test.sh and tests/kubernetes/play.sh.
#   docker/build_image.sh [IMAGE]     (default localhost/vfilter:test; needs root, podman, debootstrap)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
image=${1:-localhost/vfilter:test}
cache="$here/build-docker"
base=localhost/vfilter-debian-base:bookworm
mkdir -p "$cache"
# One build at a time per checkout (test.sh builds in the background while tests may ask for it):
# a second caller waits, then finds every layer in podman's cache.
exec 9>"$cache/.build.lock"
flock 9
fail() { echo "docker/build_image.sh: FAIL: $*" >&2; exit 1; }

echo "== base image: Debian 12 (debootstrap --variant=minbase)"
if ! podman image exists "$base"; then
  if [ ! -f "$cache/rootfs/etc/debian_version" ]; then
    rm -rf "$cache/rootfs"
    debootstrap --variant=minbase bookworm "$cache/rootfs" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 \
      || { tail -20 "$cache/debootstrap.log"; fail "debootstrap"; }
  fi
  rm -f "$cache"/rootfs/var/cache/apt/archives/*.deb "$cache"/rootfs/var/cache/apt/*.bin  # debootstrap's downloads
  tar -C "$cache/rootfs" -c . | podman import - "$base" >/dev/null
fi

echo "== podman build (CPU-only, base $base)"
start=$(date +%s)
podman build --isolation chroot --format docker --network host -f docker/Dockerfile \
  --build-arg BASE_IMAGE="$base" --build-arg RUNTIME_IMAGE="$base" --build-arg VF_CUDA=OFF \
  -t "$image" . >"$cache/build.log" 2>&1 || { tail -40 "$cache/build.log"; fail "podman build"; }
size=$(podman image inspect --format '{{.Size}}' "$image")
base_size=$(podman image inspect --format '{{.Size}}' "$base")
printf 'runtime image: %d MB (its base: %d MB); built in %d s\n' $((size / 1000000)) $((base_size / 1000000)) $(( $(date +%s) - start ))
echo "$size" >"$cache/image-size-bytes"

