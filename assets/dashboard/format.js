// How numbers and times read on the page. Every value shown also sits in a
// data-value attribute, exactly as the API gave it.

const integers = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimals = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

export function count(n) {
  return n === null || n === undefined ? "–" : integers.format(n);
}

/** US dollars: cents from a dollar up, four significant digits below it. */
export function dollars(n) {
  if (n === null || n === undefined) return "–";
  const digits = Math.abs(n) >= 1 || n === 0 ? { minimumFractionDigits: 2, maximumFractionDigits: 2 } : { maximumSignificantDigits: 4 };
  return new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", ...digits }).format(n);
}

export function decimal(n) {
  return n === null || n === undefined ? "–" : decimals.format(n);
}

/** "2026-11-30 08:47:13" in UTC. */
export function time(iso) {
  if (!iso) return "–";
  return iso.replace("T", " ").replace(/\.\d+/, "").replace("Z", "");
}

/** Sets `element`'s text and keeps the raw value beside it. */
export function show(element, text, value = text) {
  element.textContent = text;
  element.dataset.value = value ?? "";
}

/** A new element with text: never HTML, for everything here is caller data. */
export function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined && text !== null) made.textContent = text;
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

export function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) tr.append(cell instanceof Node ? wrap(cell) : element("td", cell));
  return tr;
}

function wrap(node) {
  const td = document.createElement("td");
  td.append(node);
  return td;
}
