#!/usr/bin/env python3
"""How the code is laid out, in figures: files over 300 lines, `pub` items,
import loops between modules, and the sites that give a claim back.

    python3 bench/layout/measure.py [SRC]     (default: src)

An import loop is a set of modules that import each other, directly or
through others (a strongly connected component of the `use` graph, read
from `use crate::…`, `use super::…` and `use self::…` lines).
"""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "src"


def module_of(path):
    rel = os.path.relpath(path, SRC)[:-3]
    parts = rel.split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


files = []
for root, _, names in os.walk(SRC):
    for name in names:
        if name.endswith(".rs"):
            files.append(os.path.join(root, name))
modules = {module_of(f): f for f in files}


def resolve(base, path):
    """The longest module prefix of `path` (a tuple), from `base`."""
    best = None
    for i in range(1, len(path) + 1):
        if path[:i] in modules:
            best = path[:i]
    return best


def uses(text):
    # `use` statements, possibly spanning lines, with one level of braces.
    for m in re.finditer(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text, re.M):
        yield re.sub(r"\s+", "", m.group(1))


def expand(stmt):
    m = re.match(r"^(.*?)::\{(.*)\}$", stmt)
    if not m:
        return [stmt]
    head, body = m.groups()
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    out.append(cur)
    result = []
    for item in out:
        if item:
            result.extend(expand(head + "::" + item))
    return result


edges = {m: set() for m in modules}
for mod, path in modules.items():
    text = open(path).read()
    # Test modules import their parent (`use super::*`): not a loop.
    text = re.split(r"#\[cfg\(test\)\]", text)[0]
    is_dir_mod = os.path.basename(path) in ("mod.rs", "lib.rs")
    for stmt in uses(text):
        for item in expand(stmt):
            parts = item.split("::")
            if parts[0] == "crate":
                target = tuple(parts[1:])
            elif parts[0] in ("super", "self"):
                base = list(mod) if is_dir_mod else list(mod[:-1])
                if parts[0] == "self":
                    base = list(mod)
                rest = parts[:]
                if rest[0] == "super" and is_dir_mod:
                    base = base[:-1]
                    rest = rest[1:]
                elif rest[0] == "super":
                    rest = rest[1:]
                else:
                    rest = rest[1:]
                while rest and rest[0] == "super":
                    base = base[:-1]
                    rest = rest[1:]
                target = tuple(base) + tuple(rest)
            else:
                continue
            found = resolve(mod, target)
            if found is not None and found != mod and found != ():
                edges[mod].add(found)

# Tarjan's strongly connected components.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in list(edges):
    if v not in index:
        visit(v)

long_files = sorted(((sum(1 for _ in open(f)), f) for f in files), reverse=True)
long_files = [(n, f) for n, f in long_files if n > 300]
pub_re = re.compile(r"^\s*pub (fn|async fn|struct|enum|const|static|type|trait|mod|use)\b")
pub_items = sum(1 for f in files for line in open(f) if pub_re.match(line))
crate_pub = sum(1 for f in files for line in open(f) if re.match(r"^\s*pub\((crate|super)\) ", line))
give_back = sorted(
    f"{os.path.relpath(f, SRC)}:{i}"
    for f in files
    for i, line in enumerate(open(f), 1)
    if re.search(r"claim.*\b(give_back|settle)\s*\(|give_back_unless_done\s*\(", line)
    and not line.strip().startswith("//")
    and not re.search(r"\bfn\s+\w+", line)
)

print(f"files over 300 lines: {len(long_files)}")
for n, f in long_files:
    print(f"  {n:5} {os.path.relpath(f, SRC)}")
print(f"`pub` items: {pub_items} (and {crate_pub} pub(crate)/pub(super))")
print(f"import loops: {len(sccs)}")
for comp in sccs:
    print("  " + " <-> ".join("::".join(m) or "crate" for m in comp))
print(f"lines giving a compaction's claim back: {len(give_back)}")
for site in give_back:
    print(f"  {site}")
