// Adding a camera (POST /streams, the form at the top) and removing a stream (DELETE, a tile's
// button pressed twice).
"use strict";

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
