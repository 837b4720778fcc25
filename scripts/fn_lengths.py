#!/usr/bin/env python3
"""The longest functions of the workspace's library code: lines from `fn` to its closing brace.

Usage: python3 scripts/fn_lengths.py [--over N] [DIR ...]   (default: crates/*/src, N = 0)

Counts every `fn` item (free functions, methods, nested functions) whose body is a brace
block, from the line of `fn` to the line of the brace that closes it; comments and blank lines
count. Braces in strings, chars and comments are skipped. Unit tests (`#[cfg(test)] mod … {`,
by convention at the end of a file) are left out. Prints `lines  file:line  name`, longest
first; exits 1 if a function is longer than N when --over is given.
"""
import glob
import re
import sys


def code_only(text):
    """The text with comments, strings and char literals blanked (lengths kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = open(path).read()
    code = code_only(text)
    cut = re.search(r"#\[cfg\(test\)\]\s*mod \w+ \{", code)
    if cut:
        code = code[:cut.start()]
    for m in re.finditer(r"\bfn\s+(\w+)", code):
        # the body: the first `{` after the signature, unless a `;` comes first
        k = m.end()
        depth_paren = 0
        while k < len(code):
            ch = code[k]
            if ch in "([<":
                depth_paren += 1
            elif ch in ")]>":
                depth_paren -= 1
            elif ch == ";" and depth_paren <= 0:
                k = -1
                break
            elif ch == "{" and depth_paren <= 0:
                break
            k += 1
        if k < 0 or k >= len(code):
            continue
        depth, j = 0, k
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        start = code.count("\n", 0, m.start()) + 1
        end = code.count("\n", 0, j) + 1
        yield end - start + 1, start, m.group(1)


def main():
    args = sys.argv[1:]
    over = 0
    if args[:1] == ["--over"]:
        over = int(args[1])
        args = args[2:]
    dirs = args or sorted(glob.glob("crates/*/src"))
    found = []
    for d in dirs:
        for path in sorted(glob.glob(d + "/**/*.rs", recursive=True)):
            for length, line, name in functions(path):
                found.append((length, f"{path}:{line}", name))
    found.sort(reverse=True)
    shown = [f for f in found if f[0] > over] if over else found[:20]
    for length, where, name in shown:
        print(f"{length:5}  {where}  {name}")
    sys.exit(1 if over and shown else 0)


if __name__ == "__main__":
    main()
