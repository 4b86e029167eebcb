// The page of `vfilter serve` (docs/serve.md): every stream with its state, numbers and live
// video (live.js; snapshots where the browser cannot play it or a tile's video has stopped), a
// filter editor built from the filter table, and the add and remove forms. It only uses the
// control API that curl uses, with the same token rule: loopback without one; otherwise the token
// is asked for once, kept in this tab's sessionStorage and sent as a Bearer header (never in an
// address: pictures and video are fetched and shown from blobs).
"use strict";

const REFRESH_MS = 1000;        // GET /streams
const PICTURE_GAP_MS = 200;     // between two pictures of one tile (the server adds its own pace)
const TOKEN_KEY = "vfilter-token";

const grid = document.getElementById("grid");
const summary = document.getElementById("summary");
const pageError = document.getElementById("error");
const showInput = document.getElementById("show-input");
const shardList = document.getElementById("shards");
const shardFilter = document.getElementById("shard-filter");
const tiles = new Map();        // name -> tile state
let filterTable = null;         // GET /filters
let needToken = false;

function authHeaders() {
  return token() ? { Authorization: "Bearer " + token() } : {};
}

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

class Refused extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

// A request to the API; throws Refused with the server's one-line reason.
async function api(method, path, body) {
  const headers = {};
  if (token()) headers.Authorization = "Bearer " + token();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
  });
  if (response.status === 401) askForToken(token() ? "The token was refused." : "");
  if (!response.ok) {
    let reason = response.status + " " + response.statusText;
    try {
      const j = await response.json();
      if (j.error) reason = j.error;
    } catch (e) { /* not JSON: keep the status line */ }
    throw new Refused(response.status, reason);
  }
  return response;
}

function askForToken(why) {
  needToken = true;
  document.getElementById("token-box").hidden = false;
  document.getElementById("token-error").textContent = why;
  if (document.activeElement === document.body) document.getElementById("token").focus();
}

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const field = document.getElementById("token");
  sessionStorage.setItem(TOKEN_KEY, field.value.trim());
  field.value = "";
  needToken = false;
  document.getElementById("token-box").hidden = true;
  if (live) live.key = "";  // reopened with the token
  scheduleLive();
  refresh();
});

// ---- the grid -------------------------------------------------------------------------------

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
  badge.textContent = "shard " + s.shard + (s.pod ? " · " + s.pod : "");
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

// ---- pictures -------------------------------------------------------------------------------

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Fetches one picture into `img`; false when there is none (yet).
async function loadPicture(tile, img, side) {
  const width = Math.min(1920, Math.max(160, Math.round(img.clientWidth * (window.devicePixelRatio || 1)) || 480));
  const path = "/streams/" + encodeURIComponent(tile.name) + "/snapshot.jpg?side=" + side + "&width=" + width;
  try {
    const blob = await (await api("GET", path)).blob();
    if (!tile.alive) return false;
    const old = img.src;
    img.src = URL.createObjectURL(blob);
    // Described once it shows something: an empty alt keeps a picture still loading a black box.
    img.alt = (side === "input" ? "input of " : "filtered output of ") + tile.name;
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
    img.classList.remove("missing");
    return true;
  } catch (e) {
    img.classList.add("missing");
    return false;
  }
}

// Whether a side shows video (its player shows frames), else its snapshot; says which by the
// figure's class.
function sideIsLive(tile, side) {
  const playing = !!tile.players && tile.players[side].playing();
  tile.node.querySelector("." + side + "-side").classList.toggle("live", playing);
  return playing;
}

// One loop per tile: snapshots for the sides that show no video, a new picture as soon as the
// last one arrived (so a slow link skips pictures instead of queueing them), paused while the
// tab is hidden.
async function showPictures(tile) {
  while (tile.alive) {
    if (document.hidden || needToken) {
      await sleep(500);
      continue;
    }
    const withInput = showInput.checked;
    tile.node.querySelector(".input-side").hidden = !withInput;
    let got = true;
    if (!sideIsLive(tile, "output")) got = await loadPicture(tile, tile.output, "output");
    if (withInput && tile.alive && !sideIsLive(tile, "input")) await loadPicture(tile, tile.input, "input");
    await sleep(got ? PICTURE_GAP_MS : 1000);
  }
}

showInput.addEventListener("change", () => {
  for (const tile of tiles.values()) {
    tile.node.querySelector(".input-side").hidden = !showInput.checked;
    if (!showInput.checked && tile.players) tile.players.input.stop();
  }
  scheduleLive();
});

// ---- the filter editor ----------------------------------------------------------------------

// The text of one filter from the builder's fields: options left at their default are left out.
function builtFilter(tile) {
  const form = tile.node.querySelector(".builder");
  const name = form.querySelector(".filter-name").value;
  const parts = [];
  for (const field of form.querySelectorAll("[data-option]")) {
    const value = field.value.trim();
    if (value !== "" && value !== field.dataset.default) parts.push(field.dataset.option + "=" + value);
  }
  return parts.length ? name + "=" + parts.join(":") : name;
}

function showOptions(tile) {
  const builder = tile.node.querySelector(".builder");
  const def = filterTable.find((f) => f.name === builder.querySelector(".filter-name").value);
  builder.querySelector(".filter-help").textContent = def ? def.help : "";
  const box = builder.querySelector(".options");
  box.replaceChildren();
  if (!def) return;
  for (const o of def.options) {
    const label = document.createElement("label");
    label.title = o.help;
    let field;
    if (o.type === "choice") {
      field = document.createElement("select");
      for (const c of o.choices) field.append(new Option(c, c));
    } else {
      field = document.createElement("input");
      if (o.type === "number" || o.type === "integer") {
        field.type = "number";
        field.min = o.min;
        field.max = o.max;
        field.step = o.type === "integer" ? "1" : "any";
      } else {
        field.type = "text";
        field.spellcheck = false;
      }
    }
    field.dataset.option = o.name;
    field.dataset.default = o.default;
    field.value = o.default;
    if (o.default === "" && field.tagName === "INPUT") field.placeholder = "not set";
    const range = o.type === "number" || o.type === "integer" ? " (" + o.min + " to " + o.max + ")" : "";
    const text = document.createElement("span");
    text.textContent = o.name + range;
    const help = document.createElement("small");
    help.textContent = o.help;
    label.append(text, field, help);
    box.append(label);
  }
}

function setUpEditor(tile) {
  const n = tile.node;
  const chain = n.querySelector(".chain");
  const error = n.querySelector(".filter-error");
  chain.addEventListener("input", () => { chain.dataset.edited = "1"; });
  const select = n.querySelector(".filter-name");
  const fill = () => {
    if (!filterTable || select.options.length) return;
    for (const f of filterTable) select.append(new Option(f.name, f.name));
    showOptions(tile);
  };
  n.querySelector(".editor").addEventListener("toggle", fill);
  select.addEventListener("change", () => showOptions(tile));
  n.querySelector(".use").addEventListener("click", () => {
    chain.value = builtFilter(tile);
    chain.dataset.edited = "1";
    chain.focus();
  });
  n.querySelector(".append").addEventListener("click", () => {
    chain.value = chain.value.trim() ? chain.value.trim() + "," + builtFilter(tile) : builtFilter(tile);
    chain.dataset.edited = "1";
    chain.focus();
  });
  n.querySelector(".filter-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    n.querySelector(".apply").disabled = true;
    try {
      const s = await (await api("PUT", "/streams/" + encodeURIComponent(tile.name) + "/filter", { filter: chain.value })).json();
      delete chain.dataset.edited;
      updateTile(tile, s);
      error.textContent = "";
    } catch (e) {
      error.textContent = "Refused: " + e.message;
    } finally {
      n.querySelector(".apply").disabled = false;
    }
  });
}

// ---- remove and add -------------------------------------------------------------------------

function setUpRemove(tile) {
  const button = tile.node.querySelector(".remove");
  const error = tile.node.querySelector(".remove-error");
  let armed = null;
  button.addEventListener("click", async () => {
    if (!armed) {  // a second press within 5 seconds removes it
      button.textContent = "Press again to remove " + tile.name;
      armed = setTimeout(() => { armed = null; button.textContent = "Remove"; }, 5000);
      return;
    }
    clearTimeout(armed);
    armed = null;
    button.disabled = true;
    button.textContent = "Removing…";
    try {
      await api("DELETE", "/streams/" + encodeURIComponent(tile.name));
      removeTile(tile);
    } catch (e) {
      error.textContent = "Refused: " + e.message;
      button.disabled = false;
      button.textContent = "Remove";
    }
  });
}

const addForm = document.getElementById("add-form");
const addToggle = document.getElementById("add-toggle");
function showAddForm(show) {
  addForm.hidden = !show;
  addToggle.setAttribute("aria-expanded", String(show));
  if (show) addForm.querySelector("input").focus();
}
addToggle.addEventListener("click", () => showAddForm(addForm.hidden));
document.getElementById("add-cancel").addEventListener("click", () => showAddForm(false));
addForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("add-error");
  error.textContent = "";
  const stream = {};
  for (const field of addForm.querySelectorAll("input")) if (field.value.trim()) stream[field.name] = field.value.trim();
  try {
    await api("POST", "/streams", stream);
    addForm.reset();
    showAddForm(false);
    refresh();
  } catch (e) {
    error.textContent = "Refused: " + e.message;
  }
});

// ---- start ----------------------------------------------------------------------------------

// The filter table first: tiles are made by refresh(), and their editors are filled from it.
async function start() {
  try {
    filterTable = await (await fetch("/filters", { cache: "no-store" })).json();
  } catch (e) {
    filterTable = [];
  }
  await refresh();
  setInterval(refresh, REFRESH_MS);
}
start();
