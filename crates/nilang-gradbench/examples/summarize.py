"""Summarizes a recorded session and the tool's responses: one line per evaluate with the
description, the function, the number of runs and the median `evaluate` time.

    python3 crates/nilang-gradbench/examples/summarize.py target/gradbench/gmm.jsonl target/gradbench/gmm.out
"""
import json
import statistics
import sys

messages = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
responses = {r["id"]: r for r in (json.loads(l) for l in open(sys.argv[2]) if l.strip())}
for m in messages:
    if m["kind"] != "evaluate":
        continue
    r = responses[m["id"]]
    if not r.get("success"):
        print(f"{m['module']}::{m['function']:10} {m.get('description', ''):28} FAILED {r.get('error')}")
        continue
    ns = [t["nanoseconds"] for t in r["timings"] if t["name"] == "evaluate"]
    med = statistics.median(ns) / 1e6
    print(f"{m['module']}::{m['function']:10} {m.get('description', ''):28} runs={len(ns)} median={med:10.3f} ms")
