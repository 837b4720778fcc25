#!/usr/bin/env python3
"""Times the tool's derivatives with and without `--natural` on recorded GradBench sessions
(`examples/record.rs`, `examples/record_defaults.rs`): the derivative messages of each session
are served by `nilang-gradbench` and `nilang-gradbench --natural` in turn, ROUNDS times
(interleaved), and per input the median `evaluate` time over all runs of all rounds is printed
with the ratio natural ÷ expert, as a markdown table.

    python3 crates/nilang-gradbench/examples/natural_sessions.py TOOL ROUNDS SESSION.jsonl...
"""
import json
import statistics
import subprocess
import sys

DERIVATIVE = {"gradient", "jacobian", "dir"}

tool, rounds, sessions = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("| eval | input | expert | natural | natural ÷ expert |")
print("|---|---|---:|---:|---:|")
for path in sessions:
    lines = [l for l in open(path) if l.strip()]
    messages = [json.loads(l) for l in lines]
    keep = [l for l, m in zip(lines, messages)
            if m["kind"] != "evaluate" or m["function"] in DERIVATIVE]
    text = "".join(keep).encode()
    times = {False: {}, True: {}}
    for _ in range(rounds):
        for natural in (False, True):
            args = [tool] + (["--natural"] if natural else [])
            out = subprocess.run(args, input=text, capture_output=True, check=True).stdout
            for r in (json.loads(l) for l in out.decode().splitlines() if l.strip()):
                if "timings" not in r:
                    if r.get("success") is False:
                        sys.exit(f"{path}: {r}")
                    continue
                ns = [t["nanoseconds"] for t in r["timings"] if t["name"] == "evaluate"]
                times[natural].setdefault(r["id"], []).extend(ns)
    for m in messages:
        if m["kind"] != "evaluate" or m["id"] not in times[False]:
            continue
        e = statistics.median(times[False][m["id"]]) / 1e6
        n = statistics.median(times[True][m["id"]]) / 1e6
        desc = m.get("description", "")
        print(f"| {m['module']} | {desc} | {e:.3f} ms | {n:.3f} ms | {n / e:.2f} |", flush=True)
