// The grid of the page of `vfilter serve`: a tile a stream with its state and numbers, refreshed
// from GET /streams?scope=fleet (every shard's streams), the fleet's shards, and which tiles are
// in view for live video (live.js).
"use strict";

const grid = document.getElementById("grid");
const summary = document.getElementById("summary");
const pageError = document.getElementById("error");
const showInput = document.getElementById("show-input");
const shardList = document.getElementById("shards");
const shardFilter = document.getElementById("shard-filter");
const tiles = new Map();        // name -> tile state

// Live video: one connection for every tile side in view (live.js).
const live = liveSupported ? new LiveConnection((name, side) => tiles.get(name)?.players?.[side], authHeaders) : null;
const inView = new Set();       // names of tiles on screen
let liveTimer = null;
function scheduleLive() {
  if (!live) return;
  clearTimeout(liveTimer);
  liveTimer = setTimeout(() => {
    const list = [];
    for (const name of [...inView].sort()) {
      const tile = tiles.get(name);
      if (!tile || tile.node.hidden || tile.node.dataset.state === "unreachable") continue;
      list.push({ name, side: "output" });
      if (showInput.checked) list.push({ name, side: "input" });
    }
    const width = Math.min(1920, Math.max(160, 16 * Math.round((grid.querySelector("figure")?.clientWidth || 480) * (window.devicePixelRatio || 1) / 16)));
    live.show(needToken || document.hidden ? [] : list, width);
  }, 250);
}
const visibility = typeof IntersectionObserver !== "undefined" ? new IntersectionObserver((entries) => {
  for (const e of entries) {
    if (e.isIntersecting) inView.add(e.target.dataset.name);
    else inView.delete(e.target.dataset.name);
  }
  scheduleLive();
}) : null;
document.addEventListener("visibilitychange", scheduleLive);

function formatNumber(value, digits) {
  return typeof value === "number" ? value.toFixed(digits) : "–";
}

function makeTile(name) {
  const node = document.getElementById("tile-template").content.firstElementChild.cloneNode(true);
  const tile = {
    name, node, alive: true, filterShown: null,
    input: node.querySelector(".input-side img"),
    output: node.querySelector(".output-side img"),
    players: liveSupported ? {
      input: new LivePlayer(node.querySelector(".input-side video")),
      output: new LivePlayer(node.querySelector(".output-side video")),
    } : null,
  };
  node.dataset.name = name;
  node.querySelector(".name").textContent = name;
  node.querySelector(".editor").id = "editor-" + name;
  setUpEditor(tile);
  setUpRemove(tile);
  makeGraphs(tile);
  grid.appendChild(node);
  tiles.set(name, tile);
  if (visibility) visibility.observe(node);
  else inView.add(name);
  showPictures(tile);
  return tile;
}

function updateTile(tile, s, shardCount) {
  const n = tile.node;
  // An answer of the stream's own (a PUT) says nothing of its shard: the fleet list's is kept.
  if (s.shard === undefined) s = { ...s, shard: tile.shard, pod: tile.pod };
  if (shardCount === undefined) shardCount = tile.shardCount;
  [tile.shard, tile.pod, tile.shardCount] = [s.shard, s.pod, shardCount];
  // A stream of a shard that does not answer keeps its last known numbers, marked unreachable.
  const state = s.reachable === false ? "unreachable" : s.state;
  n.dataset.state = state;
  n.dataset.shard = s.shard;
  n.querySelector(".state").textContent = state;
  const badge = n.querySelector(".shard");
  badge.hidden = shardCount < 2;
  // Where it runs, and where it belongs when that shard is lost (serve --store): "shard 0 (of 2)".
  const away = s.home !== undefined && s.home !== s.shard;
  badge.textContent = "shard " + s.shard + (away ? " (of " + s.home + ")" : "") + (s.pod ? " · " + s.pod : "");
  badge.title = away ? "runs on shard " + s.shard + " while shard " + s.home + ", where it belongs, is lost" : "";
  n.hidden = shardFilter.value !== "" && shardFilter.value !== String(s.shard);
  // A stream waiting for its camera says why and when it tries again.
  let reason = s.last_error ? s.last_error : "";
  if (s.reachable === false) reason = "Its shard does not answer; last known state: " + s.state + ".";
  if (s.state === "waiting" && s.next_attempt_s !== undefined) reason += " (next attempt in " + Math.ceil(s.next_attempt_s) + " s)";
  n.querySelector(".reason").textContent = reason;
  n.querySelector(".fps").textContent = formatNumber(s.fps, 1);
  n.querySelector(".dropped").textContent = s.frames_dropped;
  n.querySelector(".reconnects").textContent = s.reconnects;
  // The last 10 s while frames come (what it is now), else since the start (a shard of an older vfilter has only that).
  const p99 = s.latency_recent_p99_ms > 0 ? s.latency_recent_p99_ms : s.latency_p99_ms;
  n.querySelector(".latency").textContent = p99 > 0 ? formatNumber(p99, 0) + " ms" : "–";
  n.querySelector(".device").textContent = s.device ? s.device.toUpperCase() : "–";
  // Where serve placed its decoding, and why (the tooltip); "over capacity" when its side is full.
  const decoder = n.querySelector(".decoder"), d = s.decoding;
  decoder.textContent = !d ? "–" : (d.decoder === "nvdec" ? "NVDEC" + (s.gpu !== undefined ? " (GPU " + s.gpu + ")" : "") : "CPU") +
    (d.over_capacity ? ", over capacity" : "");
  decoder.title = d ? d.why : "";
  decoder.classList.toggle("over", Boolean(d && d.over_capacity));
  const delay = tile.players && tile.players.output.playing() ? livePercentile(tile.players.output.latency.slice(-100), 0.5) : NaN;
  n.querySelector(".video-latency").textContent = Number.isFinite(delay) ? formatNumber(delay, 0) + " ms" : "–";
  // An answer of the stream's own (a PUT) carries its watch as well.
  updateWatch(tile, s.watch);
  n.querySelector(".filter").textContent = s.filter;
  const chain = n.querySelector(".chain");
  // The chain field follows the stream's filter until someone types in it.
  if (tile.filterShown !== s.filter && (document.activeElement !== chain && !chain.dataset.edited)) chain.value = s.filter;
  tile.filterShown = s.filter;
}

function removeTile(tile) {
  tile.alive = false;
  if (visibility) visibility.unobserve(tile.node);
  inView.delete(tile.name);
  if (tile.players) for (const p of Object.values(tile.players)) p.stop();
  scheduleLive();
  tile.node.remove();
  tiles.delete(tile.name);
  for (const img of [tile.input, tile.output]) if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
}

// The fleet's shards (serve --peers): their states, and the choice of one to show.
function showShards(shards) {
  const several = shards.length > 1;
  shardList.hidden = !several;
  document.getElementById("shard-choice").hidden = !several;
  const items = shards.map((shard) => {
    const li = document.createElement("li");
    li.dataset.reachable = String(shard.reachable);
    const what = "shard " + shard.index + (shard.pod ? " (" + shard.pod + (shard.self ? ", this page's" : "") + ")" : "");
    const state = document.createElement("span");
    state.className = "shard-state";
    state.textContent = shard.reachable ? "answers" : "does not answer" + (shard.error ? ": " + shard.error : "");
    li.append(what + ": " + shard.streams + (shard.streams === 1 ? " stream, " : " streams, "), state);
    return li;
  });
  shardList.replaceChildren(...items);
  const chosen = shardFilter.value;
  const options = [new Option("all", "")].concat(shards.map((shard) => new Option(String(shard.index), String(shard.index))));
  if (shardFilter.options.length !== options.length) shardFilter.replaceChildren(...options);
  shardFilter.value = chosen;
}
shardFilter.addEventListener("change", () => refresh());

async function refresh() {
  if (needToken) return;
  let fleet;
  try {
    fleet = await (await api("GET", "/streams?scope=fleet")).json();
    pageError.textContent = "";
  } catch (e) {
    if (!(e instanceof Refused && e.status === 401)) pageError.textContent = "The service does not answer: " + e.message;
    return;
  }
  const streams = fleet.streams;
  showShards(fleet.shards);
  watchFleetSeen(fleet);
  const seen = new Set();
  const counts = {};
  for (const s of streams) {
    seen.add(s.name);
    const state = s.reachable === false ? "unreachable" : s.state;
    counts[state] = (counts[state] || 0) + 1;
    updateTile(tiles.get(s.name) || makeTile(s.name), s, fleet.shards.length);
  }
  for (const [name, tile] of tiles) if (!seen.has(name)) removeTile(tile);
  document.getElementById("empty").hidden = streams.length > 0;
  const parts = Object.keys(counts).sort().map((state) => counts[state] + " " + state);
  const where = fleet.shards.length > 1 ? " on " + fleet.shards.length + " shards" : "";
  summary.textContent = streams.length + (streams.length === 1 ? " stream" : " streams") + where + (parts.length ? ": " + parts.join(", ") : "");
  scheduleLive();
}
