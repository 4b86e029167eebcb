#!/usr/bin/env python3
"""An HTTP server under floods, for docs/benchmarks.md ("The HTTP server"): a chunked POST of
TOTAL_MB in 64 KiB chunks to 127.0.0.1:PORT (a new connection each time the server closes one)
and SLOW connections that send one byte of a request each every GAP seconds, for at most SECONDS,
while /healthz is asked every 50 ms on a new connection (2 s timeout). Prints the server's (PID)
resident memory before and its peak, what the flood sent, how many slow connections the server
closed, and /healthz's latency.
usage: http_flood.py PORT PID [TOTAL_MB=1024] [SLOW=64] [GAP=0.5] [SECONDS=20]
FLOOD_HEADERS (environment): the flood's and the slow requests' headers, "Host: x" by default; for
`vfilter serve`, e.g. "Host: 127.0.0.1|Content-Type: application/json|Authorization: Bearer T"
('|' between headers) so that the request passes serve's guard and its body is read."""
import multiprocessing as mp
import os, socket, sys, time, threading

port, pid = int(sys.argv[1]), int(sys.argv[2])
total = int(sys.argv[3]) * 2**20 if len(sys.argv) > 3 else 2**30
slow_n = int(sys.argv[4]) if len(sys.argv) > 4 else 64
gap = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 20
headers = "".join(h + "\r\n" for h in os.environ.get("FLOOD_HEADERS", "Host: x").split("|")).encode()

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0

def flood(total, until, out):
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    head = b"POST /streams HTTP/1.1\r\n" + headers + b"Transfer-Encoding: chunked\r\n\r\n"
    sent, conns, refused = 0, 0, 0
    while sent < total and time.time() < until:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
        except OSError:
            time.sleep(0.01); continue
        conns += 1
        s.settimeout(2)
        try:
            s.sendall(head)
            while sent < total and time.time() < until:
                s.sendall(chunk); sent += len(chunk)
        except OSError:
            pass
        try:
            s.settimeout(0.2)
            if s.recv(64).startswith(b"HTTP/1.1 413"): refused += 1
        except OSError:
            pass
        s.close()
    out.put((sent, conns, refused))

def slowloris(n, gap, until, out):
    req = b"GET /streams HTTP/1.1\r\n" + headers + b"X-Padding: " + b"p" * 200 + b"\r\n\r\n"
    socks = []
    for _ in range(n):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            pass
    closed, at = set(), 0
    while time.time() < until and at < len(req):
        for i, s in enumerate(socks):
            if i in closed: continue
            try:
                s.send(req[at:at + 1])
                s.setblocking(False)
                try:
                    if s.recv(4096) == b"": closed.add(i)
                except BlockingIOError:
                    pass
                s.setblocking(True)
            except OSError:
                closed.add(i)
        at += 1
        time.sleep(gap)
    out.put((len(socks), len(closed)))

if __name__ == "__main__":
    before = rss(pid)
    until = time.time() + seconds
    q1, q2 = mp.Queue(), mp.Queue()
    procs = [mp.Process(target=flood, args=(total, until, q1)), mp.Process(target=slowloris, args=(slow_n, gap, until, q2))]
    for p in procs: p.start()
    peak, lat, fails = before, [], 0
    probe = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    while any(p.is_alive() for p in procs):
        peak = max(peak, rss(pid))
        t = time.time()
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.settimeout(2)
            s.sendall(probe)
            got = b""
            while True:
                d = s.recv(4096)
                if not d: break
                got += d
            s.close()
            if got.startswith(b"HTTP/1.1 200"): lat.append((time.time() - t) * 1000)
            else: fails += 1
        except OSError:
            fails += 1
        time.sleep(0.05)
        if time.time() > until + 5: break
    for p in procs: p.join(timeout=10)
    sent, conns, refused = q1.get(timeout=5)
    slow_open, slow_closed = q2.get(timeout=5)
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")
    print(f"rss_before_mib={before/2**20:.1f} rss_peak_mib={peak/2**20:.1f} growth_mib={(peak-before)/2**20:.1f}")
    print(f"flood_sent_mib={sent/2**20:.0f} flood_connections={conns} refused_413={refused}")
    print(f"slow_open={slow_open} slow_closed_by_server={slow_closed}")
    print(f"healthz_ok={len(lat)} healthz_failed={fails} p50_ms={pct(0.5):.1f} p99_ms={pct(0.99):.1f} max_ms={(lat[-1] if lat else float('nan')):.1f}")
