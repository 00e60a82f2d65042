#!/usr/bin/env python3
"""The layout's ratchet, run by .ci/run: fails when bench/layout/measure.py
finds an import loop (between modules, or between folders at any depth), an
import tests/layers.rs forbids (a re-export counts), or `http` reaching the
store. Each was 0 when this check was written (issue 37); a later change that
makes one of them more than 0 fails CI, whatever else it does.

    python3 bench/layout/check.py
"""
import re
import subprocess
import sys

LIMITS = {
    r"import loops between modules: (\d+)": 0,
    r"import loops between folders at depth \d+: (\d+)": 0,
    r"forbidden imports \(tests/layers\.rs\): (\d+)": 0,
    r"http -> store imports: (\d+)": 0,
}

report = subprocess.run(
    [sys.executable, "bench/layout/measure.py"], check=True, capture_output=True, text=True
).stdout
worse = []
for pattern, limit in LIMITS.items():
    found = [int(n) for n in re.findall(pattern, report)]
    if not found:
        worse.append(f"measure.py no longer reports /{pattern}/")
    for n in found:
        if n > limit:
            worse.append(f"/{pattern}/ found {n}, at most {limit}")
for line in report.splitlines():
    if re.match(r"(import loops|forbidden imports|http -> store)", line):
        print(f"layout: {line}")
if worse:
    print("layout ratchet failed:\n  " + "\n  ".join(worse))
    print(report)
    sys.exit(1)
