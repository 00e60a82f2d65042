#!/usr/bin/env python3
"""The probe scores of a graded round, by system and by probe type.

    bench/probes/tally.py ROUND_DIR [GRADES_NAME]

Reads ROUND/key.json and ROUND/SESSION/GRADES_NAME (default grades.json:
{"grades": [{"summary": "S1", "probe": "R1", "score": 0-5, ...}]}).
"""
import collections
import json
import os
import sys

round_dir = sys.argv[1]
name = sys.argv[2] if len(sys.argv) > 2 else "grades.json"
key = json.load(open(os.path.join(round_dir, "key.json")))
types = {"R": "recall", "A": "artifact", "C": "continuation", "D": "decision"}
by_system = collections.defaultdict(list)
by_type = collections.defaultdict(list)
by_session = collections.defaultdict(list)
for session, labels in key.items():
    path = os.path.join(round_dir, session, name)
    if not os.path.exists(path):
        print(f"{session}: not graded yet")
        continue
    for grade in json.load(open(path))["grades"]:
        system = labels[grade["summary"]]
        by_system[system].append(grade["score"])
        by_type[(system, types[grade["probe"][0]])].append(grade["score"])
        by_session[(system, session)].append(grade["score"])
mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
systems = sorted(by_system)
print("| system | all | " + " | ".join(types.values()) + " | probes |")
print("|---|---|" + "---|" * len(types) + "---|")
for system in systems:
    cells = [f"{mean(by_type[(system, t)]):.2f}" for t in types.values()]
    print(f"| {system} | **{mean(by_system[system]):.2f}** | " + " | ".join(cells) + f" | {len(by_system[system])} |")
print()
sessions = sorted({s for (_, s) in by_session})
print("| session | " + " | ".join(systems) + " |")
print("|---|" + "---|" * len(systems))
for session in sessions:
    print(f"| {session[:40]} | " + " | ".join(f"{mean(by_session[(s, session)]):.2f}" for s in systems) + " |")
