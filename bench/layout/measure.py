#!/usr/bin/env python3
"""How the code is laid out, in figures: files over 300 lines, functions over
80 lines, `pub` items, import loops between modules (and between folders, at
every depth), imports the layer rules forbid, `http` reaching the store,
claim shapes, and the sites that give a claim back.

    python3 bench/layout/measure.py [SRC]     (default: src)

An import loop is a set of modules that import each other, directly or
through others (a strongly connected component of the `use` graph, read
from `use crate::…`, `use super::…`, `use self::…`, `use child::…` lines and
`crate::…` paths written inline). A name a folder's `mod.rs` re-exports is
followed to the module that defines it. At depth d every module is taken as
its first d path segments, so `app::summarize::write` counts as
`app::summarize` at depth 2 and as `app` at depth 1.

The layer rules are read from `tests/layers.rs` (the test that enforces
them), so the script and the test cannot disagree.
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


def uses(text, only_pub=False):
    # `use` statements, possibly spanning lines, with one level of braces.
    for m in re.finditer(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text, re.M):
        if m.group(1) or not only_pub:
            yield re.sub(r"\s+", "", m.group(2))


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


def without_tests(text):
    # Test modules import their parent (`use super::*`): not a loop.
    return re.split(r"#\[cfg\(test\)\]", text)[0]


def absolute(mod, path, parts):
    """`parts` of a path written in module `mod` (file `path`), from the crate root."""
    is_dir_mod = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
    if parts[0] == "crate":
        return tuple(parts[1:])
    if parts[0] == "self":
        return tuple(mod) + tuple(parts[1:])
    if parts[0] == "super":
        base = list(mod)
        rest = parts[:]
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
        return tuple(base) + tuple(rest)
    if tuple(mod) + (parts[0],) in modules:
        # `use child::…` (2018 paths): a module declared here.
        return tuple(mod) + tuple(parts)
    return None


def code_of(path):
    lines = without_tests(open(path).read()).splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//"))


# What each module re-exports (`pub use`), so re-exports can be followed:
# (module, name) -> the path it names.
reexports = {}
for mod, path in modules.items():
    for stmt in uses(code_of(path), only_pub=True):
        for item in expand(stmt):
            parts = item.split("::")
            if parts[-1] == "self":
                parts = parts[:-1]
            target = absolute(mod, path, parts)
            if target is not None and target[:-1] != tuple(mod):
                reexports[(tuple(mod), parts[-1])] = target


def resolve(target, seen=0):
    """The module `target` (a path from the root) lives in, re-exports followed."""
    best = None
    for i in range(1, len(target) + 1):
        if target[:i] in modules:
            best = target[:i]
    if best is None or seen > 8:
        return best
    rest = target[len(best):]
    if rest and (best, rest[0]) in reexports:
        deeper = resolve(reexports[(best, rest[0])] + rest[1:], seen + 1)
        if deeper is not None:
            return deeper
    return best


def imports(mod, path):
    """Every module `mod` names, by `use` or by an inline `crate::` path."""
    text = code_of(path)
    for stmt in uses(text):
        for item in expand(stmt):
            target = absolute(mod, path, item.split("::"))
            if target is not None:
                yield target
    without_uses = re.sub(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", "", text, flags=re.M)
    # `pub(in crate::x)` names who may see an item, not what it uses.
    without_uses = re.sub(r"pub\(in\s+[\w:]+\)", "pub", without_uses)
    for m in re.finditer(r"(?<![\w:])((?:crate|super)(?:::\w+)+)", without_uses):
        target = absolute(mod, path, m.group(1).split("::"))
        if target is not None:
            yield target


edges = {m: set() for m in modules}
for mod, path in modules.items():
    for target in imports(mod, path):
        found = resolve(target)
        if found is not None and found != mod and found != ():
            edges[mod].add(found)

def loops(graph):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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

    for v in list(graph):
        if v not in index:
            visit(v)
    return sccs


def at_depth(depth):
    graph = {}
    for v, ws in edges.items():
        a = v[:depth]
        graph.setdefault(a, set())
        for w in ws:
            b = w[:depth]
            graph.setdefault(b, set())
            # A module and the folder it lives in are one at this depth.
            if a != b and a[: len(b)] != b and b[: len(a)] != a:
                graph[a].add(b)
    return graph


sys.setrecursionlimit(10000)
sccs = loops(edges)
depth_loops = {d: loops(at_depth(d)) for d in range(1, max(len(m) for m in modules) + 1)}


def functions_over(limit):
    """Functions (outside tests) longer than `limit` lines, braces counted."""
    found = []
    for f in files:
        lines = without_tests(open(f).read()).splitlines()
        i = 0
        while i < len(lines):
            m = re.match(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)", lines[i])
            if not m:
                i += 1
                continue
            depth, opened, j = 0, False, i
            while j < len(lines):
                code = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'|//.*', "", lines[j])
                depth += code.count("{") - code.count("}")
                opened = opened or "{" in code
                if (opened and depth <= 0) or (not opened and code.rstrip().endswith(";")):
                    break
                j += 1
            if j - i + 1 > limit:
                found.append((j - i + 1, f"{os.path.relpath(f, SRC)}:{i + 1} {m.group(1)}"))
            i += 1
    return sorted(found, reverse=True)


def layer_rules():
    """(layer, the layers it may import) from tests/layers.rs's table."""
    test = os.path.join(os.path.dirname(os.path.abspath(SRC)), "tests", "layers.rs")
    if not os.path.exists(test):
        return None
    rules = {}
    for m in re.finditer(r'\(\s*"(\w+)",\s*&\[([^\]]*)\],?\s*\)', open(test).read()):
        rules[m.group(1)] = re.findall(r'"(\w+)"', m.group(2))
    return rules


rules = layer_rules()
forbidden = []
if rules is not None:
    for v, ws in sorted(edges.items()):
        for w in sorted(ws):
            if v and w and v[0] != w[0] and v[0] not in ("lib", "main") and w[0] not in rules.get(v[0], []):
                forbidden.append(f"{'::'.join(v)} -> {'::'.join(w)}")
http_to_store = sorted(
    f"{'::'.join(v)} -> {'::'.join(w)}" for v, ws in edges.items() for w in ws if v[0] == "http" and w[0] == "store"
)
# A claim's stamp compared with a window by hand, outside store/lease.rs:
# a column named for a claim (`compacting_since`, `claimed_at`, `holder`...).
# An idle conversation's `updated_at` (retention) and a process's `seen_at`
# (liveness) are ages, not claims.
claim_sql = sorted(
    f"{os.path.relpath(f, SRC)}:{i}"
    for f in files
    for i, line in enumerate(open(f), 1)
    if re.search(r"\b\w*(claim|compacting|lease|holder|held)\w*\s*<=?\s*now\(\)\s*-\s*\$\d+::interval", line)
    and "lease" not in f
)

# A file's length without its unit tests (issue 40 counts it so): the code a
# reader has to hold, not the cases that pin it.
def code_lines(f):
    return without_tests(open(f).read()).count("\n")


long_files = sorted(((code_lines(f), f) for f in files), reverse=True)
long_files = [(n, f) for n, f in long_files if n > 300]
policy_lines = sum(code_lines(f) for f in files if os.path.relpath(f, SRC).startswith("policy" + os.sep))
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
# A claim's shape: what gives it back when its holder goes away (a type
# with a Drop that frees it, or a loop retrying a give-back).
claim_shapes = sorted(
    f"{os.path.relpath(f, SRC)}:{i}"
    for f in files
    for i, line in enumerate(open(f), 1)
    if re.search(r"^\s*(pub(\(\w+\))?\s+)?fn\s+(keep_giving_back|give_back(_unless_\w+)?)\b|^impl Drop for \w*(Claim|Guard|Lease|Held)", line)
)

print(f"files over 300 lines (without tests): {len(long_files)}")
for n, f in long_files:
    print(f"  {n:5} {os.path.relpath(f, SRC)}")
print(f"lines in policy/ (without tests): {policy_lines}")
print(f"`pub` items: {pub_items} (and {crate_pub} pub(crate)/pub(super))")
long_functions = functions_over(80)
print(f"functions over 80 lines: {len(long_functions)}")
for n, where in long_functions:
    print(f"  {n:5} {where}")
print(f"import loops between modules: {len(sccs)}")
for comp in sccs:
    print("  " + " <-> ".join("::".join(m) or "crate" for m in comp))
for depth, found in depth_loops.items():
    print(f"import loops between folders at depth {depth}: {len(found)}")
    for comp in found:
        print("  " + " <-> ".join("::".join(m) or "crate" for m in comp))
if rules is None:
    print("forbidden imports: ? (no tests/layers.rs)")
else:
    print(f"forbidden imports (tests/layers.rs): {len(forbidden)}")
    for line in forbidden:
        print(f"  {line}")
print(f"http -> store imports: {len(http_to_store)}")
for line in http_to_store:
    print(f"  {line}")
print(f"claims taken over after a window (SQL sites outside a lease module): {len(claim_sql)}")
for site in claim_sql:
    print(f"  {site}")
shape_files = sorted({site.split(":")[0] for site in claim_shapes})
print(f"claim shapes (modules with a Drop that gives a claim back, or a give-back loop): {len(shape_files)}")
for site in claim_shapes:
    print(f"  {site}")
print(f"lines giving a compaction's claim back: {len(give_back)}")
for site in give_back:
    print(f"  {site}")
