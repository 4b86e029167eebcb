// Each tile's snapshots (GET /streams/NAME/snapshot.jpg) for the sides that show no live video:
// where the browser cannot play it, or a tile's video has stopped.
"use strict";

const PICTURE_GAP_MS = 200;     // between two pictures of one tile (the server adds its own pace)

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
