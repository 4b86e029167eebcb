#!/usr/bin/python3
"""A live MPEG-TS stream over TCP whose first connection is cut in the middle of a frame, for
vfilter's live tests: what a camera does when it reboots while sending.

    cut_stream_server.py FILE PORT [--cut 0.6] [--seconds 2] [--once]

Listens on 127.0.0.1:PORT. The first client gets the first CUT of FILE (whole 188-byte TS
packets, so the cut falls inside a frame, not inside a TS packet) and the connection is closed.
The second client gets the whole of FILE; the connection then stays open, silent, until the
server is killed. Both are paced so that FILE takes SECONDS to send, as a live source would.
--once: no cut; the first client gets the whole of FILE (any format: the bytes as they are).
Prints "ready", "cut after N bytes" and "sent all" as it goes.
"""
import argparse
import socket
import sys
import time


def send_paced(conn, data, seconds_for_all, total):
    chunk = 188 * 7
    start = time.monotonic()
    for at in range(0, len(data), chunk):
        due = start + seconds_for_all * at / total
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        conn.sendall(data[at:at + chunk])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("port", type=int)
    ap.add_argument("--cut", type=float, default=0.6)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--once", action="store_true")
    args = ap.parse_args()
    data = open(args.file, "rb").read()
    cut = int(len(data) // 188 * args.cut) * 188

    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.port))
    server.listen(1)
    print("ready", flush=True)

    if not args.once:
        conn, _ = server.accept()
        send_paced(conn, data[:cut], args.seconds, len(data))
        conn.close()
        print(f"cut after {cut} bytes", flush=True)

    conn, _ = server.accept()
    send_paced(conn, data, args.seconds, len(data))
    print("sent all", flush=True)
    while True:  # silent but open, until killed
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main())
