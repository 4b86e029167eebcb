// Live video for the page of `vfilter serve` (docs/serve.md, "Live video"): every visible tile's
// pictures as H.264 video through Media Source Extensions, all of them over one connection
// (GET /live, so a grid of any size stays within the browser's six connections to a host), the
// token in a header as for every request. app.js decides which tiles are visible and falls back
// to snapshots where MSE or H.264 is missing or a tile's video has stopped.
// Each fragment says when its frame reached vfilter; the time the frame is shown, against the
// page's clock, gives the latency (window.vfilterLive.latency, and each tile's "video delay").
"use strict";

const LIVE_PROBE_TYPE = 'video/mp4; codecs="avc1.42c01f"';
const liveSupported = typeof MediaSource !== "undefined" && MediaSource.isTypeSupported(LIVE_PROBE_TYPE);
const LIVE_BEHIND_S = 0.4;   // further behind the newest frame than this: jump to it
const LIVE_KEEP_S = 8;       // video kept behind the playing position (the rest is removed)
const LIVE_STALE_MS = 3000;  // no new frame shown for this long: the tile falls back to snapshots
const LIVE_SAMPLES = 2000;   // latency samples kept for the page

window.vfilterLive = { supported: liveSupported, latency: [], framesShown: 0, connections: 0 };

function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

// One <video> fed fragment by fragment, in "sequence" mode: each fragment follows the one before
// whatever its timestamp, so a camera's outage, a new connection (another tile toggled) or a
// restarted encoder go on in the same MediaSource without a black frame. A new init segment of
// the same codec is appended in place (a new picture size too); another codec starts a new
// MediaSource.
class LivePlayer {
  constructor(video) {
    this.video = video;
    this.source = null;
    this.buffer = null;
    this.codec = "";
    this.queue = [];          // [bytes, pts ms or null for an init segment, arrived ms]
    this.appending = null;    // the fragment being appended
    this.times = [];          // [presentation ms in the video, arrived ms] of recent fragments
    this.latency = [];        // this tile's recent samples
    this.shownAt = 0;         // performance.now() of the last frame shown
    this.watching = false;
  }

  init(codec, bytes) {
    this.watching = true;
    if (this.source && codec === this.codec) {
      this.queue.push([bytes, null, 0]);
      this.pump();
      return;
    }
    this.stop();
    this.watching = true;
    this.codec = codec;
    const source = new MediaSource();
    this.source = source;
    this.queue = [[bytes, null, 0]];
    this.video.src = URL.createObjectURL(source);
    source.addEventListener("sourceopen", () => {
      if (this.source !== source) return;
      URL.revokeObjectURL(this.video.src);
      try {
        this.buffer = source.addSourceBuffer(`video/mp4; codecs="${codec}"`);
      } catch (e) {
        this.stop();
        return;
      }
      this.buffer.mode = "sequence";
      this.buffer.addEventListener("updateend", () => this.appended());
      this.pump();
    }, { once: true });
    if (this.video.requestVideoFrameCallback) this.video.requestVideoFrameCallback((now, meta) => this.shown(source, meta));
  }

  fragment(bytes, pts, arrived) {
    if (!this.source) return;
    this.queue.push([bytes, pts, arrived]);
    this.pump();
  }

  // Where the fragment just appended is shown: its own time plus the offset sequence mode gave it.
  appended() {
    const a = this.appending;
    this.appending = null;
    if (a && a[1] !== null && this.buffer) {
      this.times.push([Math.round((a[1] / 1000 + this.buffer.timestampOffset) * 1000), a[2]]);
      if (this.times.length > 300) this.times.splice(0, this.times.length - 300);
    }
    this.pump();
  }

  pump() {
    const b = this.buffer;
    if (!b || b.updating || this.source.readyState !== "open") return;
    const v = this.video;
    if (v.buffered.length && v.currentTime - v.buffered.start(0) > LIVE_KEEP_S + 4) {
      b.remove(0, v.currentTime - LIVE_KEEP_S);  // updateend calls pump again
      return;
    }
    if (this.queue.length) {
      this.appending = this.queue.shift();
      try {
        b.appendBuffer(this.appending[0]);
      } catch (e) {
        this.appending = null;
        this.queue = [];  // a full buffer: what is queued goes, the next keyframe mends it
      }
    }
    this.keepLive();
  }

  // Plays the newest frame: after a jump in time (a camera that came back), or when playing fell
  // behind, the position moves to the end of what is buffered.
  keepLive() {
    const v = this.video;
    if (!v.buffered.length) return;
    const end = v.buffered.end(v.buffered.length - 1), start = v.buffered.start(v.buffered.length - 1);
    if (end - v.currentTime > LIVE_BEHIND_S || v.currentTime < start) v.currentTime = Math.max(start, end - 0.05);
    if (v.paused) v.play().catch(() => {});
  }

  shown(source, meta) {
    if (this.source !== source) return;
    this.shownAt = performance.now();
    window.vfilterLive.framesShown++;
    const pts = Math.round(meta.mediaTime * 1000);
    let best = null;
    for (const t of this.times) if (Math.abs(t[0] - pts) <= 3 && (!best || Math.abs(t[0] - pts) < Math.abs(best[0] - pts))) best = t;
    if (best) {
      const ms = performance.timeOrigin + meta.expectedDisplayTime - best[1];
      for (const list of [this.latency, window.vfilterLive.latency]) {
        list.push(ms);
        if (list.length > LIVE_SAMPLES) list.splice(0, list.length - LIVE_SAMPLES);
      }
    }
    this.video.requestVideoFrameCallback((now, m) => this.shown(source, m));
  }

  playing() {
    return this.watching && performance.now() - this.shownAt < LIVE_STALE_MS;
  }

  stop() {
    this.watching = false;
    this.source = null;
    this.buffer = null;
    this.codec = "";
    this.queue = [];
    this.appending = null;
    this.times = [];
    if (this.video.getAttribute("src")) {
      this.video.removeAttribute("src");
      this.video.load();
    }
  }
}

// The one connection to GET /live: reopened when the set of visible tiles changes (the sides
// that left the set stop; the others play on), and after a second when it breaks (the service
// restarting: the players keep their last frame, and app.js shows snapshots after a while).
class LiveConnection {
  constructor(players, headers) {
    this.players = players;   // (name, side) -> LivePlayer
    this.headers = headers;   // () -> the request's headers
    this.controller = null;
    this.key = "";
    this.list = [];
  }

  show(list, width) {
    const key = JSON.stringify([list, width]);
    if (key === this.key) return;
    this.key = key;
    const kept = new Set(list.map((t) => t.name + ":" + t.side));
    for (const t of this.list) if (!kept.has(t.name + ":" + t.side)) this.players(t.name, t.side)?.stop();
    this.list = list;
    if (this.controller) this.controller.abort();
    this.controller = null;
    if (!list.length) return;
    const controller = new AbortController();
    this.controller = controller;
    this.run(list, width, controller);
  }

  async run(list, width, controller) {
    const path = "/live?streams=" + list.map((t) => encodeURIComponent(t.name) + ":" + t.side).join(",") + "&width=" + width;
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(path, { headers: this.headers(), signal: controller.signal, cache: "no-store" });
        if (!response.ok) throw new Error(String(response.status));
        window.vfilterLive.connections++;
        await this.read(response.body.getReader(), list);
      } catch (e) { /* aborted, refused or broken: below */ }
      if (!controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async read(reader, list) {
    let pending = new Uint8Array(0);
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const joined = new Uint8Array(pending.length + value.length);
      joined.set(pending);
      joined.set(value, pending.length);
      pending = joined;
      let at = 0;
      const view = new DataView(pending.buffer);
      while (pending.length - at >= 8) {
        const headerLength = view.getUint32(at);
        if (pending.length - at < 8 + headerLength) break;
        const bytesLength = view.getUint32(at + 4 + headerLength);
        const end = at + 8 + headerLength + bytesLength;
        if (pending.length < end) break;
        const header = JSON.parse(decoder.decode(pending.subarray(at + 4, at + 4 + headerLength)));
        const bytes = pending.slice(at + 8 + headerLength, end);
        at = end;
        const tile = list[header.tile];
        const player = tile ? this.players(tile.name, tile.side) : null;
        if (!player) continue;
        if (header.type === "init") player.init(header.codec, bytes);
        else if (header.type === "fragment") player.fragment(bytes, header.pts, header.arrived);
        else if (header.type === "gone") player.stop();
      }
      pending = pending.slice(at);
    }
  }
}

window.LivePlayer = LivePlayer;
window.LiveConnection = LiveConnection;
window.livePercentile = percentile;
