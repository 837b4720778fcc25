"""Compares recorded nilang-gradbench sessions against GradBench's hand-written `manual` tool.

For every `evaluate` message of each session file `X.jsonl` (with the tool's responses in
`X.out` beside it, as written by `nilang-gradbench < X.jsonl > X.out`), this writes the message's
`input` to a temporary JSON file, runs `MANUAL_BIN_DIR/<module> FILE FUNCTION` (the manual tool's
programs print the output JSON on the first line and then `{"name": "evaluate", "nanoseconds": …}`
lines), and prints one row: eval, description, function, our median, the manual median, the
ratio ours/manual, and how far apart the two outputs are (largest absolute difference over all
numbers after flattening both outputs the same way, and that relative to the largest magnitude).

    python3 crates/nilang-gradbench/examples/compare_manual.py \
        --bin /path/to/manual/bin target/gradbench/{lse,llsq,gmm,ba,kmeans,det,lstm,ode,ht}.jsonl

Options: `--timeout S` (per manual run, default 600; a run past it is reported as TIMEOUT),
`--skip TEXT` (repeatable; skips rows whose "eval description function" contains TEXT),
`--json FILE` (also writes the rows as JSON).

Both tools get the same input, including `min_runs`/`min_seconds`; the manual programs read
those fields themselves. Medians are over each tool's own `evaluate` timings; nothing here is
timed by this script. Run it on an otherwise idle machine.

Input conversions (only where the manual tool's reader expects another layout than the one
recorded; the recorded file is never changed):

* `gmm` in the split layout (`mu`, `q`, `l`) is given to the manual tool in the ADBench layout
  (`means = mu`, `icf[c] = q[c] ++ l[c]`), which the manual reader of this vintage expects. Our
  split-layout jacobian `{alpha, mu, q, l}` is flattened to ADBench order
  (`alpha, mu, q_0 ++ l_0, q_1 ++ l_1, …`) for the comparison. In the split layout our objective
  uses the log-posterior sign of the Wishart term, the ADBench-layout manual tool the ADBench
  sign, so split-layout rows are expected to differ by that term. Sessions written by
  `examples/record.rs` use the ADBench layout and need no conversion.
* every other eval is passed through unchanged.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def convert_input(module, inp):
    """The input as the manual tool's reader expects it (see the module docstring)."""
    if module == "gmm" and "mu" in inp and "means" not in inp:
        out = {k: v for k, v in inp.items() if k not in ("mu", "q", "l")}
        out["means"] = inp["mu"]
        out["icf"] = [q + l for q, l in zip(inp["q"], inp["l"])]
        return out, "gmm split->ADBench layout"
    return inp, ""


def normalize_ours(module, function, out):
    """Our output in the shape the manual tool prints, where the two differ."""
    if module == "gmm" and function == "jacobian" and isinstance(out, dict):
        flat = list(out["alpha"])
        for row in out["mu"]:
            flat.extend(row)
        for q, l in zip(out["q"], out["l"]):
            flat.extend(q)
            flat.extend(l)
        return flat
    return out


def flatten(v, acc):
    if isinstance(v, bool):
        acc.append(float(v))
    elif isinstance(v, (int, float)):
        acc.append(float(v))
    elif isinstance(v, list):
        for x in v:
            flatten(x, acc)
    elif isinstance(v, dict):
        for k in sorted(v):
            flatten(v[k], acc)
    return acc


def difference(a, b):
    """(max |a_i - b_i|, that divided by max |a_i|, |b_i|, note); a note when not comparable."""
    fa, fb = flatten(a, []), flatten(b, [])
    if len(fa) != len(fb):
        return None, None, f"length {len(fa)} vs {len(fb)}"
    if not fa:
        return 0.0, 0.0, ""
    abs_d = scale = 0.0
    for x, y in zip(fa, fb):
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                return math.inf, math.inf, "NaN on one side"
            continue
        abs_d = max(abs_d, abs(x - y))
        scale = max(scale, abs(x), abs(y))
    return abs_d, (abs_d / scale if scale > 0 else 0.0), ""


def run_manual(bin_dir, module, function, inp, timeout):
    path = os.path.join(bin_dir, module)
    if not os.path.exists(path):
        return None, None, f"no binary {path}"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(inp, f)
        name = f.name
    try:
        p = subprocess.run([path, name, function], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"TIMEOUT>{timeout}s"
    finally:
        os.unlink(name)
    if p.returncode != 0:
        return None, None, f"exit {p.returncode}: {p.stderr.strip()[:200]}"
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    output = json.loads(lines[0])
    ns = []
    for l in lines[1:]:
        t = json.loads(l)
        if t.get("name") == "evaluate":
            ns.append(t["nanoseconds"])
    return output, ns, ""


def fmt_ms(ns):
    if not ns:
        return "-"
    return f"{statistics.median(ns) / 1e6:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("MANUAL_BIN_DIR"), help="directory of manual binaries")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("sessions", nargs="+")
    args = ap.parse_args()
    if not args.bin:
        sys.exit("give --bin DIR or set MANUAL_BIN_DIR")

    rows = []
    header = f"{'eval':7} {'description':28} {'function':10} {'ours ms':>11} {'manual ms':>11} {'ours/man':>9}  {'max|Δ|':>9} {'rel':>9}  note"
    print(header)
    print("-" * len(header))
    for session in args.sessions:
        out_path = session[: -len(".jsonl")] + ".out" if session.endswith(".jsonl") else session + ".out"
        messages = [json.loads(l) for l in open(session) if l.strip()]
        responses = {r["id"]: r for r in (json.loads(l) for l in open(out_path) if l.strip())}
        for m in messages:
            if m.get("kind") != "evaluate":
                continue
            module, function, desc = m["module"], m["function"], m.get("description", "")
            key = f"{module} {desc} {function}"
            if any(s in key for s in args.skip):
                print(f"{module:7} {desc:28} {function:10} skipped")
                continue
            r = responses.get(m["id"], {})
            notes = []
            ours_ns = [t["nanoseconds"] for t in r.get("timings", []) if t["name"] == "evaluate"]
            if not r.get("success"):
                notes.append(f"ours failed: {r.get('error')}")
            inp, conv = convert_input(module, m["input"])
            if conv:
                notes.append(conv)
            man_out, man_ns, err = run_manual(args.bin, module, function, inp, args.timeout)
            if err:
                notes.append(err)
            abs_d = rel_d = None
            if man_out is not None and r.get("success"):
                abs_d, rel_d, dn = difference(normalize_ours(module, function, r.get("output")), man_out)
                if dn:
                    notes.append(dn)
            ratio = "-"
            if ours_ns and man_ns:
                mo, mm = statistics.median(ours_ns), statistics.median(man_ns)
                ratio = f"{mo / mm:.2f}" if mm > 0 else "inf"
            a = "-" if abs_d is None else f"{abs_d:.2e}"
            rl = "-" if rel_d is None else f"{rel_d:.2e}"
            print(f"{module:7} {desc:28} {function:10} {fmt_ms(ours_ns):>11} {fmt_ms(man_ns):>11} {ratio:>9}  {a:>9} {rl:>9}  {'; '.join(notes)}", flush=True)
            rows.append({
                "eval": module, "description": desc, "function": function,
                "ours_ns": ours_ns, "manual_ns": man_ns or [],
                "ours_median_ms": statistics.median(ours_ns) / 1e6 if ours_ns else None,
                "manual_median_ms": statistics.median(man_ns) / 1e6 if man_ns else None,
                "max_abs_diff": abs_d, "max_rel_diff": rel_d, "notes": notes,
            })
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
