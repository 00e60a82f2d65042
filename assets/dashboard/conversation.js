// One conversation: its state and lineage (/conversations/{id}) and its
// timeline from the event log (/conversations/{id}/events, paged).

import { conversationPath, get } from "./api.js";
import { timeline } from "./chart.js";
import { count, element, row, show, time } from "./format.js";

const PAGE = 1000;
/** How far the handoff chain is followed each way. */
const CHAIN = 10;
/** Events read before the page asks whether to read on. */
const FIRST_READ = 20 * PAGE;
/** An event whose time is this far from when the service wrote it carries the agent's own clock. */
const OWN_CLOCK_MS = 60e3;

function mark(event) {
  const p = event.payload || {};
  switch (event.kind) {
    case "compaction":
      return p.success
        ? { kind: "compaction", what: `compaction (${p.trigger})`, text: `${count(p.tokens_before)} → ${count(p.tokens_after)} tokens, ${p.summarizer}${p.prepared ? ", prepared ahead" : ""}` }
        : { kind: "failed", what: `failed compaction (${p.trigger})`, text: p.error || "" };
    case "decision":
      return { kind: "decision", what: `decision: ${p.decision}${p.trigger ? ` (${p.trigger})` : ""}`, text: p.reason || "" };
    case "handoff":
      return p.role === "predecessor"
        ? { kind: "handoff", what: "rolled over", text: `into ${p.successor_id}`, link: p.successor_id }
        : { kind: "handoff", what: "continues", text: `from ${p.predecessor_id ?? "an earlier conversation"}`, link: p.predecessor_id };
    case "rollover_declined":
      return { kind: "declined", what: "rollover declined", text: "" };
    default:
      return null;
  }
}

function link(id) {
  return element("a", id, { href: `#/conversations/${encodeURIComponent(id)}` });
}

export class Conversation {
  async open(id) {
    this.id = id;
    this.after = 0;
    this.points = [];
    this.marks = [];
    this.events = 0;
    // How many events carry the agent's own times, and how many the service's.
    this.clocks = { agent: 0, service: 0 };
    document.getElementById("conversation-id").textContent = id;
    const state = await get(conversationPath(id));
    this.state(state);
    await Promise.all([this.readEvents(FIRST_READ), this.chain(state), this.summaries(), this.keepSet()]);
  }

  /** The conversations this one continues and that continue it. */
  async chain(state) {
    const before = [];
    const after = [];
    let back = state.predecessor_id;
    while (back && before.length < CHAIN) {
      before.unshift(back);
      back = (await get(conversationPath(back)).catch(() => ({}))).predecessor_id;
    }
    let on = state.successor_id;
    while (on && after.length < CHAIN) {
      after.push(on);
      on = (await get(conversationPath(on)).catch(() => ({}))).successor_id;
    }
    const lineage = document.getElementById("lineage");
    lineage.replaceChildren();
    if (back || on) lineage.dataset.truncated = "true";
    if (back) lineage.append("… → ");
    for (const id of before) lineage.append(link(id), " → ");
    lineage.append(element("strong", state.conversation_id));
    for (const id of after) lineage.append(" → ", link(id));
    if (on) lineage.append(" → …");
    lineage.append(element("span", ` · created ${time(state.created_at)}`, { class: "hint" }));
  }

  /** Every compaction attempt, newest first, each with the summary it wrote. */
  async summaries() {
    const page = await get(`${conversationPath(this.id)}/compactions`, { limit: 100 });
    const list = document.getElementById("summaries");
    list.replaceChildren(
      ...page.compactions.map((c) => {
        const details = element("details");
        const outcome = c.success ? `${count(c.tokens_before)} → ${count(c.tokens_after)} tokens` : `failed: ${c.error ?? ""}`;
        const kept = c.keep ? ` · kept ${count(c.keep.present + c.keep.appended)} of ${count(c.keep.checked)}, ${count(c.keep.parked)} parked` : "";
        const ahead = c.prepared ? ` · prepared ahead (${count(c.prepared_age_ms / 1000)} s before)` : "";
        details.append(element("summary", `#${c.seq} · ${time(c.at)} · ${c.trigger} · ${c.summarizer}${ahead} · ${outcome}${kept}`));
        if (c.keep) {
          const table = element("table", null, { class: "keep-figures" });
          table.append(row(["kind", "checked", "present", "appended", "parked"].map((h) => element("th", h))));
          for (const [kind, f] of Object.entries(c.keep.by_kind)) {
            const tr = row([kind, count(f.checked), count(f.present), count(f.appended), count(f.parked)]);
            tr.dataset.keepKind = kind;
            table.append(tr);
          }
          details.append(table);
        }
        details.append(element("pre", c.summary ?? "(no summary)"));
        if (!c.success) details.className = "failed";
        return details;
      }),
    );
    if (!page.compactions.length) list.append(element("em", "No compactions yet."));
    if (page.next_before_seq) list.append(element("p", "Older attempts: GET /conversations/{id}/compactions?before_seq=" + page.next_before_seq, { class: "hint" }));
  }

  /** The conversation's keep set, in the order a summary takes it. */
  async keepSet() {
    const set = await get(`${conversationPath(this.id)}/keep`, { limit: 500 });
    document.querySelector("#keep-set tbody").replaceChildren(
      ...set.items.map((item) => {
        const seen = item.times_seen === 1 ? "once" : `${count(item.times_seen)} times`;
        const tr = row([item.tier ?? "–", item.kind, element("code", item.text), item.source, seen, item.in_summary ? "yes" : "no"]);
        tr.dataset.keepItem = item.kind;
        if (!item.in_summary) tr.className = "missing";
        return tr;
      }),
    );
    const more = set.truncated ? ` — the first ${count(set.items.length)}; GET /conversations/{id}/keep?limit=5000 lists more` : "";
    document.getElementById("keep-extent").textContent = `${count(set.total)} items${more}`;
  }

  state(state) {
    for (const field of ["used", "size", "compactions", "turn_count"]) {
      show(document.querySelector(`[data-state="${field}"]`), count(state[field]), state[field]);
    }
    const pending = state.pending_decision;
    show(document.querySelector('[data-state="pending"]'), pending ? pending.decision : "none");
    document.getElementById("summary").textContent = state.summary?.text ?? "No summary yet.";
  }

  /** Reads up to `budget` more events, then draws what it has. */
  async readEvents(budget) {
    let read = 0;
    while (this.after !== null && read < budget) {
      const page = await get(`${conversationPath(this.id)}/events`, { after: this.after, limit: PAGE });
      for (const event of page.events) {
        const times = { at: event.at, recorded_at: event.recorded_at };
        const point = event.kind === "usage" && event.payload.used !== undefined;
        const m = mark(event);
        // Only what is drawn decides the clock: a hook stores a session's
        // earlier turns late, in their own times, and turns are not drawn.
        if (point || m) {
          const own = Math.abs(Date.parse(event.at) - Date.parse(event.recorded_at)) > OWN_CLOCK_MS;
          this.clocks[own ? "agent" : "service"] += 1;
        }
        if (point) this.points.push({ ...times, used: event.payload.used, size: event.payload.size });
        if (m) this.marks.push({ ...m, ...times, seq: event.seq });
      }
      read += page.events.length;
      this.events += page.events.length;
      this.after = page.next_after;
    }
    this.draw();
  }

  /**
   * One clock for the whole timeline: the times the agent gave (a replay's
   * or a hook's transcript times) unless its events mix them with the
   * service's clock, then when the service wrote each.
   */
  clock() {
    return this.clocks.agent && this.clocks.service ? "recorded_at" : "at";
  }

  draw() {
    const clock = this.clock();
    const timed = (list) => list.map((item) => ({ ...item, t: Date.parse(item[clock]) }));
    timeline(document.getElementById("timeline-chart"), { points: timed(this.points).sort((a, b) => a.t - b.t), marks: timed(this.marks) });
    const extent = document.getElementById("timeline-extent");
    extent.dataset.clock = clock;
    const said =
      clock === "recorded_at"
        ? " · times as the service recorded them: this conversation's events mix the agent's own times with the service's clock"
        : this.clocks.agent
          ? " · times as the agent gave them"
          : "";
    extent.replaceChildren(`${count(this.events)} events read${said}`);
    if (this.after !== null) {
      const more = element("button", "read on");
      more.addEventListener("click", () => this.readEvents(FIRST_READ));
      extent.append(" · there are more: ", more);
    }
    document.querySelector("#marks tbody").replaceChildren(
      ...this.marks.map((m) => {
        const detail = m.link ? link(m.link) : m.text;
        const tr = row([String(m.seq), time(m[clock]), m.what, detail]);
        tr.className = m.kind;
        if (m.link) tr.title = m.text;
        return tr;
      }),
    );
  }
}
