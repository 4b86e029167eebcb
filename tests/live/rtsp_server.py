#!/usr/bin/python3
"""A real RTSP camera on loopback for vfilter's live tests: GStreamer's RTSP server serving a
live H.264 test pattern (a moving ball) at rtsp://127.0.0.1:PORT/cam.

    rtsp_server.py PORT [--size 320x240] [--fps 30] [--mounts N] [--pattern P] [--speed S]
                                          (--mounts: N cameras, /cam0 ... /cam{N-1}, each its own
                                           pattern, instead of the one /cam)
                                          (--pattern: videotestsrc's pattern of /cam, ball by
                                           default; --speed: pixels a frame it scrolls sideways)
    rtsp_server.py PORT --files F0,F1,...  (recorded cameras: /cam0, /cam1, ... each plays its
                                           H.264 Matroska file in real time from its start for each
                                           client, then ends; prints "playing /camI T" as a client's
                                           clip starts, T the Unix time)
    rtsp_server.py PORT --record FILE     (a receiving server instead: clients publish H.264 to
                                           rtsp://127.0.0.1:PORT/cam, written to FILE as Matroska)
    rtsp_server.py PORT --auth USER:PASS  (basic authentication: the cameras answer only
                                           rtsp://USER:PASS@127.0.0.1:PORT/..., others get 401)

Prints "ready" once it listens; runs until killed (SIGTERM/SIGKILL, as a camera dies; on SIGTERM
a receiving server first stops its pipelines, so the file it wrote is whole).
Needs python3-gi, gir1.2-gst-rtsp-server-1.0 and gstreamer1.0-plugins-{base,good,ugly}
(scripts/install_deps.sh --test installs them).
"""
import argparse
import faulthandler
import signal
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--record")
    ap.add_argument("--mounts", type=int, default=0)
    ap.add_argument("--pattern", default="ball")
    ap.add_argument("--speed", type=int, default=0)
    ap.add_argument("--auth")
    ap.add_argument("--files")
    args = ap.parse_args()
    faulthandler.enable()  # a crash says where in the log the test prints
    width, height = (int(v) for v in args.size.split("x"))

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))

    if args.auth:
        user, password = args.auth.split(":", 1)
        auth = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "user")
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(user, password), token)
        server.set_auth(auth)
    role = Gst.Structure.new_from_string(
        "user, media.factory.access=(boolean)true, media.factory.construct=(boolean)true")

    def camera(pattern):
        factory = GstRtspServer.RTSPMediaFactory()
        if args.auth:
            factory.add_role_from_structure(role)
        factory.set_launch(
            f"( videotestsrc is-live=true pattern={pattern} horizontal-speed={args.speed} ! "
            f"video/x-raw,width={width},height={height},framerate={args.fps}/1,format=I420 ! "
            f"x264enc tune=zerolatency speed-preset=ultrafast key-int-max={args.fps} bitrate=800 ! "
            "rtph264pay name=pay0 pt=96 config-interval=1 )"
        )
        # A pipeline per client, as a camera's encoder serves each session: with one shared media,
        # two clients setting up at once crash the 1.22 server (gst_rtsp_media_get_rates asserts).
        factory.set_shared(False)
        return factory

    def recorded(mount, path):
        factory = GstRtspServer.RTSPMediaFactory()
        factory.set_launch(f"( filesrc location={path} ! matroskademux ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )")
        factory.set_shared(False)

        # When a client's clip starts: a test then knows when each moment of it was sent, rather
        # than estimating it from what reached the client (late when the client's machine is busy).
        def on_state(_media, state):
            if state == int(Gst.State.PLAYING):
                print(f"playing {mount} {time.time():.3f}", flush=True)

        factory.connect("media-configure", lambda _factory, media: media.connect("new-state", on_state))
        return factory

    mounts = server.get_mount_points()
    recording = []  # the record pipelines: stopped before the process ends, so the file is whole
    if args.record:
        factory = GstRtspServer.RTSPMediaFactory()
        factory.set_transport_mode(GstRtspServer.RTSPTransportMode.RECORD)
        factory.set_launch(
            "( rtph264depay name=depay0 ! h264parse ! matroskamux streamable=true ! "
            f"filesink location={args.record} sync=false )"
        )
        factory.set_shared(True)
        factory.connect("media-configure", lambda _factory, media: recording.append(media))
        mounts.add_factory("/cam", factory)
    elif args.files:
        for i, path in enumerate(args.files.split(",")):
            mounts.add_factory(f"/cam{i}", recorded(f"/cam{i}", path))
    elif args.mounts > 0:
        patterns = ["ball", "smpte", "pinwheel", "spokes", "gradient", "circular", "zone-plate", "checkers-8"]
        for i in range(args.mounts):
            mounts.add_factory(f"/cam{i}", camera(patterns[i % len(patterns)]))
    else:
        mounts.add_factory("/cam", camera(args.pattern))
    if server.attach(None) == 0:
        print(f"cannot listen on 127.0.0.1:{args.port}", file=sys.stderr)
        return 1
    loop = GLib.MainLoop()

    def stop(*_):
        # A record pipeline stopped first writes its last block whole; ended mid-write by the
        # process's exit, the file was cut inside a block (seen on a loaded machine).
        for media in recording:
            media.set_pipeline_state(Gst.State.NULL)
        loop.quit()

    signal.signal(signal.SIGTERM, stop)
    print("ready", flush=True)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
