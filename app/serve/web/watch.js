// The cameras' watch on the page of `vfilter serve` (docs/serve.md, "Cameras that watch
// themselves"): on each tile a badge naming the conditions its picture is in and small graphs of
// its measures over the last two minutes (GET /streams/NAME/watch, fetched again every few
// seconds for the tiles in view), and the list of recent events of every shard (GET
// /events?scope=fleet), filterable by stream. This shard's events come at once over one event
// stream (GET /events/stream, read with fetch so that the token goes in a header; a reconnect
// sends Last-Event-ID and gets what it missed). Streams that do not watch themselves show none
// of it; with no watched stream the list stays hidden and no event stream is opened.
"use strict";

const WATCH_LIST_MS = 5000;      // GET /events?scope=fleet
const WATCH_GRAPH_MS = 2000;     // each tile in view: GET /streams/NAME/watch?seconds=...
const WATCH_WINDOW_S = 120;      // what a graph spans (the server keeps as much)
const WATCH_EVENTS_SHOWN = 50;
const WATCH_RECONNECT_MS = 2000;
const WATCH_REFUSED_MS = 30000;  // the event streams' places all taken (503): the list's polling shows events meanwhile
const WATCH_MEASURES = ["sharpness", "luma_mean", "difference", "edge_agreement"];
const WATCH_LABELS = { sharpness: "sharpness", luma_mean: "luma mean", difference: "difference", edge_agreement: "edge agreement" };

function measureText(v) {
  return Math.abs(v) >= 1000 ? String(Math.round(v)) : Number(v).toPrecision(3);
}

const eventsBox = document.getElementById("events");
const eventList = document.getElementById("event-list");
const eventStreamFilter = document.getElementById("event-stream");
const watchState = {
  shard: 0, shardCount: 1, watched: false,
  events: new Map(),            // "shard:id" -> event, the newest WATCH_EVENTS_SHOWN of the list
  lastId: null,                 // this shard's last event seen on the event stream: its id as sent
  stream: null,                 // the event stream's AbortController
};
window.vfilterWatch = { streamOpened: 0, streamEvents: 0, lists: 0 };

// The tile's conditions badge, from GET /streams's `watch` (or an event that just came).
function showConditions(tile, conditions) {
  const badge = tile.node.querySelector(".conditions");
  tile.conditions = new Set(conditions);
  const names = [...tile.conditions].sort();
  badge.hidden = names.length === 0;
  badge.textContent = names.join(" · ");
  badge.title = names.length ? "the picture is " + names.join(", ") + " (docs/serve.md)" : "";
  tile.node.dataset.conditions = names.join(" ");
}

// Called by updateTile with a stream's `watch` (undefined when it does not watch itself).
function updateWatch(tile, watch) {
  tile.node.querySelector(".graphs").hidden = !watch;
  tile.watched = Boolean(watch);
  if (!watch) {
    showConditions(tile, []);
    return;
  }
  showConditions(tile, watch.conditions || []);
  tile.node.querySelector(".graphs").dataset.calibrating = String(Boolean(watch.calibrating));
}

// Called by refresh with GET /streams?scope=fleet's answer.
function watchFleetSeen(fleet) {
  watchState.shard = fleet.shard && fleet.shard.index !== undefined ? fleet.shard.index : 0;
  watchState.shardCount = fleet.shards.length;
  const watched = fleet.streams.some((s) => s.watch !== undefined);
  const names = fleet.streams.filter((s) => s.watch !== undefined).map((s) => s.name).sort();
  const chosen = eventStreamFilter.value;
  if (eventStreamFilter.options.length !== names.length + 1 || names.some((n, i) => eventStreamFilter.options[i + 1].value !== n)) {
    eventStreamFilter.replaceChildren(new Option("all", ""), ...names.map((n) => new Option(n, n)));
    eventStreamFilter.value = names.includes(chosen) ? chosen : "";
  }
  if (watched === watchState.watched) return;
  watchState.watched = watched;
  eventsBox.hidden = !watched;
  if (watched) {
    openEventStream();
    refreshEventList();
  } else if (watchState.stream) {
    watchState.stream.abort();
    watchState.stream = null;
  }
}

// ---- the list of recent events --------------------------------------------------------------

function eventKey(e) {
  return e.shard + ":" + e.id;
}

function addEvents(list) {
  for (const e of list) watchState.events.set(eventKey(e), e);
  const newest = [...watchState.events.values()].sort((a, b) => a.time - b.time || a.shard - b.shard || a.id - b.id).slice(-WATCH_EVENTS_SHOWN);
  watchState.events = new Map(newest.map((e) => [eventKey(e), e]));
  showEventList();
}

function showEventList() {
  const only = eventStreamFilter.value;
  const shown = [...watchState.events.values()].filter((e) => !only || e.stream === only).reverse();
  const items = shown.map((e) => {
    const li = document.createElement("li");
    li.dataset.stream = e.stream;
    li.dataset.shard = String(e.shard);
    li.dataset.kind = e.kind;
    li.dataset.change = e.change;
    const when = document.createElement("time");
    when.dateTime = new Date(e.time * 1000).toISOString();
    when.textContent = new Date(e.time * 1000).toLocaleTimeString();
    const what = document.createElement("span");
    what.className = "event-what";
    what.textContent = e.stream + " " + e.change + " " + e.kind;
    const value = document.createElement("span");
    value.className = "event-value";
    value.textContent = "measure " + measureText(e.value) + (watchState.shardCount > 1 ? " · shard " + e.shard : "");
    li.append(when, " ", what, " ", value);
    return li;
  });
  eventList.replaceChildren(...items);
  document.getElementById("event-empty").hidden = items.length > 0;
}

async function refreshEventList() {
  if (needToken || !watchState.watched) return;
  const only = eventStreamFilter.value;
  const query = "limit=" + WATCH_EVENTS_SHOWN + (only ? "&stream=" + encodeURIComponent(only) : "");
  try {
    let answer;
    try {
      answer = await (await api("GET", "/events?scope=fleet&" + query)).json();
    } catch (e) {
      if (!(e instanceof Refused && e.status === 400)) throw e;
      answer = await (await api("GET", "/events?" + query)).json();  // a process without a fleet view
    }
    window.vfilterWatch.lists++;
    addEvents(answer.events.map((e) => (e.shard === undefined ? { ...e, shard: watchState.shard } : e)));
    const lost = answer.unreachable || [];
    document.getElementById("event-note").textContent = lost.length ? "Shards that do not answer: " + lost.join(", ") + "." : "";
  } catch (e) { /* the grid says when the service does not answer */ }
}
eventStreamFilter.addEventListener("change", () => {
  showEventList();
  refreshEventList();
});

// ---- this shard's event stream ----------------------------------------------------------------

// One event as the stream carries it: the badge of its tile at once, and the list.
function eventCame(e) {
  window.vfilterWatch.streamEvents++;
  const tile = tiles.get(e.stream);
  if (tile && tile.watched) {
    const now = new Set(tile.conditions || []);
    if (e.change === "entered") now.add(e.kind);
    else now.delete(e.kind);
    showConditions(tile, now);
  }
  addEvents([{ ...e, shard: watchState.shard }]);
}

function openEventStream() {
  if (watchState.stream) watchState.stream.abort();
  const controller = new AbortController();
  watchState.stream = controller;
  (async () => {
    while (!controller.signal.aborted) {
      let wait = WATCH_RECONNECT_MS;
      try {
        const headers = authHeaders();
        if (watchState.lastId !== null) headers["Last-Event-ID"] = String(watchState.lastId);
        const response = await fetch("/events/stream", { headers, signal: controller.signal, cache: "no-store" });
        if (response.ok) {
          window.vfilterWatch.streamOpened++;
          await readEventStream(response.body.getReader());
        } else if (response.status === 503) {
          wait = WATCH_REFUSED_MS;
        }
      } catch (e) { /* aborted, refused or broken: below */ }
      if (!controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
}

// Server-Sent Events, as the standard reads them: blocks end with a blank line; "id:", "event:"
// and "data:" lines; a line from ":" is a comment.
async function readEventStream(reader) {
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += decoder.decode(value, { stream: true });
    let end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let id = null, kind = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("event: ")) kind = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (id !== null) watchState.lastId = id;  // "BOOT-N", sent back as it came
      if (kind === "condition") eventCame(JSON.parse(data));
      else if (kind === "missed") refreshEventList();
    }
  }
}

// ---- the graphs ---------------------------------------------------------------------------------

function makeGraphs(tile) {
  const box = tile.node.querySelector(".graphs");
  tile.history = null;
  for (const measure of WATCH_MEASURES) {
    const figure = document.getElementById("graph-template").content.firstElementChild.cloneNode(true);
    figure.dataset.measure = measure;
    figure.querySelector(".graph-name").textContent = WATCH_LABELS[measure];
    box.append(figure);
  }
}

// Merges an answer of GET /streams/NAME/watch into the tile's history (the samples after the last held).
function mergeHistory(tile, h) {
  if (!tile.history) tile.history = { time: [], ...Object.fromEntries(WATCH_MEASURES.map((m) => [m, []])) };
  const held = tile.history;
  const last = held.time.length ? held.time[held.time.length - 1] : -Infinity;
  h.time.forEach((t, i) => {
    if (t <= last) return;
    held.time.push(t);
    for (const m of WATCH_MEASURES) held[m].push(h[m][i]);
  });
  const from = held.time.findIndex((t) => t >= held.time[held.time.length - 1] - WATCH_WINDOW_S);
  if (from > 0) for (const key of Object.keys(held)) held[key].splice(0, from);
}

function drawGraphs(tile) {
  const h = tile.history;
  if (!h || !h.time.length) return;
  const newest = h.time[h.time.length - 1];
  for (const figure of tile.node.querySelectorAll(".graph")) {
    const values = h[figure.dataset.measure];
    const known = values.filter((v) => v !== null);
    const low = Math.min(...known), high = Math.max(...known);
    const span = high > low ? high - low : 1;
    // x: seconds over the window (0..120), y: the value within its own range (0..24, high on top).
    const points = [];
    values.forEach((v, i) => {
      if (v === null) return;
      const x = WATCH_WINDOW_S - (newest - h.time[i]);
      points.push(x.toFixed(2) + "," + (22 - 20 * (v - low) / span).toFixed(2));
    });
    figure.querySelector("polyline").setAttribute("points", points.join(" "));
    figure.dataset.points = String(points.length);
    const latest = known.length ? known[known.length - 1] : null;
    [figure.dataset.low, figure.dataset.high] = known.length ? [String(low), String(high)] : ["", ""];
    figure.dataset.latest = latest === null ? "" : String(latest);
    figure.querySelector(".graph-value").textContent = latest === null ? "–" : measureText(latest);
    figure.title = known.length ? WATCH_LABELS[figure.dataset.measure] + ": " + measureText(low) + " to " + measureText(high) + " over the last " +
      Math.round(newest - h.time[0]) + " s" : "";
  }
}

async function refreshGraphs() {
  if (!needToken && !document.hidden) {
    for (const [name, tile] of tiles) {
      if (!tile.watched || !inView.has(name) || tile.node.hidden || tile.node.dataset.state === "unreachable") continue;
      // The whole window the first time (or after a long gap), then what came since (by this
      // page's clock: the server's may differ).
      const gap = tile.fetchedAt ? (performance.now() - tile.fetchedAt) / 1000 : Infinity;
      const query = gap < WATCH_WINDOW_S - 5 ? "?seconds=" + Math.ceil(gap + 2) : "";
      try {
        const asked = performance.now();
        const answer = await (await api("GET", "/streams/" + encodeURIComponent(name) + "/watch" + query)).json();
        tile.fetchedAt = asked;
        if (!tile.alive) continue;
        mergeHistory(tile, answer.history);
        drawGraphs(tile);
      } catch (e) { /* not watched (any more) or gone: the next refresh of the grid says so */ }
    }
  }
  setTimeout(refreshGraphs, WATCH_GRAPH_MS);
}

function startWatch() {
  setInterval(refreshEventList, WATCH_LIST_MS);
  refreshGraphs();
}
