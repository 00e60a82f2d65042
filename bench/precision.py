#!/usr/bin/env python3
"""Deterministic proxies for a summary's usefulness (issue 20; SPEC §4
*Where things stand* and *Precision*), read off `compactd replay --json`
reports without any model:

- junk items: what the keep guard appended that is a fragment rather than
  an item (a command with a heredoc opener, unbalanced quotes, a trailing
  `&&` or `|`, `2>&1` or `| head -N`; a file with git pathspec magic or no
  path shape; a URL with `:line:col` or a fragment; a rule that is a table
  row, a log line or an error);
- the share of tiers 6–7 ("Also named by the agent", "Seen in tool output
  and mentioned again") in the summary, in characters;
- garbled extractive lines: a conclusion that starts inside a file name or
  a version (`→ rs;`, `→ md)?`, `→ 1 and`); and, apart, lines whose first
  sentence was longer than its limit and was cut at a clause boundary;
- the latest request where things stand, against hand labels
  (bench/precision_labels.json: for a session file and a compaction point,
  how the request a person would pick begins).

    bench/precision.py REPORT.json...
"""
import json
import os
import re
import sys

LABELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "precision_labels.json")

JUNK_COMMAND = re.compile(r"<<-?\s*['\"]?[A-Za-z_]\w*|2>&1|\|\s*(head|tail)\b|(&&|\|\||\||\\)\s*$")
JUNK_PATH = re.compile(r"^:\(|^:[/!]|2>&1|^\W*$")
JUNK_URL = re.compile(r"/[^/]*:\d+(:\d+)?$|#")
PASTED_RULE = re.compile(r"^\s*\||^\s*(\[?\d{4}-\d\d-\d\d|[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:\d\d|\w+(Error|Exception):|error[:\[]|npm ERR!)")
GARBLED = re.compile(r"→ (?:(?:rs|md|go|js|ts|tsx|py|json|toml|ya?ml|exs?|txt|html|css|sh|rb|java|kt|sql|lock|cfg|ini)(?:[);,:?!.]|\s|$)|\d+\b(?! ?(?:tests?|files?|ms|s|of|out)\b)|[)\]])")


def unbalanced(command):
    quote = None
    for c in command:
        if quote and c == quote:
            quote = None
        elif not quote and c in "'\"":
            quote = c
    return quote is not None


def section(summary, heading):
    at = summary.find(heading + "\n")
    if at < 0:
        return ""
    return summary[at:].split("\n\n")[0]


def kept_lines(summary):
    return section(summary, "Kept word for word:").splitlines()[1:]


def items_of(line):
    label, _, rest = line.partition(": ")
    if label.startswith("- Files changed (under "):  # named from their common folder
        label = "- Files changed"
    separator = "; " if label in ("- Commands", "- Also named by the agent", "- Seen in tool output and mentioned again") else ", "
    items = []
    for piece in rest.split(separator):
        # A command may hold the separator itself, inside its quotes.
        if items and unbalanced(items[-1]):
            items[-1] += separator + piece
        elif piece:
            items.append(piece)
    return label, items


def looks_like_command(item):
    return " " in item and not item.startswith(("/", "~", "."))


def junk(summary):
    found = []
    for line in kept_lines(summary):
        label, items = items_of(line)
        if label == "- Rule":
            if PASTED_RULE.search(line[len("- Rule: "):]):
                found.append(("rule", line[:80]))
            continue
        for item in items:
            if label in ("- Paths", "- Files changed") and JUNK_PATH.search(item):
                found.append(("path", item))
            elif label == "- URLs" and JUNK_URL.search(item.split("://", 1)[-1]):
                found.append(("url", item))
            elif (label == "- Commands" or looks_like_command(item)) and (JUNK_COMMAND.search(item) or unbalanced(item)):
                found.append(("command", item))
            elif item.startswith("http") and JUNK_URL.search(item.split("://", 1)[-1]):
                found.append(("url", item))
    return found


def tier_share(summary, budget):
    """Tiers 6-7's share of the budget, at about four characters a token."""
    lines = kept_lines(summary)
    lower = sum(len(line) for line in lines if line.startswith(("- Also named by the agent:", "- Seen in tool output")))
    return lower / 4 / max(budget, 1)


def narrative(summary):
    """The summary before where things stand and what the guard appended."""
    for heading in ("\n\nWhere things stand:\n", "\n\nKept word for word:\n"):
        at = summary.find(heading)
        if at >= 0:
            summary = summary[:at]
    return summary


EXTRACTIVE = "Written by compactd without a model"


def extractive_lines(summary):
    """The request lines of an extractive narrative (a model's text is its own)."""
    if not summary.startswith(EXTRACTIVE):
        return []
    return [line for line in narrative(summary).splitlines() if line.startswith("- ") and " → " in line]


def garbled(summary):
    return [line[:120] for line in extractive_lines(summary) if GARBLED.match("→ " + line.split(" → ", 1)[1])]


def clipped(summary):
    return [line[:120] for line in extractive_lines(summary) if "…" in line]


def latest_request(summary):
    for line in section(summary, "Where things stand:").splitlines():
        if line.startswith("- Latest request: "):
            return line[len("- Latest request: "):]
    for line in kept_lines(summary):
        if line.startswith("- Latest request: "):
            return line[len("- Latest request: "):]
    return None


def points(report):
    """(label, summary) for each harness compaction point and the final summary."""
    for n, h in enumerate(report.get("harness", [])):
        yield f"harness point {n + 1}", h.get("ours_text", "")
    yield "final", report.get("final_summary", "")


def main():
    labels = json.load(open(LABELS)) if os.path.exists(LABELS) else {}
    totals = {"summaries": 0, "junk": 0, "garbled": 0, "clipped": 0, "labelled": 0, "right": 0, "share": []}
    for path in sys.argv[1:]:
        reports = json.load(open(path))
        print(f"## {os.path.basename(path)}")
        for report in reports:
            name = os.path.basename(report["file"])
            for point, summary in points(report):
                if not summary:
                    continue
                found, bad, share = junk(summary), garbled(summary), tier_share(summary, report.get("budget", 4000))
                totals["summaries"] += 1
                totals["junk"] += len(found)
                totals["garbled"] += len(bad)
                totals["clipped"] += len(clipped(summary))
                totals["share"].append(share)
                verdict = ""
                label = labels.get(name, {}).get(point)
                if label is not None:
                    request = latest_request(summary) or ""
                    right = request.startswith(label)
                    totals["labelled"] += 1
                    totals["right"] += int(right)
                    verdict = f"; latest request {'right' if right else 'WRONG: ' + request[:60]!r}"
                print(f"{name[:48]:48} {point:16} junk {len(found):3}  tiers 6-7 {100 * share:4.1f}% of the budget  garbled {len(bad):2}{verdict}")
                for kind, item in found[:5]:
                    print(f"    junk {kind}: {item[:100]}")
                for line in bad[:3]:
                    print(f"    garbled: {line}")
        print()
    shares = totals["share"]
    print(
        f"all: {totals['summaries']} summaries, {totals['junk']} junk items, {totals['garbled']} garbled lines "
        f"({totals['clipped']} cut at a clause boundary), "
        f"tiers 6-7 at most {100 * max(shares or [0]):.1f}% (mean {100 * sum(shares) / max(len(shares), 1):.1f}%), "
        f"latest request right in {totals['right']} of {totals['labelled']} labelled"
    )


if __name__ == "__main__":
    main()
