# shellcheck shell=bash
# Part of tests/kubernetes/play.sh (run in its context: its helpers and image).
# overlays/cpu-batch: the Indexed Job's four pods filter six clips; one pod is killed in the middle
# of a file and restarted (restartPolicy OnFailure); every output is complete, none is left
# incomplete or written twice, and running the job again redoes nothing.
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
