#!/usr/bin/env bash
# Builds docker/Dockerfile and runs the image, here, without a Docker engine: podman (daemonless,
# chroot isolation for the build, runc to run), with both stages based on a local Debian 12 made
# by debootstrap and a CPU-only build (no CUDA image, no GPU here). Then checks what a user
# relies on: a clip is filtered through a mounted folder, the output decodes, the container runs
# as a non-root user, the health check works, and bad configuration (no mount, an unwritable
# mount, no GPU, an unreachable camera) gives a one-line error with a hint and a non-zero exit.
#   docker/test.sh          (ctest runs it as Docker.BuildAndRunWithPodman, label docker)
# Exit 77 (ctest: skipped) when not root or podman/debootstrap are missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
cache="$here/build-docker"
image=localhost/vfilter:test
mkdir -p "$cache"

if [ "$(id -u)" -ne 0 ]; then echo "docker/test.sh: needs root for podman and debootstrap; skipped"; exit 77; fi
for tool in podman debootstrap runc ffmpeg ffprobe; do
  command -v "$tool" >/dev/null || { echo "docker/test.sh: $tool missing (scripts/install_deps.sh --test); skipped"; exit 77; }
done
# The sandbox may lack CAP_SYS_RESOURCE: ask for limits no higher than ours, so runc can set them.
run_opts=(--rm --no-healthcheck --runtime runc --network host --ulimit "nofile=1024:1024" --ulimit "nproc=4096:4096")

fail() { echo "docker/test.sh: FAIL: $*" >&2; exit 1; }

docker/build_image.sh "$image" || fail "building the image"

podman image inspect --format '{{.Config.User}}|{{json .Config.Entrypoint}}|{{json .Config.Healthcheck}}|{{json .Config.Env}}' "$image" >"$cache/config.txt"
grep -q '^vfilter|\["vfilter"\]|' "$cache/config.txt" || fail "user or entrypoint: $(cat "$cache/config.txt")"
grep -q '"health"' "$cache/config.txt" || fail "no HEALTHCHECK: $(cat "$cache/config.txt")"
grep -q 'NVIDIA_DRIVER_CAPABILITIES=compute,video,utility' "$cache/config.txt" || fail "NVIDIA_DRIVER_CAPABILITIES"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=320x240:rate=25 -f lavfi -i sine=duration=2 -t 2 \
  -c:v libx264 -preset ultrafast -c:a aac "$work/in.mp4"

echo "== a clip through a mounted folder"
podman run "${run_opts[@]}" -v "$work:/data" "$image" -i /data/in.mp4 -f sobel -o /data/out.mp4 --no-progress \
  >"$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the container run failed"; }
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$work/out.mp4")
[ "$frames" = 50 ] || fail "expected 50 frames in the output, got '$frames'"
ffmpeg -nostdin -v error -i "$work/out.mp4" -f null - 2>"$work/decode.log" && [ ! -s "$work/decode.log" ] \
  || fail "the output does not decode cleanly: $(cat "$work/decode.log")"
owner=$(stat -c %u "$work/out.mp4")
[ "$owner" = 10001 ] || fail "the output was written by uid $owner, not the container's user 10001"
uid=$(podman run "${run_opts[@]}" --entrypoint id "$image" -u)
[ "$uid" = 10001 ] || fail "the container runs as uid $uid"
echo "ok: 50 frames, decodes, written by uid 10001 (non-root)"

echo "== health check"
podman run "${run_opts[@]}" --entrypoint vfilter "$image" health || fail "health without an endpoint must pass"
if podman run "${run_opts[@]}" -e VFILTER_METRICS_PORT=1 --entrypoint vfilter "$image" health 2>/dev/null; then
  fail "health must fail when the endpoint does not answer"
fi
echo "ok"

# expect CODE TEXT ARGS...: the container exits with CODE and prints one error line containing TEXT.
expect() {
  local code=$1 text=$2
  shift 2
  local got=0
  timeout 60 podman run "${run_opts[@]}" "$@" >"$work/err.log" 2>&1 || got=$?
  [ "$got" = "$code" ] || { cat "$work/err.log"; fail "$* exited $got, expected $code"; }
  grep -q "vfilter: error: .*$text" "$work/err.log" || { cat "$work/err.log"; fail "$*: no error line with '$text'"; }
  echo "ok: exit $code: $(grep 'vfilter: error' "$work/err.log" | head -1)"
}
echo "== bad configuration"
expect 3 "mount the folder" "$image" -i /data/in.mp4 -o /data/out2.mp4
ro=$(mktemp -d)
cp "$work/in.mp4" "$ro/"
chmod 755 "$ro"
expect 4 "mount the folder" -v "$ro:/data" "$image" -i /data/in.mp4 -o /data/out.mp4
rm -rf "$ro"
expect 6 "gpus all" -v "$work:/data" "$image" -i /data/in.mp4 -o /data/gpu.mp4 --device cuda
expect 3 "Connection refused" "$image" -i rtsp://127.0.0.1:1/cam --timeout 3 -o /data/cam.mp4
expect 2 "no output given" "$image" -i /data/in.mp4
echo "docker/test.sh: all passed"
