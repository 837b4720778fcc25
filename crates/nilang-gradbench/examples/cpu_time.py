"""CPU time (user + sys of all threads) and wall time of whole GradBench sessions, per tool,
interleaved: the parallel overhead of `--threads 2` against `--threads 1` on a machine too
loaded for wall-clock speed-ups (CPU time counts work, not waiting for a core).

    python3 crates/nilang-gradbench/examples/cpu_time.py /tmp/t1.sh,/tmp/t2.sh \
        adb_10k_d10_K10.jsonl,gb_d64_k100.jsonl 3

Arguments: tools (comma-separated executables reading a session on stdin), session files
(comma-separated), rounds. Prints the load average per round and the medians per file and tool.
"""
import resource, subprocess, sys, time, os
bins, files, rounds = sys.argv[1].split(","), sys.argv[2].split(","), int(sys.argv[3])
res = {}
for r in range(rounds):
    print("round", r + 1, "load", os.getloadavg(), flush=True)
    for f in files:
        for b in (bins if r % 2 == 0 else bins[::-1]):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.time()
            with open(f, "rb") as inp:
                subprocess.run([b], stdin=inp, stdout=subprocess.DEVNULL, check=True)
            wall = time.time() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            res.setdefault((f, b), []).append((cpu, wall))
for (f, b), v in sorted(res.items()):
    cpus = sorted(c for c, _ in v); walls = sorted(w for _, w in v)
    print(f"{f:28s} {os.path.basename(b):8s} cpu median {cpus[len(cpus)//2]:.3f} s  wall median {walls[len(walls)//2]:.3f} s")
