#!/usr/bin/env python3
"""Times the `kmeans` eval of nilang-gradbench at several thread counts (its `--threads`).

Writes GradBench messages for one random k-means instance (n points, k centroids, d
dimensions; `cost` and `dir`, each run at least `--runs` times and `--seconds` seconds), feeds
them to the tool once per thread count, alternating, and prints the median and minimum of the
per-run timings with a checksum of each output. Standard library only.

    cargo build --release -p nilang-gradbench
    python3 crates/nilang-gradbench/examples/kmeans_threads.py --threads 1 2 --rounds 3
"""
import argparse
import json
import random
import statistics
import subprocess


def messages(n, k, d, runs, seconds):
    rng = random.Random(1)
    rows = lambda m: [[rng.uniform(-1, 1) for _ in range(d)] for _ in range(m)]
    inp = {"points": rows(n), "centroids": rows(k), "min_runs": runs, "min_seconds": seconds}
    msgs = [{"id": 0, "kind": "start"}, {"id": 1, "kind": "define", "module": "kmeans"}]
    for i, f in enumerate(["cost", "dir"]):
        msgs.append({"id": 2 + i, "kind": "evaluate", "module": "kmeans", "function": f, "input": inp})
    return "".join(json.dumps(m) + "\n" for m in msgs)


def checksum(out):
    if isinstance(out, (int, float)):
        return out
    return sum(v for row in out for v in row if v is not None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", default="target/release/nilang-gradbench")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("-n", type=int, default=10000)
    ap.add_argument("-k", type=int, default=1000)
    ap.add_argument("-d", type=int, default=16)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args()
    stdin = messages(a.n, a.k, a.d, a.runs, a.seconds)
    for r in range(a.rounds):
        for t in a.threads:
            out = subprocess.run([a.tool, "--threads", str(t)], input=stdin, capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                resp = json.loads(line)
                if "timings" not in resp:
                    continue
                ms = [x["nanoseconds"] / 1e6 for x in resp["timings"] if x["name"] == "evaluate"]
                name = "cost" if resp["id"] == 2 else "dir"
                print(f"round {r + 1} threads {t} {name:4}: median {statistics.median(ms):7.2f} ms, "
                      f"min {min(ms):7.2f} ms over {len(ms)} runs, checksum {checksum(resp['output'])!r}")


if __name__ == "__main__":
    main()
