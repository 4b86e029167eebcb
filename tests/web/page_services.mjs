// The page of `vfilter serve` against two more services (tests/web/page_test.mjs runs these with
// its browser): one that needs a token, whose page changes nothing without it, and a grid of
// twelve streams that all play at once, tiles out of view stopping.
import fs from "node:fs";
import path from "node:path";

import { check, eventually, expect, pictureStats, sleep, streams, videoState } from "./page_helpers.mjs";

// `serve(config, extra, logName)` starts a service ({child, base}); `watch(page)` records its
// script errors; `url(i)` is camera i's address.
export async function checkTokenService({ browser, serve, watch, url, outDir }) {
  const token = "s3cret-" + Math.random().toString(36).slice(2);
  const config2 = path.join(outDir, "streams-token.yaml");
  fs.writeFileSync(config2, `defaults: {output: "null", filter: sobel}\nstreams:\n  - {name: cam-a, input: "${url(0)}"}\n`);
  const locked = await serve(config2, ["--api-token", token], "serve-token.log");
  await check("with a token required, the page without it changes nothing and the API answers 401", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const p = await ctx.newPage();
    watch(p);
    const urls = [];
    p.on("request", (r) => urls.push(r.url()));
    await p.goto(locked.base + "/");
    await p.locator("#token-box").waitFor({ state: "visible", timeout: 10000 });
    expect((await p.locator(".tile").count()) === 0, "streams shown without the token");
    const answer = await p.evaluate(async () => {
      const r = await fetch("/streams/cam-a/filter", { method: "PUT", body: "gaussian" });
      return r.status;
    });
    expect(answer === 401, `PUT without the token answered ${answer}`);
    for (const [method, pathname, body] of [["GET", "/streams"], ["POST", "/streams", '{"name":"x","input":"a","output":"null"}'],
      ["DELETE", "/streams/cam-a"], ["PUT", "/streams/cam-a/filter", "box"], ["GET", "/streams/cam-a/snapshot.jpg"]]) {
      const r = await fetch(locked.base + pathname, { method, body });
      expect(r.status === 401, `${method} ${pathname} without the token answered ${r.status}`);
    }
    await p.locator("#add-toggle").click();
    await p.locator('#add-form [name="name"]').fill("intruder");
    await p.locator('#add-form [name="input"]').fill(url(1));
    await p.locator('#add-form button[type="submit"]').click();
    await eventually("the refusal", async () => /401|token/i.test(await p.locator("#add-error").textContent()), 5000);
    const list = await streams(locked.base, token);
    expect(list.length === 1 && list[0].filter === "sobel", `the service changed: ${JSON.stringify(list)}`);
    await p.locator("#add-cancel").click();
    await p.locator("#token").fill("wrong");
    await p.locator("#token-form button").click();
    await eventually("the wrong token refused", async () => /refused/.test(await p.locator("#token-error").textContent()), 5000);
    await p.locator("#token").fill(token);
    await p.locator("#token-form button").click();
    await p.locator('.tile[data-name="cam-a"][data-state="running"]').waitFor({ timeout: 15000 });
    await eventually("a picture with the token", () => pictureStats(p, "cam-a", "output"), 10000);
    await p.reload();  // the tab keeps it
    await p.locator('.tile[data-name="cam-a"]').waitFor({ timeout: 10000 });
    expect(await p.locator("#token-box").isHidden(), "the token was asked for again in the same tab");
    const leaked = urls.filter((u) => u.includes(token));
    expect(leaked.length === 0, `the token is in addresses: ${leaked[0]}`);
    expect(!locked.child.log().includes(token), "the token is in the service's log");
    await p.screenshot({ path: path.join(outDir, "page-token.png") });
    await ctx.close();
  });
  locked.child.kill("SIGTERM");
  await locked.child.exit;

}

export async function checkGrid({ browser, serve, watch, outDir }) {
  // Every tile in view plays at once over the one connection; tiles scrolled out of view stop,
  // and their encoders with them.
  const gridConfig = path.join(outDir, "streams-grid.yaml");
  // Without the watch (serve: watch: false), the page shows none of it and opens no event stream.
  fs.writeFileSync(gridConfig, "defaults: {output: \"null\", filter: sobel}\nserve: {watch: false}\nstreams:\n" +
    Array.from({ length: 12 }, (_, i) => `  - {name: g${String(i).padStart(2, "0")}, input: "pattern://?size=192x108&rate=15&seed=${i}"}\n`).join(""));
  const gridService = await serve(gridConfig, [], "serve-grid.log");
  await check("a grid of 12 streams plays every tile at once; tiles out of view stop", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1700, height: 1600 } });
    const p = await ctx.newPage();
    watch(p);
    await p.goto(gridService.base + "/");
    const names = Array.from({ length: 12 }, (_, i) => `g${String(i).padStart(2, "0")}`);
    for (const name of names)
      await eventually(`${name} playing`, async () => (await videoState(p, name, "output"))?.live, 20000);
    const counts = {};
    for (const name of names) counts[name] = (await videoState(p, name, "output")).frames;
    await sleep(2000);
    for (const name of names) {
      const v = await videoState(p, name, "output");
      expect(v.live && v.frames >= counts[name] + 15 && !v.error, `${name}: ${v.frames - counts[name]} frames in 2 s, ${JSON.stringify(v)}`);
    }
    const connections = await p.evaluate(() => window.vfilterLive.connections);
    expect(connections === 1, `${connections} connections to /live for 12 tiles`);
    expect(await p.locator("#events").isHidden(), "the events' list is shown without the watch");
    expect((await p.locator(".conditions:visible, .graphs:visible").count()) === 0, "a badge or graphs without the watch");
    expect((await p.evaluate(() => window.vfilterWatch.streamOpened)) === 0, "an event stream was opened without the watch");
    await p.screenshot({ path: path.join(outDir, "page-grid-12.png") });
    await p.setViewportSize({ width: 1700, height: 500 });
    const hidden = [];
    for (const name of names) {
      const box = await p.locator(`.tile[data-name="${name}"]`).boundingBox();
      if (box.y > 600) hidden.push(name);
    }
    expect(hidden.length >= 4, `only ${hidden.length} tiles out of view`);
    await eventually("the encoders of tiles out of view stopped", async () => {
      const metrics = await (await fetch(gridService.base + "/metrics")).text();
      return hidden.every((n) => metrics.includes(`vfilter_live_encoders{stream="${n}"} 0`));
    }, 10000);
    const shown = await videoState(p, names[0], "output");
    await sleep(1000);
    expect((await videoState(p, names[0], "output")).frames > shown.frames + 5, "the tile still in view stopped playing");
    await ctx.close();
  });
  gridService.child.kill("SIGTERM");
  await gridService.child.exit;

}
