"""A/B timing of two (or more) builds of the tool on the same recorded sessions, interleaved.

    python3 crates/nilang-gradbench/examples/ab_time.py --rounds 5 \
        --bin old=/tmp/nilang-gradbench.old --bin new=target/release/nilang-gradbench \
        [--manual /path/to/gradbench/tools/manual/bin] target/gradbench/llsq_defaults.jsonl

Each round runs every binary once over each session file (the order of the binaries alternates
from round to round), one process per session as an eval would drive it. With `--manual DIR`,
every `evaluate` of the round is also given to GradBench's hand-written tool
(`DIR/<module> FILE FUNCTION`, one process per evaluation, as GradBench's C++ tools run).
Times are the tools' own `evaluate` timings (nothing is timed here); the table gives, for every
evaluation, the median over all rounds of all runs of each tool, the ratio of each tool to the
first `--bin`, and the largest difference between the outputs of the first `--bin` tool and the
others relative to the largest output magnitude (with `--manual`, also each `--bin` tool's
against the manual tool's). `--json FILE` writes the rows. Load average is printed per round.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def flatten(v, out):
    if isinstance(v, dict):
        for k in sorted(v):
            flatten(v[k], out)
    elif isinstance(v, list):
        for x in v:
            flatten(x, out)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        out.append(float(v))
    return out


def rel_diff(a, b):
    fa, fb = flatten(a, []), flatten(b, [])
    if len(fa) != len(fb):
        return float("inf")
    if not fa:
        return 0.0
    scale = max(max(abs(x) for x in fa), max(abs(x) for x in fb), 1e-300)
    return max(abs(x - y) for x, y in zip(fa, fb)) / scale


def run_session(binary, path):
    with open(path, "rb") as f:
        res = subprocess.run([binary], stdin=f, capture_output=True, check=True)
    out = {}
    for line in res.stdout.decode().splitlines():
        if line.strip():
            r = json.loads(line)
            out[r.get("id")] = r
    return out


def run_manual(bindir, module, function, inp):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(inp, f)
        name = f.name
    try:
        res = subprocess.run(
            [os.path.join(bindir, module), name, function],
            capture_output=True,
            check=True,
        )
    finally:
        os.unlink(name)
    lines = [l for l in res.stdout.decode().splitlines() if l.strip()]
    output = json.loads(lines[0])
    ns = [json.loads(l)["nanoseconds"] for l in lines[1:]]
    return output, ns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH")
    ap.add_argument("--manual", help="directory of the manual tool's programs")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("sessions", nargs="+")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.bin]
    names = [n for n, _ in bins] + (["manual"] if a.manual else [])
    times = {}  # (session, id) -> name -> [ns]
    outputs = {}  # (session, id) -> name -> output
    meta = {}
    for path in a.sessions:
        for line in open(path):
            if line.strip():
                m = json.loads(line)
                if m["kind"] == "evaluate":
                    meta[(path, m["id"])] = m
    for r in range(a.rounds):
        order = bins if r % 2 == 0 else bins[::-1]
        print(f"round {r + 1}: load average {os.getloadavg()}", file=sys.stderr)
        for path in a.sessions:
            for name, binary in order:
                resp = run_session(binary, path)
                for key, m in meta.items():
                    if key[0] != path:
                        continue
                    x = resp[m["id"]]
                    if not x.get("success"):
                        sys.exit(f"{name} failed on {m.get('description')}: {x.get('error')}")
                    ns = [t["nanoseconds"] for t in x["timings"] if t["name"] == "evaluate"]
                    times.setdefault(key, {}).setdefault(name, []).extend(ns)
                    outputs.setdefault(key, {})[name] = x["output"]
            if a.manual:
                for key, m in meta.items():
                    if key[0] != path:
                        continue
                    o, ns = run_manual(a.manual, m["module"], m["function"], m["input"])
                    times[key].setdefault("manual", []).extend(ns)
                    outputs[key]["manual"] = o
    rows = []
    head = f"{'eval':8} {'input':22} {'function':10}" + "".join(
        f" {n:>12}" for n in names
    ) + "".join(f" {n + '/' + names[0]:>14}" for n in names[1:]) + f" {'outputs':>9}"
    print(head)
    for key, m in meta.items():
        med = {n: statistics.median(times[key][n]) / 1e6 for n in names}
        outs = outputs[key]
        diff = max(
            (rel_diff(outs[bins[0][0]], outs[n]) for n, _ in bins[1:]), default=0.0
        )
        row = {
            "eval": m["module"],
            "input": m.get("description", ""),
            "function": m["function"],
            "ms": med,
            "runs": {n: len(times[key][n]) for n in names},
            "output_rel_diff": diff,
        }
        if a.manual:
            row["manual_rel_diff"] = {n: rel_diff(outs[n], outs["manual"]) for n, _ in bins}
        rows.append(row)
        line = f"{m['module']:8} {m.get('description', ''):22} {m['function']:10}"
        line += "".join(f" {med[n]:12.3f}" for n in names)
        line += "".join(f" {med[n] / med[names[0]]:14.2f}" for n in names[1:])
        line += f" {diff:9.1e}"
        if a.manual:
            line += "  vs manual: " + " ".join(
                f"{n} {d:.1e}" for n, d in row["manual_rel_diff"].items()
            )
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
