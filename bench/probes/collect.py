#!/usr/bin/env python3
"""Takes the summaries at each session's first harness compaction out of a
`compactd replay --json` report: compactd's as LABEL.md, the harness's own
as harness.md, one folder per session.

    bench/probes/collect.py REPORT.json LABEL OUT_DIR
"""
import json
import os
import sys

report, label, out = sys.argv[1], sys.argv[2], sys.argv[3]
for session in json.load(open(report)):
    if not session["harness"]:
        continue
    name = os.path.splitext(os.path.basename(session["file"]))[0]
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    first = session["harness"][0]
    with open(os.path.join(folder, f"{label}.md"), "w") as f:
        f.write(first["ours_text"])
    with open(os.path.join(folder, "harness.md"), "w") as f:
        f.write(first["theirs_text"])
    print(f"{name}: {label} {len(first['ours_text'])} characters, harness {len(first['theirs_text'])}")
