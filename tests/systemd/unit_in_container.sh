#!/usr/bin/env bash
# Systemd.UnitRunsSandboxedInAContainer: deploy/systemd/vfilter-serve.service run by a real systemd
# (PID 1 of a podman container made from vfilter's own image, tests/systemd/Containerfile),
# installed as docs/systemd.md says, and checked from outside as an operator would:
#   - `systemctl start` returns once serve said READY=1; the stream records; the API answers on
#     loopback, and only with the token of the environment file, which never reaches the journal;
#   - the sandboxing holds for what the service runs: / read-only but for /var/lib/vfilter, its
#     own /tmp, no /home, no namespaces, no capabilities, a system-call filter;
#   - reload applies a changed config without a new process; SIGKILL is restarted; stop exits 0
#     with every recording playable; a broken config fails once, not in a restart loop.
# The container gets CAP_SYS_ADMIN, as systemd needs to build a service's mount namespace (without
# it systemd skips ProtectSystem and the rest silently, and the test would prove nothing).
# Exit 77 (skipped) where podman cannot run here: not root, or podman, runc or debootstrap missing
# (scripts/install_deps.sh --test installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
image=localhost/vfilter:test
test_image=localhost/vfilter-systemd:test
name="vfilter-systemd-test-$$"
me=tests/systemd/unit_in_container.sh

if [ "$(id -u)" -ne 0 ]; then echo "$me: podman here needs root; skipped"; exit 77; fi
for tool in podman runc debootstrap; do
  command -v "$tool" >/dev/null || { echo "$me: $tool missing (scripts/install_deps.sh --test); skipped"; exit 77; }
done
for tool in ffmpeg ffprobe; do
  command -v "$tool" >/dev/null || { echo "$me: FAIL: $tool missing (scripts/install_deps.sh --test)" >&2; exit 1; }
done

fail() {
  echo "$me: FAIL: $*" >&2
  podman exec "$name" journalctl -u vfilter-serve --no-pager 2>/dev/null | tail -20 >&2 || true
  exit 1
}
step() { echo "== $*"; }
work=$(mktemp -d /tmp/vfilter-systemd.XXXXXX)
cleanup() {
  [ -n "${KEEP:-}" ] && { echo "kept $work"; return; }
  podman rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
inside() { podman exec "$name" "$@"; }
prop() { inside systemctl show -p "$1" --value vfilter-serve; }

step "images: vfilter's own, then systemd on top"
docker/build_image.sh "$image" >"$work/image.log" 2>&1 || { tail -20 "$work/image.log"; fail "building $image"; }
podman build --isolation chroot --format docker --network host --build-arg IMAGE="$image" \
  -f tests/systemd/Containerfile -t "$test_image" tests/systemd >"$work/build.log" 2>&1 \
  || { tail -20 "$work/build.log"; fail "building $test_image"; }
podman run -d --name "$name" --runtime runc --systemd=always --cap-add SYS_ADMIN --network none \
  --ulimit "nofile=1024:1024" --ulimit "nproc=4096:4096" "$test_image" >/dev/null || fail "starting systemd in a container"
for _ in $(seq 60); do
  state=$(inside systemctl is-system-running 2>/dev/null || true)
  [ "$state" = running ] || [ "$state" = degraded ] && break
  sleep 0.5
done
[ "$state" = running ] || [ "$state" = degraded ] || fail "systemd did not come up: '$state'"

step "installed as docs/systemd.md says"
podman cp deploy/systemd/vfilter-serve.service "$name:/usr/local/lib/systemd/system/vfilter-serve.service"
podman cp deploy/systemd/vfilter.sysusers.conf "$name:/usr/local/lib/sysusers.d/vfilter.conf"
inside systemd-sysusers
inside install -d -m 0750 -g vfilter /etc/vfilter
cat >"$work/streams.yaml" <<'EOF'
streams:
  - name: cam1
    input: pattern://?size=320x240&rate=10
    filter: sobel
    output: /var/lib/vfilter/cam1-%Y%m%d-%H%M%S.mp4
    segment: 2
EOF
podman cp "$work/streams.yaml" "$name:/etc/vfilter/streams.yaml"
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'VFILTER_API_TOKEN=%s\n' "$token" >"$work/vfilter.env"
podman cp "$work/vfilter.env" "$name:/etc/vfilter/vfilter.env"
inside chmod 0600 /etc/vfilter/vfilter.env
# What the service may touch, tried by a command run in its sandbox (an ExecStartPre= runs in the
# same namespaces, as the same user, under the same filter as ExecStart=), written where it may.
# Without the sandbox the user vfilter could write /srv/open, read /home/operator/notes and see
# /tmp/outside-marker.
inside sh -c 'touch /tmp/outside-marker && install -d -m 1777 /srv/open && install -d -m 0755 /home/operator && echo operator-notes >/home/operator/notes && chmod 0644 /home/operator/notes'
inside mkdir -p /etc/systemd/system/vfilter-serve.service.d
cat >"$work/probe.conf" <<'EOF'
[Service]
ExecStartPre=-/bin/sh -c 'p=/var/lib/vfilter/sandbox.txt; : >$p; for f in /srv/open/probe /usr/probe; do touch $f 2>>$p || true; done; cat /home/operator/notes >>$p 2>&1 || true; echo "tmp: $(ls -A /tmp)" >>$p; unshare --user true 2>>$p || true; id -un >>$p'
EOF
podman cp "$work/probe.conf" "$name:/etc/systemd/system/vfilter-serve.service.d/sandbox-probe.conf"
inside systemctl daemon-reload
timeout 120 podman exec "$name" systemctl enable --now vfilter-serve || fail "systemctl enable --now"
[ "$(inside systemctl is-active vfilter-serve)" = active ] || fail "not active after start"
echo "ok: started, READY=1 seen ($(prop StatusText))"

step "the sandbox, as the service sees it"
inside cat /var/lib/vfilter/sandbox.txt >"$work/sandbox.txt"
cat "$work/sandbox.txt"
for path in /srv/open/probe /usr/probe; do
  grep -q "cannot touch '$path': Read-only file system" "$work/sandbox.txt" || fail "$path was writable (ProtectSystem=strict)"
done
grep -q "/home/operator/notes: " "$work/sandbox.txt" && ! grep -q operator-notes "$work/sandbox.txt" || fail "/home was readable (ProtectHome)"
grep -q "^tmp: $" "$work/sandbox.txt" || fail "the service saw the machine's /tmp (PrivateTmp)"
grep -q "unshare failed" "$work/sandbox.txt" || fail "the service could create a user namespace (RestrictNamespaces)"
grep -qx vfilter "$work/sandbox.txt" || fail "not run as the user vfilter"
pid=$(prop MainPID)
inside cat "/proc/$pid/status" >"$work/status.txt"
grep -q "^NoNewPrivs:[[:space:]]*1" "$work/status.txt" || fail "NoNewPrivs is off"
grep -q "^Seccomp:[[:space:]]*2" "$work/status.txt" || fail "no system-call filter"
grep -q "^CapEff:[[:space:]]*0000000000000000" "$work/status.txt" || fail "the service holds capabilities"
grep -q "^CapBnd:[[:space:]]*0000000000000000" "$work/status.txt" || fail "the service could regain capabilities"
exposure=$(inside systemd-analyze security vfilter-serve --no-pager | sed -n 's/.*Overall exposure level for vfilter-serve.service: \([0-9.]*\).*/\1/p')
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.5) }' || fail "systemd-analyze security: exposure '$exposure' (above 2.5)"
echo "ok: read-only system, private /tmp, no /home, no namespaces, no capabilities, seccomp; exposure $exposure"

step "the API: loopback, the token from the environment file, never logged"
for _ in $(seq 40); do inside sh -c 'ls /var/lib/vfilter/cam1-*.mp4' >/dev/null 2>&1 && break; sleep 0.5; done
code=$(inside curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/healthz)
[ "$code" = 200 ] || fail "/healthz answered $code"
code=$(inside curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/streams)
[ "$code" = 401 ] || fail "/streams without the token answered $code"
inside curl -sf -H "Authorization: Bearer $token" http://127.0.0.1:8080/streams >"$work/streams.json" || fail "/streams with the token"
grep -q '"cam1"' "$work/streams.json" || fail "cam1 not listed: $(cat "$work/streams.json")"
if inside journalctl --no-pager | grep -q "$token"; then fail "the token is in the journal"; fi
echo "ok"

step "reload: a camera added without a new process"
printf '  - name: cam2\n    input: pattern://?size=320x240&rate=10\n    output: /var/lib/vfilter/cam2-%%Y%%m%%d-%%H%%M%%S.mp4\n    segment: 2\n' >>"$work/streams.yaml"
podman cp "$work/streams.yaml" "$name:/etc/vfilter/streams.yaml"
inside systemctl reload vfilter-serve || fail "systemctl reload"
for _ in $(seq 40); do inside sh -c 'ls /var/lib/vfilter/cam2-*.mp4' >/dev/null 2>&1 && break; sleep 0.5; done
inside sh -c 'ls /var/lib/vfilter/cam2-*.mp4' >/dev/null 2>&1 || fail "cam2 records nothing after the reload"
[ "$(prop MainPID)" = "$pid" ] || fail "reload started a new process"
echo "ok"

step "killed: restarted by systemd"
inside systemctl kill -s SIGKILL --kill-who=main vfilter-serve
for _ in $(seq 60); do
  now=$(prop MainPID)
  [ "$(inside systemctl is-active vfilter-serve || true)" = active ] && [ "$now" != 0 ] && [ "$now" != "$pid" ] && break
  sleep 0.5
done
[ "$(inside systemctl is-active vfilter-serve || true)" = active ] && [ "$(prop MainPID)" != "$pid" ] || fail "not restarted after SIGKILL"
echo "ok: restarted ($(prop NRestarts) restart)"

step "stop: exit 0, every recording plays"
sleep 3  # a segment or two after the restart
timeout 120 podman exec "$name" systemctl stop vfilter-serve || fail "systemctl stop"
[ "$(prop Result)" = success ] || fail "stopped with result $(prop Result)"
[ "$(prop ExecMainStatus)" = 0 ] || fail "serve exited $(prop ExecMainStatus) on SIGTERM"
mkdir "$work/rec"
podman cp "$name:/var/lib/vfilter/." "$work/rec/"
count=0
for f in "$work"/rec/cam*.mp4; do
  [ -e "$f" ] || continue
  # A fragmented segment cut by the SIGKILL plays up to its last fragment: decoding must be clean.
  ffmpeg -nostdin -v error -i "$f" -f null - 2>"$work/decode.log" || fail "$(basename "$f") does not decode: $(head -3 "$work/decode.log")"
  [ ! -s "$work/decode.log" ] || fail "$(basename "$f"): $(head -3 "$work/decode.log")"
  count=$((count + 1))
done
[ "$count" -ge 4 ] || fail "only $count recordings"
ls "$work"/rec/*.partial >/dev/null 2>&1 && fail "a .partial was left"
echo "ok: $count recordings, every one decodes"

step "a broken config: failed once, no restart loop"
printf 'streams:\n  - name: cam1\n    input: pattern://?size=320x240\n    output: /var/lib/vfilter/x.mp4\n    filter: nosuch\n' >"$work/bad.yaml"
podman cp "$work/bad.yaml" "$name:/etc/vfilter/streams.yaml"
if timeout 60 podman exec "$name" systemctl start vfilter-serve 2>/dev/null; then fail "started with a broken config"; fi
sleep 7  # RestartSec=5: a restart would have happened by now
[ "$(inside systemctl is-failed vfilter-serve || true)" = failed ] || fail "not failed: $(inside systemctl is-active vfilter-serve || true)"
# A start asked for sets NRestarts to 0; each automatic restart would add one and log the error again.
[ "$(prop NRestarts)" = 0 ] || fail "restarted after a configuration error ($(prop NRestarts) restarts)"
tries=$(inside journalctl -u vfilter-serve --no-pager | grep -c "vfilter: error: .*nosuch" || true)
[ "$tries" = 1 ] || fail "the broken config was tried $tries times"
inside journalctl -u vfilter-serve --no-pager | grep -q "vfilter: error: .*nosuch" || fail "the journal does not say what is wrong"
echo "ok: $(inside journalctl -u vfilter-serve --no-pager | grep 'vfilter: error' | tail -1 | sed 's/.*vfilter: error/vfilter: error/')"
echo "$me: all passed"
