// `vfilter serve --demo` as a newcomer meets it: no camera, no file, one command, then the page in
// Debian's Chromium (headless, through playwright-core):
//   node tests/web/demo_test.mjs VFILTER_BIN OUT_DIR
// Checks that the command prints the page's address, that the page shows four streams running,
// each with a picture that moves and that its filter changed (the output is not the input), and
// that the service writes no file and ends cleanly. The page's screenshot goes to OUT_DIR
// (demo-page.png: docs/images/serve-demo.png is one). Exit 0 when every check passed.
import fs from "node:fs";
import path from "node:path";

import { browserOrSkip, changedShare, check, Child, eventually, expect, finish, pictureStats, sleep, streams } from "./page_helpers.mjs";

const [vfilterArg, outDirArg] = process.argv.slice(2);
if (!vfilterArg || !outDirArg) {
  console.error("usage: node demo_test.mjs VFILTER_BIN OUT_DIR");
  process.exit(2);
}
const vfilter = path.resolve(vfilterArg), outDir = path.resolve(outDirArg);
const browser = await browserOrSkip(outDir);

// What a JPEG the service serves looks like, decoded in the page: its mean luma and its fine
// texture (the mean luma step between neighbouring pixels). Both hold still while the pictures
// move, so an input and an output taken moments apart compare by what the filter did.
async function snapshotLook(page, url) {
  return page.evaluate(async (url) => {
    const r = await fetch(url);
    if (!r.ok) return null;
    const bitmap = await createImageBitmap(await r.blob());
    const canvas = document.createElement("canvas");
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const luma = (i) => 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
    let sum = 0, steps = 0, n = 0;
    for (let y = 0; y < canvas.height; ++y)
      for (let x = 0; x < canvas.width; ++x) {
        const i = (y * canvas.width + x) * 4;
        sum += luma(i);
        if (x + 1 < canvas.width) steps += Math.abs(luma(i + 4) - luma(i)), ++n;
      }
    return { mean: sum / (canvas.width * canvas.height), texture: steps / n };
  }, url);
}

async function main() {
  // Run where a newcomer would: a folder of their own, which must stay empty.
  const cwd = path.join(outDir, "cwd");
  fs.mkdirSync(cwd, { recursive: true });
  const server = new Child(vfilter, ["serve", "--demo", "--api-port", "0"], path.join(outDir, "demo.log"), cwd);
  const problems = [];
  let base = "";
  try {
    await check("serve --demo prints the page's address", async () => {
      const m = await server.waitForLog(/open (http:\/\/127\.0\.0\.1:\d+\/) in a browser/, 30000);
      base = m[1].replace(/\/$/, "");
    });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (e) => problems.push("uncaught: " + e.message));
    await page.goto(base + "/");
    const names = (await streams(base)).map((s) => s.name).sort();

    await check("four streams of built-in pictures, each with another filter, all running", async () => {
      expect(names.length === 4, `streams: ${names.join(", ")}`);
      const list = await streams(base);
      expect(new Set(list.map((s) => s.filter)).size === 4, `filters: ${list.map((s) => s.filter).join(", ")}`);
      expect(list.every((s) => s.input.startsWith("pattern://")), `inputs: ${list.map((s) => s.input).join(", ")}`);
      for (const name of names) await page.locator(`.tile[data-name="${name}"][data-state="running"]`).waitFor({ timeout: 30000 });
      const summary = await page.locator("#summary").textContent();
      expect(/4 streams: 4 running/.test(summary), `summary: ${summary}`);
    });

    await check("every tile's picture moves", async () => {
      for (const name of names) {
        const first = await eventually(`${name}'s first picture`, () => pictureStats(page, name, "output"), 20000);
        expect(first.spread > 5, `${name}'s picture is blank: spread ${first.spread.toFixed(1)}`);
        await sleep(1500);
        const second = await eventually(`${name}'s next picture`, async () => {
          const s = await pictureStats(page, name, "output");
          return s && s.src !== first.src ? s : null;
        }, 10000);
        const moved = changedShare(first, second);
        expect(moved > 0.02, `${name}'s picture did not move (${(moved * 100).toFixed(1)}% of the grid changed)`);
      }
    });

    await check("every stream's output is filtered: it differs from its input", async () => {
      for (const name of names) {
        const at = (side) => `${base}/streams/${name}/snapshot.jpg?side=${side}&width=640`;
        const [input, output] = [await snapshotLook(page, at("input")), await snapshotLook(page, at("output"))];
        expect(input && output, `${name}: no snapshot`);
        console.log(`      ${name}: mean ${input.mean.toFixed(1)} -> ${output.mean.toFixed(1)}, texture ${input.texture.toFixed(2)} -> ${output.texture.toFixed(2)}`);
        const brightness = Math.abs(output.mean - input.mean);
        const texture = Math.abs(output.texture - input.texture) / Math.max(input.texture, output.texture);
        expect(brightness > 20 || texture > 0.25,
          `${name}'s output looks like its input: mean ${input.mean.toFixed(1)} -> ${output.mean.toFixed(1)}, ` +
          `texture ${input.texture.toFixed(2)} -> ${output.texture.toFixed(2)}`);
      }
    });

    await page.locator("#show-input").check();
    await sleep(2500);
    await page.screenshot({ path: path.join(outDir, "demo-page.png") });

    await check("no script error in the page", async () => expect(problems.length === 0, problems.join("\n")));

    server.kill("SIGTERM");
    const end = await Promise.race([server.exit, sleep(30000).then(() => null)]);
    await check("the demo ends cleanly on SIGTERM and wrote no file", async () => {
      expect(end && end.code === 0, `exit ${JSON.stringify(end)}:\n${server.log().slice(-1500)}`);
      const left = fs.readdirSync(cwd);
      expect(left.length === 0, `files written: ${left.join(", ")}`);
    });
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
