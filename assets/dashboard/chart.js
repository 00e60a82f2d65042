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

function label(ms, spanMs) {
  const iso = new Date(ms).toISOString();
  return spanMs > 3 * 86400e3 ? iso.slice(5, 10) : spanMs > 86400e3 ? iso.slice(5, 16).replace("T", " ") : iso.slice(11, 16);
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
  const labels = 6;
  for (let i = 0; i <= labels; i++) {
    const t = xFrom + ((xTo - xFrom) * i) / labels;
    const text = svg("text", { x: x(t), y: height - 8, class: "axis", "text-anchor": i === 0 ? "start" : i === labels ? "end" : "middle" });
    text.textContent = label(t, xTo - xFrom);
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
  if (to === from) to = from + 60e3;
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
