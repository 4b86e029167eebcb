// The page of a fleet: three `vfilter serve` processes on loopback as shards 0..2 of one camera
// list, each with --peers naming all three and the same token, driven in Debian's Chromium
// (headless, through playwright-core):
//   node tests/web/fleet_test.mjs VFILTER_BIN OUT_DIR
// Checks what someone at one process's page sees: every camera of every shard, each marked with its
// shard, live video from the other shards' cameras on the page's one connection, the choice of a
// shard, a filter changed on another shard's camera, the events of every shard in one list, and a
// killed shard shown as not answering (its cameras unreachable, in the list of events too) and
// back when it returns. Screenshots go to OUT_DIR.
import { execFileSync } from "node:child_process";
import path from "node:path";

import { browserOrSkip, check, Child, eventually, expect, finish, freePort, sleep, videoState } from "./page_helpers.mjs";

const [vfilterArg, outDirArg] = process.argv.slice(2);
if (!vfilterArg || !outDirArg) {
  console.error("usage: node fleet_test.mjs VFILTER_BIN OUT_DIR");
  process.exit(2);
}
const vfilter = path.resolve(vfilterArg), outDir = path.resolve(outDirArg);
const browser = await browserOrSkip(outDir);
const token = "fleet-test-token";
const auth = { Authorization: "Bearer " + token };

async function api(base, method, target, body) {
  const r = await fetch(base + target, { method, headers: { ...auth, "Content-Type": "application/json" }, body });
  if (!r.ok) throw new Error(`${method} ${target}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function main() {
  const fs = await import("node:fs");
  const config = path.join(outDir, "streams.yaml");
  const names = ["gate", "yard", "dock", "lobby", "roof", "hall"];
  fs.writeFileSync(config, "defaults: {output: 'null', filter: sobel}\nstreams:\n" +
    names.map((n, i) => `  - {name: ${n}, input: 'pattern://?size=320x180&rate=15&motion=${["ball", "bars", "checker"][i % 3]}&seed=${i}'}\n`).join(""));
  const owner = Object.fromEntries(execFileSync(vfilter, ["serve", "--config", config, "shard-plan", "3"], { encoding: "utf8" })
    .trim().split("\n").map((line) => line.split(" ")).map(([n, k]) => [n, Number(k)]));
  const ports = [await freePort(), await freePort(), await freePort()];
  const peers = ports.map((p) => `http://127.0.0.1:${p}`).join(",");
  const bases = ports.map((p) => `http://127.0.0.1:${p}`);
  const start = (k) => new Child(vfilter, ["serve", "--config", config, "--shard", `${k}/3`, "--api-port", String(ports[k]),
    "--api-token", token, "--peers", peers], path.join(outDir, `serve-${k}.log`));
  const pods = [0, 1, 2].map(start);
  for (const p of pods) await p.waitForLog(/control API: http/, 30000);
  const problems = [];
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    page.on("pageerror", (e) => problems.push("uncaught: " + e.message));
    await page.goto(bases[0] + "/");
    await page.locator("#token-box").waitFor({ state: "visible", timeout: 10000 });
    await page.locator("#token").fill(token);
    await page.locator("#token-form button").click();

    await check("one process's page shows every camera of the three shards, each with its shard", async () => {
      for (const n of names) await page.locator(`.tile[data-name="${n}"][data-state="running"]`).waitFor({ timeout: 30000 });
      for (const n of names) {
        const badge = await page.locator(`.tile[data-name="${n}"] .shard`).textContent();
        expect(badge.startsWith(`shard ${owner[n]}`), `${n}: badge "${badge}", owner ${owner[n]}`);
      }
      const shards = await page.locator("#shards li").allTextContents();
      expect(shards.length === 3 && shards.every((s) => /answers/.test(s) && !/does not/.test(s)), `shards: ${shards.join(" | ")}`);
      const summary = await page.locator("#summary").textContent();
      expect(summary.startsWith("6 streams on 3 shards: 6 running"), `summary: ${summary}`);
    });

    const remote = names.filter((n) => owner[n] !== 0);
    await check("cameras of the other shards play live video in the page", async () => {
      for (const n of remote) {
        const first = await eventually(`${n}'s video`, async () => {
          const v = await videoState(page, n, "output");
          return v && v.live && v.frames > 0 ? v : null;
        }, 20000);
        const later = await eventually(`${n}'s video going on`, async () => {
          const v = await videoState(page, n, "output");
          return v && v.frames > first.frames + 10 ? v : null;
        }, 10000);
        expect(!later.error, `${n}: ${later.error}`);
      }
      const connections = await page.evaluate(() => window.vfilterLive.connections);
      expect(connections <= 2, `${connections} /live connections for one set of tiles`);
    });
    await page.screenshot({ path: path.join(outDir, "fleet-page.png") });

    await check("the list of recent events holds every shard's events, each with its shard", async () => {
      // Every camera here moves: each one's picture enters motion as soon as it is measured.
      await eventually("events of the three shards in the list", async () => {
        const items = await page.locator("#event-list li").evaluateAll((lis) => lis.map((li) => [li.dataset.stream, li.dataset.shard]));
        return [0, 1, 2].every((k) => items.some(([, shard]) => shard === String(k))) ? items : null;
      }, 15000);
      const items = await page.locator("#event-list li").evaluateAll((lis) => lis.map((li) => [li.dataset.stream, li.dataset.shard, li.textContent]));
      for (const [stream, shard, text] of items)
        expect(String(owner[stream]) === shard && text.includes("shard " + shard), `${stream} listed with shard ${shard}: ${text}`);
      // The graphs of another shard's camera come from its own process (the request passed to it).
      await eventually(`${remote[0]}'s graphs`, async () =>
        Number(await page.locator(`.tile[data-name="${remote[0]}"] .graph[data-measure="luma_mean"]`).getAttribute("data-points")) >= 4, 10000);
    });

    await check("choosing a shard shows its cameras only", async () => {
      await page.locator("#shard-filter").selectOption("2");
      await eventually("the choice applied", async () => {
        for (const n of names) if ((await page.locator(`.tile[data-name="${n}"]`).isVisible()) !== (owner[n] === 2)) return false;
        return true;
      }, 5000);
      await page.locator("#shard-filter").selectOption("");
    });

    const far = remote[0];
    await check("a filter changed in the page on another shard's camera reaches that shard", async () => {
      const tile = page.locator(`.tile[data-name="${far}"]`);
      await tile.locator(".editor summary").click();
      await tile.locator(".chain").fill("gaussian=sigma=2");
      await tile.locator(".apply").click();
      await eventually("the owner's filter", async () =>
        (await api(bases[owner[far]], "GET", `/streams/${far}`)).filter === "gaussian=sigma=2", 10000);
      await eventually("the tile's filter", async () => (await tile.locator(".filter").textContent()) === "gaussian=sigma=2", 5000);
      // What the fleet list says from now on, not only the PUT's answer.
      const listed = (await api(bases[0], "GET", "/streams?scope=fleet")).streams.find((s) => s.name === far);
      expect(listed.filter === "gaussian=sigma=2" && listed.shard === owner[far], `the fleet list: ${JSON.stringify(listed)}`);
      await sleep(1500);
      expect((await tile.locator(".filter").textContent()) === "gaussian=sigma=2", "the tile went back to the old filter");
      expect((await tile.locator(".shard").textContent()).startsWith(`shard ${owner[far]}`), "the tile lost its shard");
    });

    const gone = names.filter((n) => owner[n] === 2);
    await check("a shard killed: its cameras show as unreachable within a few seconds, the others go on", async () => {
      pods[2].kill("SIGKILL");
      const at = Date.now();
      for (const n of gone) await page.locator(`.tile[data-name="${n}"][data-state="unreachable"]`).waitFor({ timeout: 8000 });
      console.log(`      unreachable in the page after ${Date.now() - at} ms`);
      const line = await page.locator("#shards li").nth(2).textContent();
      expect(/does not answer/.test(line), `shard 2: ${line}`);
      await eventually("the events' list naming shard 2", async () => /do not answer: 2\./.test(await page.locator("#event-note").textContent()), 10000);
      for (const n of names.filter((n) => owner[n] !== 2))
        expect(await page.locator(`.tile[data-name="${n}"][data-state="running"]`).count() === 1, `${n} is not running`);
    });
    await page.screenshot({ path: path.join(outDir, "fleet-page-shard-down.png") });

    await check("the shard back: its cameras run and play again", async () => {
      pods[2] = start(2);
      for (const n of gone) await page.locator(`.tile[data-name="${n}"][data-state="running"]`).waitFor({ timeout: 30000 });
      const n = gone[0];
      const before = await videoState(page, n, "output");
      await eventually(`${n}'s video again`, async () => {
        const v = await videoState(page, n, "output");
        return v && v.live && v.frames > before.frames + 10;
      }, 20000);
    });

    await check("no script error in the page", async () => expect(problems.length === 0, problems.join("\n")));
  } catch (e) {
    console.log(`FAIL  ${e.stack || e}`);
    await finish(browser, outDir);
    return 1;
  }
  return finish(browser, outDir);
}

main().then((code) => process.exit(code), (e) => {
  console.error(e.stack || e);
  process.exit(1);
});
