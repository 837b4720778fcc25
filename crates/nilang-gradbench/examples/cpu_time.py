"""CPU time (user + sys of all threads), wall time and peak memory (the largest resident set,
`ru_maxrss`) of whole GradBench sessions, per tool, interleaved: the parallel overhead of
`--threads 2` against `--threads 1` on a machine too loaded for wall-clock speed-ups (CPU time
counts work, not waiting for a core), and what the threads cost in memory.

    python3 crates/nilang-gradbench/examples/cpu_time.py /tmp/t1.sh,/tmp/t2.sh \
        adb_10k_d10_K10.jsonl,gb_d64_k100.jsonl 3

Arguments: tools (comma-separated executables reading a session on stdin; a wrapper script
must `exec` the tool, so that the process measured is the tool), session files
(comma-separated), rounds. Prints the load average per round and the medians per file and
tool. The peak memory is the whole process's: the session's JSON as read and decoded counts
too.
"""
import os, subprocess, sys, time
bins, files, rounds = sys.argv[1].split(","), sys.argv[2].split(","), int(sys.argv[3])
res = {}
for r in range(rounds):
    print("round", r + 1, "load", os.getloadavg(), flush=True)
    for f in files:
        for b in (bins if r % 2 == 0 else bins[::-1]):
            t = time.time()
            with open(f, "rb") as inp:
                p = subprocess.Popen([b], stdin=inp, stdout=subprocess.DEVNULL)
                _, status, usage = os.wait4(p.pid, 0)
            wall = time.time() - t
            if status != 0:
                sys.exit(f"{b} < {f}: exit status {status}")
            cpu = usage.ru_utime + usage.ru_stime
            res.setdefault((f, b), []).append((cpu, wall, usage.ru_maxrss / 1024))
median = lambda xs: sorted(xs)[len(xs) // 2]
for (f, b), v in sorted(res.items()):
    cpu, wall, rss = (median([x[k] for x in v]) for k in range(3))
    print(f"{os.path.basename(f):28s} {os.path.basename(b):8s} cpu median {cpu:.3f} s  "
          f"wall median {wall:.3f} s  peak RSS median {rss:.1f} MiB")
