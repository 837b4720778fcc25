#!/usr/bin/env python3
"""Natural programs against the expert ones and GradBench's `manual`, under GradBench's own CLI.

For each eval named, runs GradBench's eval (`python/gradbench/gradbench/evals/EVAL/run.py`, at its
default sizes unless `--eval-args` says otherwise) through GradBench's CLI,
`gradbench run --eval ... --tool ... -o LOG.jsonl`, with three tools:

* `natural`: `nilang-gradbench --natural` (the plain-Rust `#[differentiable]` programs),
* `expert`:  `nilang-gradbench` (the hand-written reversible programs),
* `manual`:  GradBench's hand-written C++ tool (`python3 python/gradbench/gradbench/cpp.py manual`).

Tools are interleaved within each round (round r runs natural, expert, manual rotated by r - 1),
so slow drifts of the shared machine fall on every tool. The 1-minute load average is kept per run.

The report has one markdown table per eval: for each input (the message's `description`) of the
derivative function (every function but `objective`, `primal` and kmeans' `cost`), each tool's median over all runs of
all rounds of the per-run `evaluate` timings the tool reported to the CLI, with the lowest and
highest of the per-round medians (the spread between rounds), and
the ratios natural / expert and natural / manual of those medians. Under it: the sums over the
inputs of the medians and their ratios, the valid count per tool (from the eval's `analysis`
messages), and the text of any failed validation or error.

Reproduce (GradBench cloned, its CLI and `manual` built as in docs/gradbench.md):

    cargo build --release -p nilang-gradbench
    python3 scripts/gradbench_natural.py /path/to/gradbench --rounds 4 \
        --evals lse llsq det gmm ode lstm ba kmeans \
        --eval-args 'det=-l 5 6 7 8 9' --all-args='--min-seconds 0.2'

Logs: `--out` (default target/gradbench-natural): EVAL/TOOL.rROUND.{jsonl,txt} and runs.jsonl.
`--resume` skips runs already in runs.jsonl; `--report-only` prints the tables again.
Python 3 standard library only; GradBench's evals need numpy, pydantic, dataclasses-json, scipy.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOOLS = ["natural", "expert", "manual"]
ROOT = Path(__file__).resolve().parent.parent


def load1():
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except OSError:
        return None


def tool_command(tool, py, nilang_bin):
    if tool == "natural":
        return f"{shlex.quote(str(nilang_bin))} --natural"
    if tool == "expert":
        return shlex.quote(str(nilang_bin))
    return f"{shlex.quote(py)} python/gradbench/gradbench/cpp.py manual"


def eval_command(ev, py, extra):
    rel = f"python/gradbench/gradbench/evals/{ev}/run.py"
    return " ".join([shlex.quote(py), rel] + [shlex.quote(a) for a in extra])


def read_runs(out):
    p = out / "runs.jsonl"
    return [json.loads(l) for l in p.read_text().splitlines() if l.strip()] if p.exists() else []


def run_all(args, gb, out, nilang_bin):
    cli = Path(args.cli) if args.cli else gb / "target/release-with-debug/gradbench"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(gb / "python/gradbench") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = {(r["eval"], r["tool"], r["round"]) for r in read_runs(out)} if args.resume else set()
    for rnd in range(1, args.rounds + 1):
        for ev in args.evals:
            k = (rnd - 1) % len(TOOLS)
            order = TOOLS[k:] + TOOLS[:k]
            for tool in order:
                if (ev, tool, rnd) in done:
                    continue
                (out / ev).mkdir(parents=True, exist_ok=True)
                log = out / ev / f"{tool}.r{rnd}.jsonl"
                cmd = [str(cli), "run", "--eval", eval_command(ev, args.python, args.eval_args.get(ev, [])),
                       "--tool", tool_command(tool, args.python, nilang_bin), "-o", str(log)]
                if args.timeout:
                    cmd += ["--timeout", str(args.timeout)]
                before, start = load1(), time.time()
                with open(out / ev / f"{tool}.r{rnd}.txt", "w") as term:
                    rc = subprocess.run(cmd, cwd=gb, env=env, stdout=term, stderr=subprocess.STDOUT).returncode
                wall, after = time.time() - start, load1()
                rec = {"eval": ev, "tool": tool, "round": rnd, "rc": rc,
                       "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
                       "wall_s": round(wall, 1), "load_before": before, "load_after": after,
                       "eval_command": cmd[3], "tool_command": cmd[5]}
                with open(out / "runs.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
                print(f"[round {rnd}] {ev:7} {tool:8} exit {rc} {wall:7.1f} s  load {before} -> {after}",
                      file=sys.stderr, flush=True)


def parse_log(path):
    messages, responses = {}, {}
    for line in path.read_text().splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "message" in obj:
            messages[obj["message"]["id"]] = obj["message"]
        elif "response" in obj:
            responses[obj["response"].get("id")] = obj["response"]
    analysis = {m["of"]: m for m in messages.values() if m.get("kind") == "analysis"}
    evals = []
    for i, m in sorted(messages.items()):
        if m.get("kind") != "evaluate":
            continue
        r = responses.get(i) or {}
        ns = [t["nanoseconds"] for t in r.get("timings") or [] if t.get("name") == "evaluate"]
        a = analysis.get(i)
        evals.append({"function": m.get("function"), "description": m.get("description"), "ns": ns,
                      "success": bool(r.get("success")), "error": r.get("error"),
                      "valid": None if a is None else bool(a.get("valid")),
                      "analysis": a})
    return evals


def fmt_ms(ns):
    if ns is None:
        return "—"
    ms = ns / 1e6
    return f"{ms:.3g}" if ms < 1000 else f"{ms:.0f}"


def report(args, out):
    runs = read_runs(out)
    rounds = len({r["round"] for r in runs})
    print(f"Per-run `evaluate` times of the derivative, ms: median over all runs of all rounds "
          f"(in brackets: lowest–highest of the per-round medians). Rounds: {rounds}.\n")
    for ev in args.evals:
        per = {t: {} for t in TOOLS}
        valid = {t: [0, 0] for t in TOOLS}
        problems = []
        for t in TOOLS:
            for rnd in range(1, args.rounds + 1):
                p = out / ev / f"{t}.r{rnd}.jsonl"
                if not p.exists():
                    continue
                for e in parse_log(p):
                    if e["valid"] is not None:
                        valid[t][1] += 1
                        valid[t][0] += e["valid"]
                    if e["valid"] is False or not e["success"]:
                        msg = e["error"] or json.dumps({k: v for k, v in (e["analysis"] or {}).items()
                                                        if k not in ("id", "kind", "of")})[:600]
                        problems.append(f"{t} r{rnd} {e['function']} {e['description']}: {msg}")
                    if e["function"] in ("objective", "primal", "cost"):
                        continue
                    if e["ns"]:
                        per[t].setdefault((e["function"], e["description"]), []).append(e["ns"])
        keys = list(dict.fromkeys(k for t in TOOLS for k in per[t]))
        loads = [x for r in runs if r["eval"] == ev for x in (r["load_before"], r["load_after"]) if x is not None]
        walls = {t: [r["wall_s"] for r in runs if r["eval"] == ev and r["tool"] == t] for t in TOOLS}
        rcs = {t: sorted({r["rc"] for r in runs if r["eval"] == ev and r["tool"] == t}) for t in TOOLS}
        cmd = next((r["eval_command"] for r in runs if r["eval"] == ev), "")
        print(f"### {ev}\n\neval: `{cmd}`; load {min(loads, default=0):.2f}–{max(loads, default=0):.2f}; "
              f"wall s per run: " + ", ".join(f"{t} {walls[t]}" for t in TOOLS) +
              "; exit codes: " + ", ".join(f"{t} {rcs[t]}" for t in TOOLS) + "\n")
        print("| function | input | natural | expert | manual | natural ÷ expert | natural ÷ manual |")
        print("|---|---|---|---|---|---|---|")
        sums = {t: 0.0 for t in TOOLS}
        complete = {t: True for t in TOOLS}
        ratios_e, ratios_m = [], []
        for k in keys:
            cells, med = [], {}
            for t in TOOLS:
                rounds = per[t].get(k) or []
                ns = [x for r in rounds for x in r]
                if ns:
                    med[t] = statistics.median(ns)
                    sums[t] += med[t]
                    rm = [statistics.median(r) for r in rounds]
                    cells.append(f"{fmt_ms(med[t])} ({fmt_ms(min(rm))}–{fmt_ms(max(rm))})")
                else:
                    complete[t] = False
                    cells.append("—")
            re = med["natural"] / med["expert"] if "natural" in med and "expert" in med else None
            rm = med["natural"] / med["manual"] if "natural" in med and "manual" in med else None
            if re:
                ratios_e.append(re)
            if rm:
                ratios_m.append(rm)
            print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) +
                  f" | {re and f'{re:.2f}' or '—'} | {rm and f'{rm:.2f}' or '—'} |")
        tot = lambda t: fmt_ms(sums[t]) + ("" if complete[t] else " (incomplete)")
        se = sums["natural"] / sums["expert"] if sums["expert"] else None
        sm = sums["natural"] / sums["manual"] if sums["manual"] else None
        print(f"| **sum** | | {tot('natural')} | {tot('expert')} | {tot('manual')} | "
              f"{se and f'**{se:.2f}**' or '—'} | {sm and f'**{sm:.2f}**' or '—'} |")
        if ratios_e or ratios_m:
            f = lambda r: f"{statistics.median(r):.2f} ({min(r):.2f}–{max(r):.2f})" if r else "—"
            print(f"\nper-input ratio, median (range): natural ÷ expert {f(ratios_e)}, "
                  f"natural ÷ manual {f(ratios_m)}")
        print("\nvalid (eval's analysis): " + ", ".join(f"{t} {valid[t][0]}/{valid[t][1]}" for t in TOOLS))
        for p in problems[:20]:
            print(f"\n- PROBLEM: {p}")
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gradbench", nargs="?", default=os.environ.get("GRADBENCH_DIR"))
    ap.add_argument("--tool", default=str(ROOT / "target/release/nilang-gradbench"))
    ap.add_argument("--evals", nargs="+", default=["gmm", "lse", "llsq", "kmeans", "ba", "det", "lstm", "ode"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--eval-args", action="append", default=[], metavar="EVAL=ARGS",
                    help="arguments for one eval's run.py, e.g. 'det=-l 5 6 7'")
    ap.add_argument("--all-args", default="", metavar="ARGS",
                    help="arguments for every eval's run.py, after those of --eval-args; write it --all-args='--min-seconds 0.2'")
    ap.add_argument("--out", default=str(ROOT / "target/gradbench-natural"))
    ap.add_argument("--cli", help="GradBench CLI (default GRADBENCH/target/release-with-debug/gradbench)")
    ap.add_argument("--python", default="python3")
    ap.add_argument("--timeout", type=int, help="CLI --timeout per message, seconds")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    if not args.gradbench:
        sys.exit("give the GradBench folder (or set GRADBENCH_DIR)")
    ea = {}
    for s in args.eval_args:
        ev, _, rest = s.partition("=")
        ea[ev] = shlex.split(rest)
    args.eval_args = {ev: ea.get(ev, []) + shlex.split(args.all_args) for ev in args.evals}
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        run_all(args, Path(args.gradbench).resolve(), out, Path(args.tool).resolve())
    report(args, out)


if __name__ == "__main__":
    main()
