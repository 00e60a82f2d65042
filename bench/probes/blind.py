#!/usr/bin/env python3
"""Sets up a blind grading round: for each session with probes, copies its
summaries under labels drawn at random (S1, S2, …) into ROUND/SESSION/, with
the probes beside them, and keeps which label is which system in
ROUND/key.json, which graders are told not to open.

    bench/probes/blind.py PROBES_DIR ROUND_DIR SYSTEM...

PROBES_DIR holds questions/SESSION.json and summaries/SESSION/SYSTEM.md.
"""
import json
import os
import random
import shutil
import sys

probes, round_dir, systems = sys.argv[1], sys.argv[2], sys.argv[3:]
rng = random.Random(os.path.basename(round_dir))
key = {}
for question_file in sorted(os.listdir(os.path.join(probes, "questions"))):
    session = question_file[: -len(".json")]
    folder = os.path.join(round_dir, session)
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(probes, "questions", question_file), os.path.join(folder, "probes.json"))
    order = list(systems)
    rng.shuffle(order)
    key[session] = {}
    for n, system in enumerate(order, 1):
        shutil.copy(os.path.join(probes, "summaries", session, system + ".md"), os.path.join(folder, f"S{n}.md"))
        key[session][f"S{n}"] = system
json.dump(key, open(os.path.join(round_dir, "key.json"), "w"), indent=1)
print(f"{len(key)} sessions, {len(systems)} summaries each, in {round_dir}")
