#!/usr/bin/env python3
"""Renders a Claude Code session JSONL, up to its harness's Nth compaction,
as plain text a person (or a probe writer) can read: every user message,
every assistant message, every tool call with its arguments and every tool
result (long ones clipped), in order.

    bench/probes/transcript.py SESSION.jsonl N > transcript.txt

N = 1 renders what came before the first compaction; N = 0 the whole file.
"""
import json
import sys

ARGS_CHARS = 2_000
RESULT_CHARS = 2_500


def clip(text, limit):
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[… {len(text) - limit} more characters]"


def text_of(content):
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def main():
    path, upto = sys.argv[1], int(sys.argv[2])
    boundaries = 0
    out = []
    for line in open(path, encoding="utf-8"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("isSidechain"):
            continue
        kind = record.get("type")
        if kind == "system" and record.get("subtype") == "compact_boundary":
            boundaries += 1
            if upto and boundaries >= upto:
                break
            out.append("\n=== the harness compacted here ===\n")
            continue
        message = record.get("message") or {}
        stamp = record.get("timestamp", "")
        if kind == "user":
            content = message.get("content")
            if record.get("isCompactSummary"):
                out.append(f"\n### [{stamp}] harness summary (written at an earlier compaction)\n{text_of(content)}")
                continue
            words = text_of(content)
            if words.strip():
                who = "user (harness/meta text)" if record.get("isMeta") else "user"
                out.append(f"\n### [{stamp}] {who}\n{words}")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    failed = " (error)" if block.get("is_error") else ""
                    body = block.get("content")
                    body = text_of(body) if isinstance(body, list) else (body or "")
                    out.append(f"--- tool result{failed}:\n{clip(body, RESULT_CHARS)}")
        elif kind == "assistant":
            for block in message.get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and block.get("text", "").strip():
                    out.append(f"\n### [{stamp}] assistant\n{block['text']}")
                elif block.get("type") == "tool_use":
                    arguments = json.dumps(block.get("input"), ensure_ascii=False)
                    out.append(f"--- tool call {block.get('name')}: {clip(arguments, ARGS_CHARS)}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
