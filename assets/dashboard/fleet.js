// The fleet: totals and per-trigger numbers (/stats), compactions over time
// (/stats/series) and the paged history (/compactions).

import { get } from "./api.js";
import { stackedBars } from "./chart.js";
import { count, decimal, dollars, element, row, show, time } from "./format.js";

const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#65a30d", "#475569", "#ea580c", "#0d9488"];
const BUCKET_MS = { minute: 60e3, hour: 3600e3, day: 86400e3 };

/** The bucket that draws `span` in at most ~400 bars. */
export function bucketFor(sinceMs, untilMs) {
  const span = untilMs - sinceMs;
  if (span <= 400 * BUCKET_MS.minute) return "minute";
  if (span <= 400 * BUCKET_MS.hour) return "hour";
  return "day";
}

export function colours(triggers) {
  return new Map(triggers.map((trigger, i) => [trigger, PALETTE[i % PALETTE.length]]));
}

/** The first figure: whether the span's compactions paid for themselves. */
function showMoney(money) {
  const stat = (name) => document.querySelector(`[data-stat="${name}"]`);
  for (const field of ["net_usd", "saved_usd", "cost_usd", "cache_rewrite_usd"]) show(stat(field), dollars(money[field]), money[field]);
  for (const field of ["saved_tokens", "saved_calls"]) show(stat(field), count(money[field]), money[field]);
  const lead = stat("net_usd").parentElement;
  lead.classList.toggle("paid", money.net_usd !== null && money.net_usd > 0);
  lead.classList.toggle("lost", money.net_usd !== null && money.net_usd < 0);
  const unpriced = money.cost_usd === null
    ? "no prices set (COMPACTD_PRICES)"
    : `${count(money.unpriced_calls)} calls, ${count(money.unpriced_summaries)} summaries`;
  show(stat("unpriced"), unpriced, money.unpriced_calls + money.unpriced_summaries);
}

export async function loadStats(span) {
  const stats = await get("/stats", { since: span.since, until: span.until });
  showMoney(stats.money);
  const sum = (field) => stats.triggers.reduce((total, t) => total + t[field], 0);
  for (const field of ["count", "successes", "failures", "tokens_saved"]) {
    show(document.querySelector(`[data-stat="${field}"]`), count(sum(field)), sum(field));
  }
  for (const field of ["rollovers", "declined_rollovers"]) {
    show(document.querySelector(`[data-stat="${field}"]`), count(stats[field]), stats[field]);
  }
  const prepared = stats.preparation;
  const stat = (name) => document.querySelector(`[data-stat="${name}"]`);
  show(stat("prepared_compactions"), count(prepared.prepared_compactions), prepared.prepared_compactions);
  show(stat("preparations_used"), count(prepared.used), prepared.used);
  show(stat("preparations_wasted"), count(prepared.wasted), prepared.wasted);
  const wastedRate = prepared.wasted_rate === null ? null : prepared.wasted_rate * 100;
  show(stat("preparations_wasted_rate"), decimal(wastedRate), prepared.wasted_rate);
  const preparingTokens = prepared.upstream_input_tokens + prepared.upstream_output_tokens;
  show(stat("preparation_tokens"), count(preparingTokens), preparingTokens);
  const reasons = prepared.wasted_by_reason.map((r) => `${r.reason} ${count(r.count)}`).join(", ");
  show(stat("preparations_wasted_by_reason"), reasons || "none", reasons);
  document.querySelector("#triggers tbody").replaceChildren(
    ...stats.triggers.map((t) => {
      const tr = row([t.trigger, count(t.count), count(t.successes), count(t.failures), decimal(t.mean_percent_saved), decimal(t.p50_duration_ms), decimal(t.p95_duration_ms), count(t.tokens_saved), dollars(t.money.cost_usd), dollars(t.money.saved_usd), dollars(t.money.net_usd)]);
      tr.dataset.trigger = t.trigger;
      return tr;
    }),
  );
  document.querySelector("#decisions tbody").replaceChildren(
    ...stats.decisions.map((d) => {
      const tr = row([d.decision, count(d.count)]);
      tr.dataset.decision = d.decision;
      return tr;
    }),
  );
  if (!stats.decisions.length) document.querySelector("#decisions tbody").append(row([element("em", "none logged")]));
  document.querySelector("#keep-rates tbody").replaceChildren(
    ...stats.keep.map((k) => {
      const rate = k.kept_rate === null ? null : k.kept_rate * 100;
      const tr = row([k.kind, count(k.checked), count(k.present), count(k.appended), count(k.parked), decimal(rate)]);
      tr.dataset.kind = k.kind;
      return tr;
    }),
  );
  if (!stats.keep.length) document.querySelector("#keep-rates tbody").append(row([element("em", "no summaries in the span")]));
  return stats;
}

export async function loadSeries(span, triggerColours) {
  const bucket = bucketFor(Date.parse(span.since), Date.parse(span.until));
  const series = await get("/stats/series", { bucket, since: span.since, until: span.until });
  const width = BUCKET_MS[series.bucket];
  const first = Date.parse(series.since);
  const buckets = Array.from({ length: series.buckets }, (_, i) => first + i * width);
  const index = (point) => Math.round((Date.parse(point.start) - first) / width);
  const values = (pick) => {
    const out = new Map();
    for (const p of series.points) {
      if (!out.has(p.trigger)) out.set(p.trigger, new Array(buckets.length).fill(0));
      out.get(p.trigger)[index(p)] += pick(p);
    }
    return out;
  };
  const byTrigger = values((p) => p.count);
  stackedBars(document.getElementById("series-chart"), {
    buckets,
    width,
    unit: "compactions",
    series: [...byTrigger].map(([name, v]) => ({ name, values: v, color: triggerColours.get(name) || "#64748b" })),
  });
  const failed = new Array(buckets.length).fill(0);
  const saved = new Array(buckets.length).fill(0);
  for (const p of series.points) {
    failed[index(p)] += p.failures;
    saved[index(p)] += p.tokens_saved;
  }
  stackedBars(document.getElementById("failures-chart"), {
    buckets,
    width,
    unit: "failed compactions",
    height: 110,
    series: [{ name: "failed compactions", values: failed, color: "#dc2626" }],
  });
  stackedBars(document.getElementById("tokens-chart"), {
    buckets,
    width,
    unit: "tokens saved",
    height: 130,
    series: [{ name: "tokens saved", values: saved, color: "#16a34a" }],
  });
  const truncated = series.truncated ? `; the span is long: its latest ${count(series.buckets)} ${series.bucket}s only` : "";
  document.getElementById("bucket").textContent = `per ${series.bucket}, by trigger${truncated}`;
}

/** The history table, one page at a time; `cursors` holds the pages behind. */
export class History {
  constructor() {
    this.cursors = [];
  }

  async load(span, filters, cursor = null) {
    const page = await get("/compactions", { ...filters, since: span.since, until: span.until, cursor, limit: 50 });
    this.current = cursor;
    this.next = page.next_cursor;
    document.querySelector("#history tbody").replaceChildren(...page.compactions.map((c) => this.row(c)));
    if (!page.compactions.length) {
      document.querySelector("#history tbody").append(row([element("em", "no compactions match")]));
    }
    document.getElementById("older").disabled = !this.next;
    document.getElementById("newer").disabled = !this.cursors.length;
    document.getElementById("page").textContent = `page ${this.cursors.length + 1}`;
  }

  row(c) {
    const link = element("a", c.conversation_id, { href: `#/conversations/${encodeURIComponent(c.conversation_id)}` });
    const outcome = c.success ? element("span", "ok", { class: "ok" }) : element("span", "failed", { class: "bad", title: c.error || "" });
    const writer = c.model ? `${c.summarizer} (${c.model})` : c.harness ? `${c.summarizer} (${c.harness})` : c.summarizer;
    const tr = row([time(c.at), link, c.trigger, c.prepared ? `${writer}, prepared ahead` : writer, `${count(c.tokens_before)} → ${count(c.tokens_after)}`, `${c.percent_saved}%`, count(c.duration_ms), outcome]);
    tr.dataset.id = c.id;
    return tr;
  }
}
