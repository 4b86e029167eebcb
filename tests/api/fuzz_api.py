#!/usr/bin/python3
"""Property-based fuzzing of `vfilter serve`'s API from its own description (app/serve/web/openapi.json).

Two real serve processes on loopback: one without tokens (as a local operator runs it) and one with
an admin and a viewer token and the folders clients may use. Hypothesis draws requests from the
document: every path and method (and some that are not in it), path and query parameters from
their schemas and beside them, stream entries whose fields have their schema's types or any other,
headers as a browser, curl or an attacker would send them (tokens, content types, Origin, Host).
Every request must be answered within its deadline with a status the document lists for it, or one
the guard gives any request (401, 403, 404, 405, 415, 503), never 5xx but 503, and each process must
still answer /healthz at the end with its memory bounded. Exit 0 when all held, 1 otherwise, 77
(skipped) without Hypothesis.

usage: fuzz_api.py VFILTER_BIN [--examples N]
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:
    print("skipped: python3-hypothesis is not installed (scripts/install_deps.sh --test installs it)")
    sys.exit(77)

ADMIN = "fuzz-admin-token-0123456789"
# How much a serve process may grow over the run. Under AddressSanitizer (scripts/sanitize.sh sets
# ASAN_OPTIONS) freed memory is held back in its quarantine, 256 MiB by default, and stays
# resident: allowed on top there; the release run checks the bound alone.
GROWTH_LIMIT_MIB = 256 + (320 if "ASAN_OPTIONS" in os.environ else 0)
VIEWER = "fuzz-viewer-token-0123456789"
DEADLINE_S = 10.0
STREAMED = ("/preview.mjpg", "/live.mp4", "/live", "/events/stream")


class Serve:
    """A serve process with the API on a free loopback port."""

    def __init__(self, binary, workdir, extra, settings=""):
        """Two streams of built-in pictures, as serve --demo 2 runs them, with the serve: block's
        limits and `settings` (more lines of that block)."""
        number = len(os.listdir(workdir))
        self.log_path = os.path.join(workdir, "serve-%d.log" % number)
        config = os.path.join(workdir, "streams-%d.yaml" % number)
        with open(config, "w") as f:
            f.write("defaults: {output: 'null'}\nstreams:\n"
                    "  - {name: demo1, input: 'pattern://?size=640x360&rate=30&motion=ball&seed=1', filter: sobel}\n"
                    "  - {name: demo2, input: 'pattern://?size=640x360&rate=30&motion=bars&seed=2', filter: 'gaussian=sigma=4'}\n"
                    "serve:\n  max-streams: 6\n  max-previews: 2\n" + settings)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([binary, "serve", "--config", config, "--api-port", "0"] + extra,
                                     stdout=self.log, stderr=self.log)
        self.port = None
        for _ in range(300):
            text = open(self.log_path).read()
            m = re.search(r"control API: http://127\.0\.0\.1:(\d+)", text)
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        if self.port is None:
            raise SystemExit("serve did not start:\n" + open(self.log_path).read())

    def rss_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def exchange(port, raw, streamed):
    """Sends raw bytes; returns (status, seconds). A streamed answer is read up to its head."""
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S) as s:
        s.sendall(raw)
        got = b""
        while b"\r\n\r\n" not in got or not streamed:
            piece = s.recv(65536)
            if not piece:
                break
            got += piece
            if streamed and b"\r\n\r\n" in got:
                break
            if time.monotonic() - began > DEADLINE_S:
                raise TimeoutError("no complete answer within %.0f s" % DEADLINE_S)
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", got)
    return (int(m.group(1)) if m else None), time.monotonic() - began


def operations(doc):
    """(path template, method, operation) for every operation of the document."""
    for path, item in doc["paths"].items():
        for method in ("get", "post", "put", "delete"):
            if method in item:
                yield path, method.upper(), item[method], item.get("parameters", [])


JUNK = st.one_of(st.text(max_size=40), st.integers(), st.floats(allow_nan=True), st.booleans(), st.none(),
                 st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
PATHY = st.sampled_from(["/etc/passwd", "../x.mp4", "/dev/zero", "-", "concat:a|b", "null", "x.mp4", "sub/x.mkv",
                         "udp://198.51.100.1:9", "rtsp://127.0.0.1:9/x", "pattern://?size=64x48&rate=5",
                         "pattern://?size=99999x99999", "file:///etc/passwd", "%Y/%d.mp4", "a\x00b"])
FILTERS = st.sampled_from(["sobel", "identity", "gaussian=sigma=2", "gaussian=sigma=while(1\\,1)",
                           "convolution=file=/etc/passwd", "convolution=file=k.txt", "box=radius=" + "9" * 30,
                           "sobel=scale=" + "1+" * 200 + "1", "unsharp=5:5:1.5", "nosuch", ",,,", "boxblur=w/0"])


def value_for(schema):
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), JUNK)
    kind = schema.get("type")
    if kind == "integer":
        return st.one_of(st.integers(min_value=-5, max_value=100000), JUNK)
    if kind == "number":
        return st.one_of(st.floats(allow_nan=False, allow_infinity=False, min_value=-10, max_value=1e6), JUNK)
    if kind == "boolean":
        return st.one_of(st.booleans(), JUNK)
    return st.one_of(st.text(max_size=60), PATHY, FILTERS, JUNK)


def entry_strategy(schema):
    props = schema["properties"]
    fields = {k: value_for(v) for k, v in props.items()}
    fields["input"] = st.one_of(PATHY, value_for(props["input"]))
    fields["output"] = st.one_of(PATHY, value_for(props["output"]))
    fields["filter"] = st.one_of(FILTERS, value_for(props["filter"]))
    fields["name"] = st.one_of(st.from_regex(r"\A[a-z]{1,8}\Z"), st.sampled_from(["demo1", "demo2"]), JUNK)
    extra = st.dictionaries(st.sampled_from(["allow-protocols", "overwrite", "queue", "colour", "metrics-port"]), JUNK, max_size=2)
    return st.builds(lambda chosen, more: {**chosen, **more}, st.fixed_dictionaries({}, optional=fields), extra)


def query_strategy(params):
    pairs = []
    for p in params:
        if p.get("in") == "query":
            pairs.append(st.one_of(st.none(), st.tuples(st.just(p["name"]), value_for(p.get("schema", {})))))
    junk = st.one_of(st.none(), st.tuples(st.sampled_from(["x", "side", "%zz", "width"]), st.text(max_size=10)))
    return st.tuples(*pairs, junk) if pairs else st.tuples(junk)


def encode_query(pairs):
    from urllib.parse import quote
    items = [(k, v) for kv in pairs if kv for k, v in [kv]]
    text = "&".join(quote(str(k), safe="") + "=" + quote(json.dumps(v) if not isinstance(v, str) else v, safe=":,")
                    for k, v in items)
    return ("?" + text) if text else ""


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    examples = int(sys.argv[sys.argv.index("--examples") + 1]) if "--examples" in sys.argv else 2000
    workdir = tempfile.mkdtemp(prefix="vfilter-api-fuzz-")
    for d in ("media", "rec", "kernels"):
        os.makedirs(os.path.join(workdir, d))
    with open(os.path.join(workdir, "kernels", "k.txt"), "w") as f:
        f.write("0 -1 0\n-1 5 -1\n0 -1 0\n")
    open_serve = Serve(binary, workdir, [])
    with open(os.path.join(workdir, "viewer.token"), "w") as f:
        f.write(VIEWER + "\n")
    locked = Serve(binary, workdir, ["--api-token", ADMIN],
                   "".join("  %s: %s\n" % (key, os.path.join(workdir, leaf)) for key, leaf in
                           (("viewer-token-file", "viewer.token"), ("media-root", "media"), ("recordings-root", "rec"),
                            ("kernel-dir", "kernels"))))
    servers = [open_serve, locked]
    rss_before = [s.rss_kib() for s in servers]
    doc = json.loads(open(os.path.join(os.path.dirname(__file__), "..", "..", "app", "serve", "web", "openapi.json")).read())
    ops = list(operations(doc))
    entry = entry_strategy(doc["components"]["schemas"]["StreamEntry"])
    failures = []
    answered = {}

    request = st.tuples(
        st.sampled_from(ops),
        st.sampled_from([0, 1]),
        st.one_of(st.from_regex(r"\A[a-z0-9]{1,6}\Z"), st.sampled_from(["demo1", "demo2", "a%20b", "..", "x" * 70])),
        st.data(),
        st.sampled_from(["", ADMIN, VIEWER, "wrong-token-0123456789", " "]),
        st.sampled_from(["application/json", "text/plain", "", "application/json; charset=utf-8", "multipart/form-data"]),
        st.sampled_from(["", "http://evil.example", "null", "SELF"]),
        st.sampled_from(["127.0.0.1", "localhost", "evil.example", ""]),
        st.sampled_from(["", "GET", "POST", "PATCH", "OPTIONS"]),
    )

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(request)
    def one(req):
        (path, method, op, path_params), which, name, data, token, ctype, origin, host, other_method = req
        server = servers[which]
        target = path.replace("{name}", name)
        params = list(path_params) + op.get("parameters", [])
        target += encode_query(data.draw(query_strategy(params)))
        method = other_method or method
        body = b""
        if method in ("POST", "PUT", "PATCH"):
            if path == "/streams":
                body = json.dumps(data.draw(entry)).encode()
            elif path.endswith("/filter"):
                body = json.dumps(data.draw(st.one_of(st.builds(lambda f: {"filter": f}, FILTERS), JUNK))).encode()
            else:
                body = data.draw(st.binary(max_size=64))
        host_port = "%s:%d" % (host, server.port) if host else ""
        head = "%s %s HTTP/1.1\r\n" % (method, target)
        if host_port:
            head += "Host: %s\r\n" % host_port
        if token:
            head += "Authorization: Bearer %s\r\n" % token
        if ctype:
            head += "Content-Type: %s\r\n" % ctype
        if origin:
            head += "Origin: %s\r\n" % ("http://" + host_port if origin == "SELF" else origin)
        head += "Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
        streamed = target.split("?")[0].endswith(STREAMED)
        try:
            status, took = exchange(server.port, head.encode() + body, streamed)
        except Exception as e:  # a hang or a dropped connection is a finding
            failures.append("%s %s (%s): %s" % (method, target, "locked" if which else "open", e))
            return
        answered[status] = answered.get(status, 0) + 1
        if status is None or (status >= 500 and status != 503):
            failures.append("%s %s (%s) answered %s" % (method, target, "locked" if which else "open", status))
        if server.proc.poll() is not None:
            failures.append("serve ended after %s %s" % (method, target))
            raise SystemExit("\n".join(failures))

    one()
    for s, before in zip(servers, rss_before):
        status, _ = exchange(s.port, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", False)
        if status != 200:
            failures.append("/healthz answered %s after the run" % status)
        grown = s.rss_kib() - before
        if grown > GROWTH_LIMIT_MIB * 1024:
            failures.append("serve grew by %d MiB (limit %d)" % (grown // 1024, GROWTH_LIMIT_MIB))
    codes = [s.stop() for s in servers]
    if any(c != 0 for c in codes):
        failures.append("serve's exit codes on SIGTERM: %s" % codes)
    print("answers by status: %s" % dict(sorted((str(k), v) for k, v in answered.items())))
    if failures:
        print("%d finding(s):\n  %s" % (len(failures), "\n  ".join(failures[:40])))
        for s in servers:
            print("--- %s (tail)\n%s" % (s.log_path, open(s.log_path).read()[-3000:]))
        return 1
    print("%d requests, no 5xx but 503, no crash, no hang" % sum(answered.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
