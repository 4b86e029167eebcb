// The control API as the page of `vfilter serve` calls it (docs/serve.md): the same API that curl
// uses, with the same token rule: loopback without one; otherwise the token is asked for once,
// kept in this tab's sessionStorage and sent as a Bearer header (never in an address: pictures
// and video are fetched and shown from blobs). A refusal carries the server's one-line reason.
"use strict";

const TOKEN_KEY = "vfilter-token";
let needToken = false;

function authHeaders() {
  return token() ? { Authorization: "Bearer " + token() } : {};
}

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
