#!/usr/bin/env python3
"""Lines of each eval's natural program against its expert program (issue 28's measure).

A line counts when it is not blank and not a comment (`//`, `///`, `//!`). The natural program
is the eval's `#[differentiable]` functions (with the `#[differentiable]` functions and plain
helpers they call: gmm's `logsumexp` from lse.rs, det's `before`); the expert program is the
reversible program and the plain helpers that exist for it (the files or regions below), not
the input, output, run glue or references, which the two share or both have.

    python3 crates/nilang-gradbench/examples/natural_lines.py
"""
import os
import re

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "evals")


def code(lines):
    return [l for l in lines if l.strip() and not l.strip().startswith("//")]


def read(path):
    with open(os.path.join(HERE, path)) as f:
        return f.read().splitlines()


def region(path, start, end=None):
    """Lines of `path` from the first line matching `start` to before the first matching `end`."""
    lines = read(path)
    i = next(k for k, l in enumerate(lines) if re.search(start, l))
    j = len(lines) if end is None else next(
        k for k, l in enumerate(lines) if k > i and re.search(end, l))
    return lines[i:j]


def items(path, names=None):
    """The `#[differentiable]` functions of `path` (only `names` if given) and plain `fn`s
    named in `names`: from the attribute to the closing brace at column 0."""
    lines = read(path)
    out, k = [], 0
    while k < len(lines):
        l = lines[k]
        start = None
        if l.startswith("#[differentiable"):
            start = k
            name = next(re.search(r"fn (\w+)", x).group(1) for x in lines[k:] if "fn " in x)
            if names is not None and name not in names:
                start = None
        elif names and re.match(r"pub fn (\w+)", l) and re.match(r"pub fn (\w+)", l).group(1) in names:
            start = k
        if start is not None:
            e = next(j for j in range(k, len(lines)) if lines[j] == "}")
            out += lines[start:e + 1]
            k = e + 1
        else:
            k += 1
    return out


EXPERT = {
    "lse": region("lse.rs", r"^pub fn max_value", r"^/// The `lse` input"),
    "llsq": region("llsq.rs", r"^pub fn t\(", r"^/// The `llsq` input"),
    "gmm": read("gmm/program.rs"),
    "ode": read("ode/program.rs"),
    "det": region("det.rs", r"^pub const DIRECT_MAX", r"^/// The `det` input"),
    "kmeans": read("kmeans/program.rs") + read("kmeans/search.rs"),
    "lstm": read("lstm/program.rs"),
    "ba": region("ba/program.rs", r"^use ", r"^/// The residuals\."),
}

NATURAL = {
    "lse": items("natural/lse.rs"),
    "llsq": items("natural/llsq.rs"),
    "gmm": items("natural/gmm.rs") + items("natural/lse.rs"),
    "ode": items("natural/ode.rs"),
    "det": items("natural/det.rs", {"minor", "before"}),
    "kmeans": items("natural/kmeans.rs"),
    "lstm": items("natural/lstm.rs"),
    "ba": items("natural/ba.rs"),
}

print("| eval | natural lines | expert lines | natural ÷ expert |")
print("|---|---:|---:|---:|")
for eval_ in NATURAL:
    n, e = len(code(NATURAL[eval_])), len(code(EXPERT[eval_]))
    print(f"| {eval_} | {n} | {e} | {n / e:.2f} |")
