#!/usr/bin/env python3
"""Lists the public items of a crate whose documentation has no runnable example.

Usage (after `cargo doc --no-deps -p nilang`):

    python3 crates/nilang/examples/doc_examples.py [DOC_DIR] [--check]

DOC_DIR is the crate's rustdoc output (default: $CARGO_TARGET_DIR or target, then doc/nilang).
With --check the exit status is 1 when an item (not a module) lacks an example: CI runs it so,
after `cargo doc`.

What counts, read from rustdoc's HTML (so it sees what a reader sees, re-exported docs included):

- Items: every page rustdoc lists in all.html (structs, enums, traits, functions, constants,
  type aliases, macros, attributes, derives) and every module page (index.html), the crate's
  own included. Items hidden with #[doc(hidden)] have no page and are not counted.
- The companions #[i] generates for a function f (f_inv, f_adjoint, f_adjoint_inv, f_grad,
  f_vjp, f_jacobian, f_jacobian_of, f_hessian, and the unchecked twin of
  `#[i(unchecked = name)]` with its own companions) are not counted: their docs are generated
  and point to f, whose example is the one that counts.
- An item has an example when its own top doc block (not a method's, not an impl's) holds a
  code example that rustdoc runs: `ignore` and `compile_fail` blocks do not count (rustdoc
  marks them in the HTML; `no_run` is not used in this crate and would count).
"""

import os
import re
import sys

COMPANIONS = ("_inv", "_adjoint", "_adjoint_inv", "_grad", "_vjp", "_jacobian", "_jacobian_of",
              "_hessian")


def top_doc(html):
    """The item's own doc block: the `top-doc` toggle, up to its matching </details>."""
    start = html.find('<details class="toggle top-doc"')
    if start < 0:
        return ""
    depth, pos = 0, start
    for tag in re.finditer(r"<(/?)details\b", html[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return html[start:html.index(">", start + tag.end()) + 1]
    return html[start:]


def is_unchecked_twin(doc):
    """The doc #[i(unchecked = name)] writes on the twin: "`f` with the runtime checks off"."""
    text = re.sub(r"<[^>]+>", "", doc)
    return re.search(r"^\s*(Expand description)?\s*\w+ with the runtime reversibility checks off\.\s*$",
                     text) is not None


def has_runnable_example(doc):
    wraps = re.findall(r'<div class="example-wrap([^"]*)"', doc)
    return any("ignore" not in w and "compile_fail" not in w for w in wraps)


def item_name(page):
    """`stdlib/blas/fn.idot.html` → `stdlib::blas::idot`; `ad/index.html` → `ad`."""
    parts = page.split("/")
    leaf = parts.pop()
    if leaf != "index.html":
        parts.append(leaf.split(".")[1])
    return "::".join(parts) or "(crate)"


def pages(doc_dir):
    with open(os.path.join(doc_dir, "all.html")) as f:
        listed = re.findall(r'<li><a href="([^"]+\.html)">', f.read())
    names = {item_name(p) for p in listed}
    generated = {n for n in names for s in COMPANIONS if n.endswith(s) and n[:-len(s)] in names}
    items = [p for p in listed if item_name(p) not in generated]
    for root, _, files in os.walk(doc_dir):
        if "index.html" in files:
            items.append(os.path.relpath(os.path.join(root, "index.html"), doc_dir))
    return sorted(set(items)), len(generated)


def survey(doc_dir):
    """The counted pages, those of them without a runnable example, and how many generated
    functions were left out."""
    items, generated = pages(doc_dir)
    counted, missing = [], []
    for page in items:
        with open(os.path.join(doc_dir, page)) as f:
            doc = top_doc(f.read())
        if is_unchecked_twin(doc):
            generated += 1
            continue
        counted.append(page)
        if not has_runnable_example(doc):
            missing.append(page)
    return counted, missing, generated


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    doc_dir = args[0] if args else os.path.join(target, "doc", "nilang")
    counted, missing, generated = survey(doc_dir)
    for page in missing:
        print(f"no example: {item_name(page)}  ({page})")
    is_module = lambda page: page.endswith("index.html")
    modules = [p for p in counted if is_module(p)]
    items = [p for p in counted if not is_module(p)]
    items_missing = [p for p in missing if not is_module(p)]
    modules_missing = [p for p in missing if is_module(p)]
    print(f"{len(items) - len(items_missing)} of {len(items)} public items and "
          f"{len(modules) - len(modules_missing)} of {len(modules)} modules have a runnable "
          f"example ({generated} generated functions of #[i] not counted)")
    if "--check" in sys.argv and items_missing:
        sys.exit(1)


if __name__ == "__main__":
    main()
