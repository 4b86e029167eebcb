// What the browser tests of serve's page share (page_test.mjs, demo_test.mjs): child processes
// with their logs, checks with their results, waiting, and the pictures a tile shows.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

// The headless browser (Debian's Chromium through playwright-core), or exit 77 (skipped, as
// ctest is told) where it or its driver is not installed: scripts/install_web_test_deps.sh, which
// ./test.sh runs, installs both. OUT_DIR is emptied for the run's screenshots and logs.
export async function browserOrSkip(outDir) {
  const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
  const skip = (why) => {
    console.log(`skipped: ${why} (scripts/install_web_test_deps.sh installs it)`);
    process.exit(77);
  };
  if (!fs.existsSync(browserPath)) skip(`no browser at ${browserPath}`);
  const { chromium } = await import("playwright-core").catch(() => skip("playwright-core is not installed in tests/web"));
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  return chromium.launch({ executablePath: browserPath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

export const children = [];

export class Child {
  constructor(command, args, logPath, cwd = undefined) {
    this.logPath = logPath;
    const log = fs.openSync(this.logPath, "w");
    this.proc = spawn(command, args, { stdio: ["ignore", log, log], cwd });
    fs.closeSync(log);
    this.exit = new Promise((resolve) => this.proc.on("exit", (code, signal) => resolve({ code, signal })));
    children.push(this);
  }
  log() {
    return fs.existsSync(this.logPath) ? fs.readFileSync(this.logPath, "utf8") : "";
  }
  async waitForLog(pattern, ms) {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const m = this.log().match(pattern);
      if (m) return m;
      if (this.proc.exitCode !== null) break;
      await sleep(100);
    }
    throw new Error(`${path.basename(this.logPath)}: no ${pattern} within ${ms} ms:\n${this.log().slice(-2000)}`);
  }
  kill(signal = "SIGKILL") {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
  }
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export const results = [];
export async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`ok    ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`FAIL  ${name}: ${e.stack || e}`);
  }
}
export function expect(condition, message) {
  if (!condition) throw new Error(message);
}
export async function eventually(what, fn, ms) {
  const until = Date.now() + ms;
  let last;
  while (Date.now() < until) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    await sleep(200);
  }
  throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(last)})`);
}

export async function streams(base, token) {
  const r = await fetch(base + "/streams", { headers: token ? { Authorization: "Bearer " + token } : {} });
  if (!r.ok) throw new Error(`GET /streams: ${r.status}`);
  return r.json();
}
export async function stream(base, name, token) {
  return (await streams(base, token)).find((s) => s.name === name);
}

// What the tile's picture shows, measured in the page from its pixels: mean luma, its spread,
// and a 32x18 grid of luma samples to compare two moments by. The picture is the side's video
// while it plays (live.js), else its snapshot; `src` tells two moments apart.
export async function pictureStats(page, name, side) {
  return page.evaluate(([name, side]) => {
    const figure = document.querySelector(`.tile[data-name="${name}"] .${side}-side`);
    const video = figure && figure.classList.contains("live") ? figure.querySelector("video") : null;
    const img = figure && figure.querySelector("img");
    let source, width, height, src;
    if (video && video.readyState >= 2 && video.videoWidth) {
      [source, width, height, src] = [video, video.videoWidth, video.videoHeight, "video@" + video.currentTime];
    } else {
      if (!img || !img.src.startsWith("blob:") || !img.complete || !img.naturalWidth) return null;
      [source, width, height, src] = [img, img.naturalWidth, img.naturalHeight, img.src];
    }
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(source, 0, 0);
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let sum = 0, sq = 0, colour = 0;
    const n = data.length / 4;
    for (let i = 0; i < data.length; i += 4) {
      const y = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
      sum += y;
      sq += y * y;
      colour += Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]);
    }
    const grid = [];
    for (let gy = 0; gy < 18; ++gy)
      for (let gx = 0; gx < 32; ++gx) {
        const x = Math.floor(((gx + 0.5) * canvas.width) / 32), y = Math.floor(((gy + 0.5) * canvas.height) / 18);
        const i = (y * canvas.width + x) * 4;
        grid.push(Math.round(0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2]));
      }
    const mean = sum / n;
    return { src, video: !!video, width: canvas.width, mean, spread: Math.sqrt(Math.max(0, sq / n - mean * mean)), colour: colour / n, grid };
  }, [name, side]);
}
export function changedShare(a, b) {
  let changed = 0;
  for (let i = 0; i < a.grid.length; ++i) if (Math.abs(a.grid[i] - b.grid[i]) > 8) ++changed;
  return changed / a.grid.length;
}


// Exit with the number of failed checks (0 when every one passed), the browser closed and every
// child killed.
export async function finish(browser, outDir) {
  await browser.close();
  for (const c of children) c.kill("SIGKILL");
  const failed = results.filter((r) => !r.ok);
  console.log(`${results.length - failed.length} of ${results.length} checks passed; screenshots and logs in ${outDir}`);
  return failed.length === 0 ? 0 : 1;
}

// What a tile side's <video> has done: frames decoded, its position, whether it plays live.
export async function videoState(page, name, side) {
  return page.evaluate(([name, side]) => {
    const figure = document.querySelector(`.tile[data-name="${name}"] .${side}-side`);
    const v = figure && figure.querySelector("video");
    if (!v) return null;
    return { live: figure.classList.contains("live"), frames: v.getVideoPlaybackQuality().totalVideoFrames, time: v.currentTime,
      error: v.error ? v.error.message || String(v.error.code) : null };
  }, [name, side]);
}

// The page's latency samples (ms from a frame's arrival at vfilter to its display) as p50 and p99.
export async function videoLatency(page) {
  return page.evaluate(() => {
    const s = [...window.vfilterLive.latency].sort((a, b) => a - b);
    const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { samples: s.length, p50: at(0.5), p99: at(0.99) };
  });
}

// A raw request, so malformed bytes reach the server as sent. Resolves with the status and body
// (the first bytes of it for a stream).
export function rawRequest(port, target) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let got = Buffer.alloc(0);
    const finish = () => {
      socket.destroy();
      const text = got.toString("latin1");
      const m = text.match(/^HTTP\/1\.1 (\d{3})/);
      resolve({ status: m ? Number(m[1]) : 0, text });
    };
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error(`no answer to ${JSON.stringify(target)}`));
    });
    socket.on("connect", () => socket.write(Buffer.concat([Buffer.from("GET "), Buffer.from(target, "latin1"),
      Buffer.from(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")])));
    socket.on("data", (chunk) => {
      got = Buffer.concat([got, chunk]);
      const head = got.indexOf("\r\n\r\n");
      if (head < 0) return;
      // Done at the end of the body: a stream's first bytes, or Content-Length bytes (a refused
      // request may leave the connection open for the next).
      const length = got.subarray(0, head).toString("latin1").match(/Content-Length: (\d+)/i);
      if (got.includes("multipart/x-mixed-replace") || got.length > 4096 || (length && got.length >= head + 4 + Number(length[1]))) finish();
    });
    socket.on("end", finish);
    socket.on("error", reject);
  });
}
