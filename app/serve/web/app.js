// The page of `vfilter serve` (docs/serve.md): every stream with its state, numbers and live
// video (live.js; snapshots where the browser cannot play it or a tile's video has stopped), a
// filter editor built from the filter table, and the add and remove forms. Its scripts, loaded in
// this order (deferred, sharing one global scope): live.js (live video), api.js (requests and
// the token), grid.js (the tiles), watch.js (the cameras' conditions, graphs and events), pictures.js (snapshots), editor.js (the filter editor),
// add_remove.js (the forms), and this one, which starts the page.
"use strict";

const REFRESH_MS = 1000;        // GET /streams

// The filter table first: tiles are made by refresh(), and their editors are filled from it.
async function start() {
  try {
    filterTable = await (await fetch("/filters", { cache: "no-store" })).json();
  } catch (e) {
    filterTable = [];
  }
  await refresh();
  setInterval(refresh, REFRESH_MS);
  startWatch();
}
start();
