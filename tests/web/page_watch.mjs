// The cameras' watch on the page of `vfilter serve` (tests/web/page_test.mjs runs this with its
// browser): a camera whose picture goes black gets a "dark" badge on its tile from the event
// stream, the list of recent events shows it (and is filtered by stream), and the tile's graphs
// are drawn from the server's history of its measures: bright first, black now.
import fs from "node:fs";
import path from "node:path";

import { check, Child, eventually, expect, sleep } from "./page_helpers.mjs";

// testsrc2 for `lit` seconds, then black for `dark`, at 10 frames a second (as
// tests/cli/serve_watch_test.cpp makes it).
async function litThenBlack(outDir, lit, dark) {
  const clip = path.join(outDir, "lit-then-black.mkv");
  const size = "s=160x90:r=10";
  const made = await new Child("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=${size}:d=${lit}`, "-f", "lavfi", "-i",
    `color=c=black:${size}:d=${dark}`, "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0,format=yuv420p", "-c:v", "ffv1", clip],
  path.join(outDir, "ffmpeg-clip.log")).exit;
  expect(made.code === 0, `ffmpeg exit ${made.code}`);
  return clip;
}

// `serve(config, extra, logName)` starts a service ({child, base}); `watch(page)` records its script errors.
export async function checkWatch({ browser, serve, watch, outDir }) {
  const clip = await litThenBlack(outDir, 8, 60);
  const config = path.join(outDir, "streams-watch.yaml");
  fs.writeFileSync(config, `defaults: {output: "null", filter: sobel}
streams:
  - {name: door, input: "${clip}", realtime: true}
  - {name: hall, input: "pattern://?size=160x90&rate=10&motion=ball"}
`);
  const service = await serve(config, [], "serve-watch.log");
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await ctx.newPage();
  watch(p);
  const door = p.locator('.tile[data-name="door"]');
  try {
    await check("a camera going black gets a dark badge from the event stream, and the event list shows it", async () => {
      await p.goto(service.base + "/");
      await door.waitFor({ timeout: 15000 });
      await p.locator("#events").waitFor({ state: "visible", timeout: 10000 });
      await eventually("the page's event stream open", async () => (await p.evaluate(() => window.vfilterWatch.streamOpened)) >= 1, 10000);
      // The tile read first, then the events: none yet means the tile was read before the change.
      const before = (await door.getAttribute("data-conditions")) || "";
      const early = (await (await fetch(service.base + "/events?stream=door&kind=dark")).json()).events.length === 0;
      if (early) expect(!/dark/.test(before), "dark before the picture went black");
      else console.log("      the picture went black before the page opened its event stream: the badge is checked alone");
      const badge = door.locator(".conditions");
      await eventually("door's dark badge", async () => /dark/.test(await badge.textContent()) && await badge.isVisible(), 20000);
      const event = (await (await fetch(service.base + "/events?stream=door&kind=dark")).json()).events[0];
      expect(event && event.change === "entered", `GET /events: ${JSON.stringify(event)}`);
      // The event came over the page's event stream (opened before it happened), not only with the
      // next list of the streams.
      if (early) expect((await p.evaluate(() => window.vfilterWatch.streamEvents)) >= 1, "no event came over the event stream");
      const item = p.locator('#event-list li[data-stream="door"][data-kind="dark"][data-change="entered"]');
      await item.waitFor({ timeout: 5000 });
      expect(/door entered dark/.test(await item.textContent()), `the list's item: ${await item.textContent()}`);
      expect(!/dark/.test((await p.locator('.tile[data-name="hall"]').getAttribute("data-conditions")) || ""), "hall is dark too");
      // The list, filtered by stream: none of door's events under hall.
      await p.locator("#event-stream").selectOption("hall");
      await eventually("door's events filtered out", async () => (await p.locator('#event-list li[data-stream="door"]').count()) === 0, 5000);
      await p.locator("#event-stream").selectOption("");
      await item.waitFor({ timeout: 5000 });
      await p.screenshot({ path: path.join(outDir, "page-watch-dark.png") });
    });

    await check("each watched tile draws its measures as graphs, from the server's history", async () => {
      const luma = door.locator('.graph[data-measure="luma_mean"]');
      const drawn = await eventually("door's luma graph with the black picture", async () => {
        const d = await luma.evaluate((f) => ({ ...f.dataset, points: Number(f.dataset.points), shown: f.querySelector(".graph-value").textContent,
          polyline: f.querySelector("polyline").getAttribute("points") }));
        return d.points >= 8 && Number(d.latest) < 28 ? d : null;
      }, 10000);
      expect(Number(drawn.high) > 40, `the lit seconds are not in the graph: ${JSON.stringify(drawn)}`);
      expect(drawn.polyline.split(" ").length === drawn.points, "a point per sample");
      expect(drawn.shown !== "–", "the latest value is shown");
      for (const measure of ["sharpness", "difference", "edge_agreement"]) {
        const points = Number(await door.locator(`.graph[data-measure="${measure}"]`).getAttribute("data-points"));
        expect(measure === "edge_agreement" || points >= 8, `${measure}: ${points} points`);
      }
      // It goes on: more samples a few seconds later, fetched a few seconds at a time.
      await sleep(3000);
      expect(Number(await luma.getAttribute("data-points")) > drawn.points, "the graph did not grow");
      const hall = Number(await p.locator('.tile[data-name="hall"] .graph[data-measure="luma_mean"]').getAttribute("data-points"));
      expect(hall >= 8, `hall's graph: ${hall} points`);
      await door.screenshot({ path: path.join(outDir, "tile-watch-graphs.png") });
    });
  } finally {
    await ctx.close();
    service.child.kill("SIGTERM");
    await service.child.exit;
  }
}
