// Each tile's filter editor: the chain as text, or one filter built from the filter table
// (GET /filters: its options with their ranges, defaults and help), applied with PUT .../filter.
"use strict";

let filterTable = null;         // GET /filters

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
