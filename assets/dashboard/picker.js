// The conversation picker: the tenant's conversations newest first, narrowed
// to those whose id starts with what is typed (GET /conversations?prefix=…),
// so an operator opens one without its whole id.

import { conversationPath, get } from "./api.js";
import { count, element, time } from "./format.js";

const SHOWN = 10;
/** Typing pauses this long before the list is asked for again. */
const PAUSE_MS = 150;

export class Picker {
  constructor(input, list) {
    this.input = input;
    this.list = list;
    this.timer = null;
    input.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.load().catch((error) => this.failed(error)), PAUSE_MS);
    });
  }

  /** Says why the list could not be read, in its place. */
  failed(error) {
    this.list.replaceChildren(element("li", `The conversations could not be listed: ${error.message}`, { class: "bad" }));
  }

  async load() {
    const prefix = this.input.value.trim();
    const page = await get("/conversations", { prefix, limit: SHOWN });
    // A newer query is on its way: this answer is stale.
    if (this.input.value.trim() !== prefix) return;
    this.list.dataset.prefix = prefix;
    this.list.replaceChildren(
      ...page.conversations.map((c) => {
        const item = element("li");
        item.dataset.conversation = c.conversation_id;
        const lineage = c.successor_id ? " · rolled over" : c.predecessor_id ? " · continues another" : "";
        item.append(
          element("a", c.conversation_id, { href: `#${conversationPath(c.conversation_id)}` }),
          element("span", ` created ${time(c.created_at)} · ${count(c.turn_count)} turns · ${count(c.compactions)} compactions${lineage}`, { class: "hint" }),
        );
        return item;
      }),
    );
    if (!page.conversations.length) {
      this.list.append(element("li", prefix ? `No conversation's id starts with “${prefix}”.` : "No conversations yet.", { class: "hint" }));
    } else if (page.truncated) {
      this.list.append(element("li", `The newest ${SHOWN}; type more of the id for others.`, { class: "hint" }));
    }
  }
}
