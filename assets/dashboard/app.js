// The operators' page: the span and key controls, and which view shows
// (#/ the fleet, #/conversations/<id> one conversation).

import { ApiProblem, get, key, setKey } from "./api.js";
import { Conversation } from "./conversation.js";
import { History, colours, loadSeries, loadStats } from "./fleet.js";
import { Picker } from "./picker.js";

const PRESETS = { "1h": 3600e3, "24h": 86400e3, "7d": 7 * 86400e3, "30d": 30 * 86400e3 };

const history = new History();
const conversation = new Conversation();
const picker = new Picker(document.querySelector("#filters [name=conversation]"), document.getElementById("picker"));
let triggerColours = new Map();

function $(selector) {
  return document.querySelector(selector);
}

/** `datetime-local` values are read as UTC, like every time on the page. */
function utc(local) {
  return local ? new Date(`${local}Z`).toISOString() : null;
}

function span() {
  const form = $("#span");
  const preset = form.preset.value;
  if (preset === "custom") {
    return { since: utc(form.since.value), until: utc(form.until.value) || new Date().toISOString() };
  }
  const until = new Date();
  return { since: new Date(until - PRESETS[preset]).toISOString(), until: until.toISOString() };
}

function filters() {
  const form = $("#filters");
  return { trigger: form.trigger.value, success: form.success.value, harness: form.harness.value };
}

function report(error) {
  const problem = $("#problem");
  if (!error) {
    problem.hidden = true;
    return;
  }
  problem.hidden = false;
  if (error instanceof ApiProblem && error.status === 401) {
    problem.textContent = `${error.message} Enter a key (a reader key is enough) above.`;
    $("#key input").focus();
  } else {
    problem.textContent = error.message;
  }
  document.body.dataset.ready = "error";
}

async function showFleet() {
  const s = span();
  if (!s.since) throw new Error("Pick the span's start.");
  await Promise.all([
    loadStats(s),
    loadSeries(s, triggerColours),
    history.load(s, filters(), history.current ?? null),
    // A picker that cannot list (a prefix the service refuses) says so in
    // its own place and leaves the fleet's figures standing.
    picker.load().catch((error) => picker.failed(error)),
  ]);
}

async function route() {
  document.body.dataset.ready = "";
  const match = location.hash.match(/^#\/conversations\/(.+)$/);
  $("#fleet").hidden = Boolean(match);
  document.body.classList.toggle("one-conversation", Boolean(match));
  $("#conversation").hidden = !match;
  try {
    if (match) {
      await conversation.open(decodeURIComponent(match[1]));
    } else {
      await showFleet();
    }
    report(null);
    document.body.dataset.ready = match ? "conversation" : "fleet";
  } catch (error) {
    report(error);
  }
}

async function reloadHistory(cursor) {
  try {
    await history.load(span(), filters(), cursor);
    report(null);
  } catch (error) {
    report(error);
  }
}

/**
 * `?since=…&until=…` in the page's address opens that span, and
 * `?conversation=…` the picker at that start of an id: links share.
 */
function spanFromAddress() {
  const params = new URLSearchParams(location.search);
  if (params.get("conversation")) $("#filters").conversation.value = params.get("conversation");
  const since = Date.parse(params.get("since"));
  if (Number.isNaN(since)) return;
  const form = $("#span");
  form.preset.value = "custom";
  form.since.value = new Date(since).toISOString().slice(0, 19);
  const until = Date.parse(params.get("until"));
  if (!Number.isNaN(until)) form.until.value = new Date(until).toISOString().slice(0, 19);
  document.body.classList.add("custom-span");
}

async function start() {
  $("#key input").value = key();
  spanFromAddress();
  $("#key").addEventListener("submit", (event) => {
    event.preventDefault();
    setKey($("#key input").value.trim());
    route();
  });
  $("#span").addEventListener("change", () => {
    document.body.classList.toggle("custom-span", $("#span").preset.value === "custom");
    history.cursors = [];
    history.current = null;
    route();
  });
  $("#filters").addEventListener("change", (event) => {
    if (event.target.name === "conversation") return;
    history.cursors = [];
    reloadHistory(null);
  });
  $("#filters").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = $("#filters").conversation.value.trim();
    if (id) location.hash = `#/conversations/${encodeURIComponent(id)}`;
  });
  $("#older").addEventListener("click", () => {
    history.cursors.push(history.current);
    reloadHistory(history.next);
  });
  $("#newer").addEventListener("click", () => reloadHistory(history.cursors.pop() ?? null));
  window.addEventListener("hashchange", route);

  // The trigger names come from the API's own description, so the filter
  // and the colours follow the service's version.
  try {
    const spec = await get("/openapi.json");
    const triggers = spec.components.schemas.Trigger.enum;
    triggerColours = colours(triggers);
    $("#filters").trigger.append(...triggers.map((t) => new Option(t, t)));
  } catch (error) {
    report(error);
  }
  await route();
}

start();
