#!/usr/bin/env python3
"""The layout's ratchet, run by .ci/run: fails when bench/layout/measure.py
finds an import loop (between modules, or between folders at any depth), an
import tests/layers.rs forbids (a re-export counts), or `http` reaching the
store, or an unwrap()/expect() outside tests other than a static regex's,
or a claim's stamp compared with its window outside store/lease.rs, or a
second module that gives claims back (issue 40).
Each was 0 when this check was written (issues 37, 39); a later change that
makes one of them more than 0 fails CI, whatever else it does. And the counts
that are not 0 yet (files over 300 lines, functions over 80, the lines of
`policy/`) may not rise above bench/layout/baseline.json (issue 40): lower
the baseline in the commit that lowers a count.

    python3 bench/layout/check.py
"""
import json
import re
import subprocess
import sys
from pathlib import Path

LIMITS = {
    r"import loops between modules: (\d+)": 0,
    r"import loops between folders at depth \d+: (\d+)": 0,
    r"forbidden imports \(tests/layers\.rs\): (\d+)": 0,
    r"http -> store imports: (\d+)": 0,
    # Issue 40 item 3: every claim's stamp, holder and give-back in store/lease.rs.
    r"claims taken over after a window \(SQL sites outside a lease module\): (\d+)": 0,
    r"claim shapes \(modules with a Drop that gives a claim back, or a give-back loop\): (\d+)": 1,
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
    if re.match(r"(import loops|forbidden imports|http -> store|claim)", line):
        print(f"layout: {line}")
baseline = json.loads(Path("bench/layout/baseline.json").read_text())
for name, ceiling in baseline.items():
    if name == "_":
        continue
    found = re.search(rf"^{re.escape(name)}: (\d+)", report, re.MULTILINE)
    if not found:
        worse.append(f"measure.py no longer reports '{name}'")
        continue
    print(f"layout: {name}: {found.group(1)} (baseline {ceiling})")
    if int(found.group(1)) > ceiling:
        worse.append(f"{name}: {found.group(1)}, above the baseline's {ceiling}")
# Panics on a request path: every unwrap()/expect() in src outside its tests
# is a static pattern's `.expect("a valid pattern")` (a literal, or one built
# from constants: no input reaches it). Any other is one more way for bad
# input to become a 500; it fails here (0 when this was written, issue 39).
panicking, patterns = [], 0
for path in sorted(Path("src").rglob("*.rs")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip().startswith("#[cfg(test)]"):
            break
        if line.strip().startswith("//"):
            continue
        patterns += line.count('.expect("a valid pattern")')
        rest = line.replace('.expect("a valid pattern")', "")
        if re.search(r"\.unwrap\(\)|\.expect\(", rest):
            panicking.append(f"{path}:{number}: {line.strip()}")
print(f"layout: unwrap()/expect() outside tests but static patterns: {len(panicking)} ({patterns} static patterns)")
if panicking:
    worse.append("unwrap()/expect() outside tests, where bad input could reach it:\n    " + "\n    ".join(panicking))
if worse:
    print("layout ratchet failed:\n  " + "\n  ".join(worse))
    print(report)
    sys.exit(1)
