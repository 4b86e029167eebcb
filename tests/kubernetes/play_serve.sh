# shellcheck shell=bash
# Part of tests/kubernetes/play.sh (run in its context: its helpers, image and cameras).
# overlays/cpu: two shards; each camera is recorded by exactly one pod, both pods report ready, and
# killing one pod's vfilter loses only that shard's frames until podman restarts it (the other
# shard's cameras lose none: frames in == frames out, no reconnect, no drop).
step "render overlays/cpu with the test's camera list, token and image (kustomize)"
mkdir -p "$work/serve"
test_overlay "$work/serve" cpu
cameras_and_token "$work/serve" 4
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
