// Plain SVG charts: stacked bars over time, and a line with marks. Sized by
// a viewBox so they scale with the page.

const SVG = "http://www.w3.org/2000/svg";
const W = 1000;
const PAD = { left: 64, right: 12, top: 12, bottom: 28 };

function svg(tag, attributes = {}, title) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (title) {
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = title;
    made.append(tip);
  }
  return made;
}

/** Round steps for an axis up to `max`. */
function ticks(max, wanted = 4) {
  if (max <= 0) return [0];
  // Everything drawn here counts whole things: no step below one.
  const raw = Math.max(1, max / wanted);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  const out = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(v);
  return out;
}

function shortNumber(n) {
  if (n >= 1e9) return `${+(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return `${n}`;
}

/** Round steps for a time axis, from a second to two weeks; months past that. */
const TIME_STEPS = [
  1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 2 * 60e3, 5 * 60e3, 10 * 60e3, 15 * 60e3, 30 * 60e3,
  3600e3, 2 * 3600e3, 3 * 3600e3, 6 * 3600e3, 12 * 3600e3,
  86400e3, 2 * 86400e3, 7 * 86400e3, 14 * 86400e3,
];
const MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60, 120];
/** 1970-01-01 was a Thursday: weeks tick on Mondays. */
const MONDAY = 4 * 86400e3;

/** The first of each `months`-th month (UTC) from `from` to `to`. */
function monthTicks(from, to, months) {
  const start = new Date(from);
  let index = start.getUTCFullYear() * 12 + start.getUTCMonth();
  index = Math.ceil(index / months) * months;
  const ticks = [];
  for (;; index += months) {
    const t = Date.UTC(Math.floor(index / 12), index % 12, 1);
    if (t > to) return ticks;
    if (t >= from) ticks.push(t);
  }
}

/**
 * Ticks at round times between `from` and `to` (ms), at most `wanted`, each
 * with a label that tells it from its neighbours: seconds on a run of
 * minutes, hours on a day, dates on weeks, years on years (all UTC).
 */
export function timeTicks(from, to, wanted = 6) {
  const span = Math.max(1, to - from);
  let step = TIME_STEPS.find((s) => span / s <= wanted);
  let ticks = [];
  if (step === undefined) {
    const months = MONTH_STEPS.find((m) => span / (m * 30.4 * 86400e3) <= wanted) ?? 12 * Math.ceil(span / wanted / (365 * 86400e3));
    step = months * 30 * 86400e3;
    ticks = monthTicks(from, to, months);
  } else {
    const offset = step >= 7 * 86400e3 ? MONDAY : 0;
    for (let t = Math.ceil((from - offset) / step) * step + offset; t <= to; t += step) ticks.push(t);
  }
  const years = new Set(ticks.map((t) => new Date(t).getUTCFullYear())).size > 1;
  const days = new Set(ticks.map((t) => new Date(t).toISOString().slice(0, 10))).size > 1;
  const label = (t) => {
    const iso = new Date(t).toISOString();
    if (step >= 86400e3) return years ? iso.slice(0, 10) : iso.slice(5, 10);
    const clock = step < 60e3 ? iso.slice(11, 19) : iso.slice(11, 16);
    return days ? `${iso.slice(5, 10)} ${clock}` : clock;
  };
  return ticks.map((t) => ({ t, text: label(t) }));
}

function frame(height, yMax, xFrom, xTo) {
  const root = svg("svg", { viewBox: `0 0 ${W} ${height}`, role: "img" });
  const plotH = height - PAD.top - PAD.bottom;
  const plotW = W - PAD.left - PAD.right;
  const y = (v) => PAD.top + plotH - (yMax > 0 ? (v / yMax) * plotH : 0);
  const x = (t) => PAD.left + (xTo > xFrom ? ((t - xFrom) / (xTo - xFrom)) * plotW : 0);
  for (const v of ticks(yMax)) {
    root.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }));
    const text = svg("text", { x: PAD.left - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" });
    text.textContent = shortNumber(v);
    root.append(text);
  }
  for (const tick of timeTicks(xFrom, xTo)) {
    const at = x(tick.t);
    const anchor = at < PAD.left + 40 ? "start" : at > W - PAD.right - 40 ? "end" : "middle";
    const text = svg("text", { x: at, y: height - 8, class: "axis time", "text-anchor": anchor });
    text.textContent = tick.text;
    root.append(text);
  }
  return { root, x, y, plotW };
}

/**
 * Stacked bars: `buckets` are start times (ms) of `width` ms each; every
 * series has one value per bucket.
 */
export function stackedBars(figure, { buckets, width, series, unit, height = 220 }) {
  figure.replaceChildren();
  const totals = buckets.map((_, i) => series.reduce((sum, s) => sum + s.values[i], 0));
  const max = Math.max(1, ...totals);
  const from = buckets[0] ?? 0;
  const to = (buckets.at(-1) ?? 0) + width;
  const { root, x, y } = frame(height, ticks(max).at(-1), from, to);
  buckets.forEach((start, i) => {
    let base = 0;
    const left = x(start);
    const barW = Math.max(1, x(start + width) - left - 1);
    for (const s of series) {
      const v = s.values[i];
      if (!v) continue;
      const tip = `${new Date(start).toISOString().slice(0, 16).replace("T", " ")} · ${s.name}: ${v} ${unit}`;
      root.append(svg("rect", { x: left, y: y(base + v), width: barW, height: y(base) - y(base + v), fill: s.color }, tip));
      base += v;
    }
  });
  figure.append(root);
  const legend = document.createElement("figcaption");
  for (const s of series.filter((s) => s.values.some((v) => v > 0))) {
    const key = document.createElement("span");
    key.className = "key";
    key.style.setProperty("--colour", s.color);
    key.textContent = s.name;
    legend.append(key);
  }
  if (!totals.some((t) => t > 0)) legend.textContent = `no ${unit} in this span`;
  figure.append(legend);
}

/**
 * Context use over time: `points` {t, used, size} as a line, `marks`
 * {t, kind, text} as vertical rules.
 */
export function timeline(figure, { points, marks }) {
  figure.replaceChildren();
  const times = [...points.map((p) => p.t), ...marks.map((m) => m.t)];
  if (!times.length) {
    figure.textContent = "No events yet.";
    return;
  }
  let from = Math.min(...times);
  let to = Math.max(...times);
  // A run of seconds is drawn on a minute, so its ticks read apart.
  if (to - from < 60e3) {
    const middle = (from + to) / 2;
    from = middle - 30e3;
    to = middle + 30e3;
  }
  from -= (to - from) * 0.01;
  to += (to - from) * 0.01;
  const top = Math.max(1, ...points.map((p) => Math.max(p.used, p.size || 0)));
  const { root, x, y } = frame(300, ticks(top).at(-1), from, to);
  for (const m of marks) {
    root.append(svg("line", { x1: x(m.t), x2: x(m.t), y1: PAD.top, y2: y(0), class: `mark ${m.kind}` }, m.text));
  }
  const path = (key) =>
    points
      .filter((p) => p[key])
      .map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p[key]).toFixed(1)}`)
      .join("");
  root.append(svg("path", { d: path("size"), class: "size" }, "window size"));
  root.append(svg("path", { d: path("used"), class: "used" }, "tokens in use"));
  for (const p of points) {
    root.append(svg("circle", { cx: x(p.t), cy: y(p.used), r: 2.5, class: "used" }, `${new Date(p.t).toISOString()} · ${p.used} of ${p.size ?? "?"} tokens`));
  }
  figure.append(root);
}
