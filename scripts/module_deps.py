#!/usr/bin/env python3
"""Module dependency listing of a crate: which of its modules use which, and any cycles.

Usage: python3 scripts/module_deps.py crates/nilang-ir/src [crates/nilang-macros/src ...]

A module is a file (or a `dir/mod.rs`, or `x.rs` with submodules in `x/`); submodules count
as part of their top-level module; test-only modules and inline `mod tests` are left out, so the listing is about the top-level modules of the crate.
A dependency is a mention of `crate::m` (in a `use` or in a path) or, in a top-level module's
submodule, of `super::m` reaching a sibling top-level module. Prints the modules in layers
(each module uses only modules of lower layers) and, if there are any, the cycles; exits 1
when there is a cycle.
"""
import os
import re
import sys


def modules(src):
    """Top-level module name -> list of its files (lib.rs is the crate root, `lib`)."""
    mods = {}
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if name.endswith(".rs"):
            mods.setdefault(name[:-3], []).append(path)
        elif os.path.isdir(path):
            for root, _, files in os.walk(path):
                for f in sorted(files):
                    if f.endswith(".rs"):
                        mods.setdefault(name, []).append(os.path.join(root, f))
    return mods


def strip_comments(text):
    """The code of a file without comments and without its unit tests (an inline
    `#[cfg(test)] mod … { … }`, by convention at the end of the file)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(line.split("//")[0] for line in text.splitlines())
    return re.split(r"#\[cfg\(test\)\]\s*mod \w+ \{", text)[0]


def test_modules(src):
    """The modules the crate root declares `#[cfg(test)]`: tests, not part of the library."""
    text = open(os.path.join(src, "lib.rs")).read()
    return set(re.findall(r"#\[cfg\(test\)\]\s*mod (\w+);", text))


def root_names(src, names):
    """Names the crate root offers: `pub use m::{A, b}` -> m, and its own items -> `lib`."""
    text = strip_comments(open(os.path.join(src, "lib.rs")).read())
    out = {}
    for m in re.finditer(r"^pub use (\w+)::(\{[^;]*\}|\w+);", text, flags=re.M):
        if m.group(1) in names:
            for item in re.findall(r"\w+", m.group(2)):
                out[item] = m.group(1)
    for m in re.finditer(r"^(?:pub(?:\([^)]*\))? )?(?:fn|struct|enum|trait|type|const|static) (\w+)", text, flags=re.M):
        out[m.group(1)] = "lib"
    return out


def uses(text, names, roots, top_level):
    """Top-level modules named by `crate::x` (also inside `use crate::{a, b::c}`), and by
    `super::x` in a top-level module's own file."""
    found = set()
    prefixes = r"crate" + (r"|super" if top_level else "")
    for m in re.finditer(r"\b(?:%s)::(\{[^;]*?\}|\w+)" % prefixes, text, flags=re.S):
        part = m.group(1)
        if part.startswith("{"):
            # the first segment of each path in the group
            segs = re.findall(r"(?:^|[{,])\s*(\w+)", part)
        else:
            segs = [part]
        for seg in segs:
            if seg in names:
                found.add(seg)
            elif seg in roots:
                found.add(roots[seg])
    return found


def deps(src):
    mods = modules(src)
    names = set(mods) - {"lib"}
    roots = root_names(src, names)
    graph = {}
    for mod, files in mods.items():
        d = set()
        for f in files:
            # `super::` in a top-level file (`m.rs`, `m/mod.rs`) is the crate root
            rel = os.path.relpath(f, src).split(os.sep)
            top = len(rel) == 1 or rel[1:] == ["mod.rs"]
            text = strip_comments(open(f).read())
            d |= uses(text, names, roots, top and mod != "lib")
            if mod == "lib":
                # the crate root names its modules without `crate::`
                d |= {m for m in re.findall(r"\b(\w+)::", text) if m in names}
        d.discard(mod)
        graph[mod] = d
    # the crate root declares every module; it counts only where a module uses its items
    for t in test_modules(src):
        graph.pop(t, None)
        graph["lib"].discard(t)
    return graph


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layers(graph):
    layer = {}
    remaining = set(graph)
    n = 0
    while remaining:
        ready = {m for m in remaining if graph[m] <= set(layer)}
        if not ready:
            return layer, sorted(remaining)
        for m in ready:
            layer[m] = n
        remaining -= ready
        n += 1
    return layer, []


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    cyclic = False
    for src in sys.argv[1:]:
        graph = deps(src)
        print(f"{src}:")
        layer, stuck = layers(graph)
        by_layer = {}
        for m, n in layer.items():
            by_layer.setdefault(n, []).append(m)
        for n in sorted(by_layer):
            for m in sorted(by_layer[n]):
                used = ", ".join(sorted(graph[m])) or "-"
                print(f"  {n}  {m:<14} uses {used}")
        for comp in sccs(graph):
            if len(comp) > 1:
                cyclic = True
                print(f"  CYCLE: {' <-> '.join(comp)}")
                for m in comp:
                    print(f"    {m} uses {', '.join(sorted(graph[m] & set(comp)))}")
        print()
    sys.exit(1 if cyclic else 0)


if __name__ == "__main__":
    main()
