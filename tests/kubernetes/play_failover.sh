# shellcheck shell=bash
# Part of tests/kubernetes/play.sh (run in its context: its helpers, image and cameras).
# overlays/cpu-failover: three vfilter shards coordinated through the overlay's three etcd members
# (docs/kubernetes.md, "Failover"), six cameras. One vfilter pod is deleted at once (podman pod rm
# without grace: what a lost node, or `kubectl delete pod --force --grace-period=0`, leaves, and
# the StatefulSet does not replace it meanwhile): each of its cameras records on a surviving pod
# within the lease time plus a start, and the fleet list through a survivor shows it there with
# `home` the lost shard. The pod is then played again (the replacement, same name and volume) and
# takes its cameras back; no camera ever runs on two shards.
# What the test changes from the manifests, for this machine:
#   - etcd's image: Debian's etcd-server binary (the one the local failover tests run) copied onto
#     the Debian base that docker/build_image.sh made, instead of quay.io/coreos/etcd (no registry
#     here); the manifest's command and flags are played as they are;
#   - three shards instead of the overlay's two (replicas, with the shard count copied from it the
#     way the overlay does), so that a lost pod leaves two survivors;
#   - etcd's members on loopback addresses of their own (127.0.0.2 to .4, the manifest's ports),
#     which their names in the headless Service (etcd-0.etcd...) resolve to in every pod
#     (pods_from_manifests.mjs says how): the URLs in their flags and in VFILTER_STORE are played
#     as written.
lease=5  # serve's store-lease: the camera list sets none
# The lease, the survivors' read of the store and the RTSP cameras' opening, on a CI machine that
# runs six pods on few cores (the time taken is printed; docs/benchmarks.md measures it).
takeover_bound=$((lease + 10))

step "failover: the etcd image (Debian's etcd-server binary on the Debian base image)"
etcd_image=localhost/vfilter-etcd:test
mkdir -p "$work/etcd-image"
cp "$(command -v etcd)" "$work/etcd-image/etcd"
printf 'FROM localhost/vfilter-debian-base:bookworm\nCOPY etcd /usr/local/bin/etcd\n' >"$work/etcd-image/Containerfile"
podman build --isolation chroot --format docker -t "$etcd_image" "$work/etcd-image" >"$work/etcd-image/build.log" 2>&1 \
  || { cat "$work/etcd-image/build.log"; fail "building $etcd_image"; }
podman run --rm "$etcd_image" etcd --version >"$work/etcd-image/version.log" 2>&1 \
  || { cat "$work/etcd-image/version.log"; fail "this machine's etcd does not run on the image's Debian"; }

step "render overlays/cpu-failover with three shards, six cameras, the token and the images"
mkdir -p "$work/failover"
test_overlay "$work/failover" cpu-failover
# test_overlay's kustomization ends with its images: list, which this continues.
cat >>"$work/failover/kustomization.yaml" <<YAML
  - name: quay.io/coreos/etcd
    newName: localhost/vfilter-etcd
    newTag: test
replicas:
  - name: vfilter
    count: 3
replacements:
  - source: {kind: StatefulSet, name: vfilter, fieldPath: spec.replicas}
    targets:
      - select: {kind: StatefulSet, name: vfilter}
        fieldPaths:
          - spec.template.spec.containers.[name=vfilter].env.[name=VFILTER_SHARD_COUNT].value
YAML
cameras_and_token "$work/failover" 6
"$kustomize" build "$work/failover" >"$work/failover.yaml"
grep -q "image: $etcd_image" "$work/failover.yaml" || fail "the rendered etcd members do not use $etcd_image"
grep -A1 'name: VFILTER_SHARD_COUNT' "$work/failover.yaml" | grep -q 'value: "3"' || fail "the rendered shard count is not 3"
grep -q 'name: VFILTER_STORE' "$work/failover.yaml" || fail "overlays/cpu-failover sets no VFILTER_STORE"

base=$(free_port)
ports=("$base" "$((base + 1))" "$((base + 2))")
members=(127.0.0.2 127.0.0.3 127.0.0.4)  # where pods_from_manifests.mjs puts etcd-0..2
for p in "${ports[@]:1}"; do [ "$(status "$p" /)" = 000 ] || fail "port $p is taken"; done
for m in "${members[@]}"; do
  for p in 2379 2380; do ! (exec 3<>"/dev/tcp/$m/$p") 2>/dev/null || fail "$m:$p is taken"; done
done
step "play the three etcd members and the three vfilter pods at once (both StatefulSets are Parallel)"
play "$work/failover.yaml" "$work/failover-pods.yaml" "$work/failover-volumes" "$base"
etcd_healthy() { [ "$(curl -s --max-time 2 "http://$1:2379/health" | json 'd["health"]' 2>/dev/null)" = true ]; }
for m in "${members[@]}"; do wait_until 60 "the etcd member at $m to be healthy" etcd_healthy "$m"; done
cluster=$(curl -s --max-time 5 -X POST -d '{}' "http://${members[0]}:2379/v3/cluster/member/list" | json 'len(d["members"])')
[ "$cluster" = 3 ] || fail "the etcd members formed a cluster of $cluster, not 3"
ready_all() { local p; for p in "${ports[@]}"; do [ "$(status "$p" /readyz)" = 200 ] || return 1; done; }
wait_until 90 "the three vfilter pods to report ready (/readyz)" ready_all
leased() { [ "$(api "$1" /fleet/shard | json 'd["store"]["lease"]' 2>/dev/null)" = True ]; }
for k in 0 1 2; do wait_until 30 "vfilter-$k to hold its lease in etcd" leased "${ports[$k]}"; done

words() { tr '\n' ' ' | sed 's/ $//'; }
# Where each camera runs, from each pod's /streams, asked in the order given (a camera handed over
# shows on the one asked second only after it left the one asked first): "NAME@SHARD:STATE" lines
# in $work/placement, leaving out what a shard reads in standby before taking a camera over and
# what it has handed on. Fails the test as soon as a camera runs on two shards.
placed() {  # shard...
  local k dup
  for k in "$@"; do
    api "${ports[$k]}" /streams | json "'\n'.join('%s@$k:%s' % (s['name'], s['state']) for s in d if s['state'] not in ('standby', 'stopped'))" 2>/dev/null || true
  done | grep . | LC_ALL=C sort >"$work/placement" || true
  dup=$(cut -d@ -f1 "$work/placement" | uniq -d)
  [ -z "$dup" ] || fail "$(words <<<"$dup") on two shards at once: $(words <"$work/placement")"
}
placed_as() {  # expected lines, shard...
  local expected=$1
  shift
  placed "$@"
  [ "$(cat "$work/placement")" = "$expected" ]
}
# The fleet list through a pod: "NAME@SHARD home HOME:STATE" for every reachable entry.
fleet_where() { api "$1" '/streams?scope=fleet' | json "'\n'.join('%s@%d home %d:%s' % (s['name'], s['shard'], s['home'], s['state']) for s in d['streams'] if s['reachable'])" | LC_ALL=C sort; }
metric_sum() {  # metric, shard...
  local name=$1 k
  shift
  for k in "$@"; do api "${ports[$k]}" /metrics | awk -v m="$name" '$1 == m {print $2}'; done | awk '{s += $1} END {print s + 0}'
}

step "every camera runs on its home shard (the fleet list's home), each on one"
fleet_complete() { [ "$(fleet_where "${ports[0]}" | grep -c ':running$')" = 6 ]; }
wait_until 60 "vfilter-0's fleet list to show the six cameras running" fleet_complete
home_of=$(fleet_where "${ports[0]}" | sed -E 's/^([^@]+)@[0-9]+ home ([0-9]+):.*/\1 \2/')
at_home=$(echo "$home_of" | awk '{printf "%s@%s:running\n", $1, $2}' | LC_ALL=C sort)
wait_until 30 "every camera to run on its home shard" placed_as "$at_home" 0 1 2
echo "$home_of" | awk '{print "  " $1 ": vfilter-" $2}'
# The pod to lose: the one with the most cameras (the lowest of a tie).
victim=$(echo "$home_of" | awk '{print $2}' | sort | uniq -c | sort -k1,1nr -k2,2n | awk 'NR == 1 {print $2}')
moved=$(echo "$home_of" | awk -v v="$victim" '$2 == v {print $1}' | words)
n_moved=$(wc -w <<<"$moved")
survivors=()
for k in 0 1 2; do [ "$k" = "$victim" ] || survivors+=("$k"); done

step "delete vfilter-$victim without grace (podman pod rm -t 0): $moved record on the others"
podman pod rm -f -t 0 "vfilter-$victim" >/dev/null
t0=$(date +%s%N)
taken_over() {
  local cam
  placed "${survivors[@]}"
  [ "$(grep -c ':running$' "$work/placement")" = 6 ] || return 1
  for cam in $moved; do grep -q "^$cam@" "$work/placement" || return 1; done
}
wait_until $((takeover_bound + 20)) "vfilter-$victim's cameras to run on the survivors" taken_over
taken_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
# Each moved camera as SURVIVOR:CAMERA.
moved_to=$(for cam in $moved; do sed -nE "s/^$cam@([0-9]+):.*/\\1:$cam/p" "$work/placement"; done | words)
echo "recording again on the survivors after $taken_ms ms (lease $lease s):" \
  "$(for p in $moved_to; do echo "${p#*:} on vfilter-${p%%:*}"; done | paste -sd, | sed 's/,/, /g')"
[ "$taken_ms" -le $((takeover_bound * 1000)) ] || fail "the take-over took $taken_ms ms, over the bound of $takeover_bound s"
[ "$(metric_sum vfilter_fleet_takeovers_total "${survivors[@]}")" = "$n_moved" ] \
  || fail "the survivors count $(metric_sum vfilter_fleet_takeovers_total "${survivors[@]}") take-overs, not $n_moved"
fleet_shows_moved() {
  local cam
  fleet_where "${ports[${survivors[0]}]}" >"$work/fleet"
  for cam in $moved; do grep -Eq "^$cam@[0-9]+ home $victim:running$" "$work/fleet" && ! grep -q "^$cam@$victim " "$work/fleet" || return 1; done
}
wait_until 10 "vfilter-${survivors[0]}'s fleet list to show the moved cameras running elsewhere, home vfilter-$victim" fleet_shows_moved
grep -F "$(printf '%s@\n' $moved)" "$work/fleet" | sed 's/^/  fleet list: /'
[ "$(api "${ports[${survivors[0]}]}" '/streams?scope=fleet' | json "d['shards'][$victim]['reachable']")" = False ] \
  || fail "the fleet list shows the deleted vfilter-$victim as reachable"
rec() { echo "$work/failover-volumes/pvc/recordings-vfilter-$1"; }
# Whether the newest recording of each SHARD:CAMERA grows (all looked at over one wait).
recordings_grow() {  # shard:camera...
  local pair f sizes=()
  for pair in "$@"; do
    f=$(ls -t "$(rec "${pair%%:*}")/${pair#*:}"-*.mp4 2>/dev/null | head -1)
    [ -n "$f" ] || return 1
    sizes+=("$f:$(stat -c %s "$f")")
  done
  sleep 1.5
  for f in "${sizes[@]}"; do [ "$(stat -c %s "${f%:*}")" -gt "${f##*:}" ] || return 1; done
}
wait_until 20 "the moved cameras' recordings on the survivors' volumes to grow" \
  recordings_grow $moved_to

step "play vfilter-$victim again (the replacement: same name, same volume): its cameras go back"
node tests/kubernetes/pods_from_manifests.mjs "$work/failover.yaml" "$work/failover-volumes" --port-base "$base" \
  --pod "vfilter-$victim" >"$work/failover-returning.yaml"
played+=("$work/failover-returning.yaml")
podman kube play "$work/failover-returning.yaml" >"$work/failover-returning.log" 2>&1 \
  || { cat "$work/failover-returning.log"; fail "podman kube play vfilter-$victim"; }
t0=$(date +%s%N)
# The returning pod asked first: a camera on its way there is seen on neither, never on both.
wait_until 60 "every camera back on its home shard" placed_as "$at_home" "$victim" "${survivors[@]}"
echo "every camera home $(( ($(date +%s%N) - t0) / 1000000 )) ms after vfilter-$victim was played again"
handed_back() { [ "$(metric_sum vfilter_fleet_handbacks_total "${survivors[@]}")" = "$n_moved" ]; }
wait_until 10 "the survivors to count $n_moved hand-backs" handed_back
fleet_home() { fleet_where "${ports[${survivors[1]}]}" | sed -E 's/ home [0-9]+//' | grep -v ':stopped$' >"$work/fleet"; [ "$(cat "$work/fleet")" = "$at_home" ]; }
wait_until 10 "vfilter-${survivors[1]}'s fleet list to show every camera at home, once" fleet_home
wait_until 20 "vfilter-$victim's new recordings to grow" recordings_grow $(printf "$victim:%s " $moved)
for cam in $moved; do
  for k in "${survivors[@]}"; do
    for f in "$(rec "$k")/$cam"-*.mp4; do
      [ -e "$f" ] || continue
      decodes_cleanly "$f" || fail "$f, written by vfilter-$k until the hand-back: $(cat "$work/decode.log")"
      echo "$cam: vfilter-$k's recording until the hand-back, $(frames "$f") frames, decodes cleanly"
    done
  done
done

podman kube down "$work/failover-pods.yaml" >/dev/null 2>&1  # every pod, the one played again included
played=()
echo "ok: vfilter-$victim's cameras recorded on the survivors after $taken_ms ms and went back when it returned"
