"""Compare nilang-gradbench with GradBench's own tools under GradBench's own CLI.

For each eval named, this runs GradBench's eval (its Python `run.py`, at GradBench's default
sizes unless `--eval-args` says otherwise) against the nilang tool and against one or more peer
tools, all through `gradbench run --eval ... --tool ... -o LOG.jsonl` (GradBench's CLI connects the
two processes, times nothing itself, and writes the JSONL log). Tools and rounds are interleaved:
round 1 runs every eval with nilang then the peers, round 2 with the peers (reversed) then nilang,
and so on, so that slow drifts of a shared machine fall on both sides. The 1-minute load average
is read from /proc/loadavg before and after every run and kept with the run.

The report (also `--report-only` on earlier logs) has one markdown table per eval with one row per
function and input: the mean `evaluate` time of that message (as GradBench's scorer takes it),
the median of those means over the rounds for each tool, their ratio nilang / peer, the best
(fastest) other tool and nilang / its time, and in how many rounds the eval judged that
evaluation valid for each tool. "Best other" leaves out `--best-exclude` (default: `jax`, whose
times are dispatch only, and `nilang-dualrev`, the project's own second engine). Under each table: per tool and
round, the valid count out of the evaluations, and GradBench's score, computed exactly as
`gradbench repo stats` does in crates/gradbench/src/stats.rs (`ScorerClassic`): for every
evaluate message that has a `description`, the mean of its `evaluate` timings; per description
the primal mean plus the derivative mean; the score is 1 / (sum of those, in seconds). Higher is
better. (`repo stats` itself needs a log for every eval and tool of the repository, so it is not
called; saddle and particle, which `repo stats` scores as 1 / the fastest function, are scored so
too.) A final table gives the median score per eval and tool.

Peers (`--peer EVAL=TOOL,TOOL`; default `manual`, and `jax-blocked` for `ode`):

* `manual`: GradBench's hand-written C++ tool, `python3 python/gradbench/gradbench/cpp.py manual`
  (its `define` rebuilds `tools/manual/bin/<eval>` with `make -B`, untimed).
* `nilang-dualrev`: the same binary with `--engine dualrev`: the evals as ordinary generic Rust
  differentiated by `nilang-dualrev`'s dual-numbers reverse AD.
* `adol-c`, `codipack`, `finite`: GradBench's C++ tools of those names through its `cpp.py`, as
  `manual` (built as in ../shared/gradbench.md; `codipack` needs `CPATH=<CoDiPack>/include` in
  this script's environment, since `cpp.py` runs `make` again on `define`).
* `jax`: GradBench's JAX tool as it is. Its timing wrapper (`gradbench/wrap.py`) stops the clock
  when the jitted function *returns*, which for JAX is after asynchronous dispatch, before the
  result is computed; its numbers are therefore not computation times.
* `jax-blocked`: a patched copy of that tool, made by this script at
  `<gradbench>/python/gradbench/gradbench/tools/jax_blocked/` (outside this repository; rewritten
  on every run). The copy is GradBench's `tools/jax` folder unchanged except for a prologue in
  `run.py` that replaces `gradbench.wrap.function` and `gradbench.wrap.multiple_runs` with versions
  that decorate `lambda input: jax.block_until_ready(f(input))` instead of `f`, so each timed call
  ends when its result is ready, and for the tool name it reports (`jax-blocked`). Nothing
  else changes: the first timed call still includes JIT compilation (as in the stock tool), and
  the process is still pinned to CPU 0.
* `pytorch`: GradBench's PyTorch tool (`tools/pytorch/run.py`, unchanged) on **one thread**, run
  through `gradbench_pytorch.py --threads 1` beside this script, which sets `OMP_NUM_THREADS`,
  `MKL_NUM_THREADS` and `OPENBLAS_NUM_THREADS` to 1 before torch is imported and calls
  `torch.set_num_threads(1)` and `torch.set_num_interop_threads(1)`, then runs the tool's `run.py`
  as `__main__`. (The tool itself sets no thread count.)
* `pytorch-all`: the same tool with PyTorch's default threads (one per core), as GradBench's
  nightly runs it (`gradbench_pytorch.py --threads all` changes nothing).
* `jax-blocked-x64`: the same with `jax_enable_x64` switched on before any module is imported.
  GradBench's JAX `ode` module does not enable 64-bit floats, so the stock and `jax-blocked`
  tools integrate the ODE in float32 (their outputs still pass the eval's 1e-4 tolerance);
  nilang and `manual` compute in float64.

Reproduce (GradBench cloned and built as in docs/gradbench.md, "Under GradBench's own CLI"):

    cd /path/to/nilang && cargo build --release -p nilang-gradbench
    GRADBENCH_DIR=/path/to/gradbench python3 crates/nilang-gradbench/examples/gradbench_compare.py \\
        --rounds 3 --evals gmm llsq lse kmeans ba ht det lstm ode

Logs go to `--out` (default `target/gradbench-compare`): `EVAL/TOOL.rROUND.jsonl` (the CLI's
`-o` log), `EVAL/TOOL.rROUND.txt` (its terminal output) and `runs.jsonl` (one line per run:
eval, tool, round, exit code, wall time, load averages). `--resume` skips runs already recorded
there, so a long comparison can be run in pieces; `--report-only` prints the tables from them.
If GradBench's stored copy lacks `hand12_t26_c100000.txt`, `ht` gets `--max 11` automatically;
`lstm` needs `evals/lstm/data/lstm_full.txt` (its first 8 192 characters are read).

Python 3 standard library only; GradBench's own evals need its Python dependencies (numpy,
pydantic, dataclasses-json, scipy; jax and jaxlib for the JAX tools) and
`PYTHONPATH=<gradbench>/python/gradbench`, which this script sets.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_EVALS = ["gmm", "llsq", "lse", "kmeans", "ba", "ht", "det", "lstm", "ode"]

# Primal and derivative function of each eval, as in GradBench's `stats.rs` (`fn scorer`).
CLASSIC = {
    "ba": ("objective", "jacobian"),
    "gmm": ("objective", "jacobian"),
    "ht": ("objective", "jacobian"),
    "lstm": ("objective", "jacobian"),
    "kmeans": ("cost", "dir"),
    "ode": ("primal", "gradient"),
    "llsq": ("primal", "gradient"),
    "det": ("primal", "gradient"),
    "lse": ("primal", "gradient"),
}
EQUIV = {"saddle", "particle"}

JAX_PROLOGUE = '''\
# --- prologue added by nilang's gradbench_compare.py (not part of GradBench) ---
# Every timed call of gradbench.wrap now returns only once its result is computed:
# the decorated function is `lambda input: jax.block_until_ready(f(input))`.
import jax as _gc_jax
{x64}from gradbench import wrap as _gc_wrap


def _gc_blocking(decorator_factory):
    def factory(*args, **kwargs):
        decorator = decorator_factory(*args, **kwargs)

        def apply(function):
            return decorator(lambda input: _gc_jax.block_until_ready(function(input)))

        return apply

    return factory


_gc_wrap.function = _gc_blocking(_gc_wrap.function)
_gc_wrap.multiple_runs = _gc_blocking(_gc_wrap.multiple_runs)
# --- end of prologue ---
'''


def die(msg):
    sys.exit(f"gradbench_compare: {msg}")


def load1():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return None


def make_jax_blocked(gb, x64):
    """Write the patched copy of GradBench's JAX tool; return its folder name."""
    tools = gb / "python/gradbench/gradbench/tools"
    src = tools / "jax"
    name = "jax_blocked_x64" if x64 else "jax_blocked"
    dst = tools / name
    if not (src / "run.py").exists():
        die(f"no GradBench JAX tool at {src}")
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    run = (dst / "run.py").read_text()
    tool_name = name.replace("_", "-")
    renamed = run.replace('response["tool"] = "jax"', f'response["tool"] = "{tool_name}"')
    if renamed == run:
        die("GradBench's jax/run.py changed: cannot find where it names the tool")
    x64_line = '_gc_jax.config.update("jax_enable_x64", True)\n' if x64 else ""
    (dst / "run.py").write_text(JAX_PROLOGUE.format(x64=x64_line) + renamed)
    return name


def tool_command(tool, gb, py, nilang_bin):
    script = lambda rel: f"{shlex.quote(py)} {rel}"
    if tool == "nilang":
        return shlex.quote(str(nilang_bin))
    if tool == "nilang-dualrev":
        return f"{shlex.quote(str(nilang_bin))} --engine dualrev"
    if tool in ("manual", "adol-c", "codipack", "finite"):
        return script(f"python/gradbench/gradbench/cpp.py {tool}")
    if tool == "jax":
        return script("python/gradbench/gradbench/tools/jax/run.py")
    if tool in ("pytorch", "pytorch-all"):
        wrapper = Path(__file__).resolve().parent / "gradbench_pytorch.py"
        threads = "1" if tool == "pytorch" else "all"
        return (f"{shlex.quote(py)} {shlex.quote(str(wrapper))} --threads {threads} "
                "python/gradbench/gradbench/tools/pytorch/run.py")
    if tool in ("jax-blocked", "jax-blocked-x64"):
        name = make_jax_blocked(gb, tool.endswith("x64"))
        return script(f"python/gradbench/gradbench/tools/{name}/run.py")
    die(f"unknown tool {tool!r} (nilang, nilang-dualrev, manual, adol-c, codipack, finite, jax, "
        "jax-blocked, jax-blocked-x64, pytorch, pytorch-all)")


def eval_command(ev, gb, py, extra):
    args = list(extra)
    if ev == "ht" and not any(a.startswith("--max") for a in args):
        variant, model = "complicated", "big"
        for i, a in enumerate(args[:-1]):
            if a == "--variant":
                variant = args[i + 1]
            if a == "--model":
                model = args[i + 1]
        if not (gb / f"evals/ht/data/{variant}_{model}/hand12_t26_c100000.txt").exists():
            args += ["--max", "11"]
    if ev == "lstm" and not (gb / "evals/lstm/data/lstm_full.txt").exists():
        die("lstm needs evals/lstm/data/lstm_full.txt in the gradbench folder")
    rel = f"python/gradbench/gradbench/evals/{ev}/run.py"
    return " ".join([shlex.quote(py), rel] + [shlex.quote(a) for a in args])


def read_runs(out):
    path = out / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def run_all(args, gb, out, nilang_bin, peers):
    cli = Path(args.cli) if args.cli else gb / "target/release-with-debug/gradbench"
    if not cli.exists():
        die(f"no GradBench CLI at {cli} (cargo build --package=gradbench --profile=release-with-debug)")
    if not nilang_bin.exists():
        die(f"no nilang tool at {nilang_bin} (cargo build --release -p nilang-gradbench)")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(gb / "python/gradbench") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    done = {(r["eval"], r["tool"], r["round"]) for r in read_runs(out)} if args.resume else set()
    commands = {}
    for rnd in range(1, args.rounds + 1):
        for ev in args.evals:
            order = ["nilang"] + peers[ev]
            if rnd % 2 == 0:
                order.reverse()
            for tool in order:
                if (ev, tool, rnd) in done:
                    continue
                if tool not in commands:
                    commands[tool] = tool_command(tool, gb, args.python, nilang_bin)
                (out / ev).mkdir(parents=True, exist_ok=True)
                log = out / ev / f"{tool}.r{rnd}.jsonl"
                cmd = [str(cli), "run", "--eval", eval_command(ev, gb, args.python, args.eval_args.get(ev, [])),
                       "--tool", commands[tool], "-o", str(log)]
                if args.timeout:
                    cmd += ["--timeout", str(args.timeout)]
                before, start = load1(), time.time()
                with open(out / ev / f"{tool}.r{rnd}.txt", "w") as term:
                    rc = subprocess.run(cmd, cwd=gb, env=env, stdout=term, stderr=subprocess.STDOUT).returncode
                wall, after = time.time() - start, load1()
                rec = {"eval": ev, "tool": tool, "round": rnd, "log": str(log.relative_to(out)), "rc": rc,
                       "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
                       "wall_s": round(wall, 1), "load_before": before, "load_after": after,
                       "eval_command": cmd[3], "tool_command": commands[tool]}
                with open(out / "runs.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
                print(f"[round {rnd}] {ev:7} {tool:16} exit {rc}  {wall:7.1f} s  load {before} -> {after}",
                      file=sys.stderr, flush=True)


def parse_log(path):
    """Per evaluate message: function, description, timings, success, valid (None if no analysis)."""
    messages, responses = {}, {}
    lines = path.read_text().splitlines()
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "message" in obj:
            m = obj["message"]
            messages[m["id"]] = m
        elif "response" in obj:
            r = obj["response"]
            responses[r.get("id")] = r
    evals, tool_name = [], None
    valid = {}
    for i, m in sorted(messages.items()):
        if m.get("kind") == "analysis":
            valid[m["of"]] = bool(m.get("valid"))
        if m.get("kind") == "start" and i in responses:
            tool_name = responses[i].get("tool")
    for i, m in sorted(messages.items()):
        if m.get("kind") != "evaluate":
            continue
        r = responses.get(i)
        ns = [t["nanoseconds"] for t in (r or {}).get("timings") or [] if t.get("name") == "evaluate"]
        evals.append({
            "id": i, "function": m.get("function"), "description": m.get("description"),
            "ns": ns, "answered": r is not None, "success": bool(r and r.get("success")),
            "valid": valid.get(i),
        })
    return evals, tool_name


def mean_ns(ns):
    # GradBench: sum of the durations divided by their count (integer nanoseconds).
    return sum(ns) // len(ns) if ns else None


def per_message(ns, stat):
    """The time of one message in the tables: GradBench's mean, or the median with --stat median."""
    if not ns:
        return None
    return mean_ns(ns) if stat == "mean" else statistics.median(ns)


def score(ev, evals):
    """GradBench's score of one log (stats.rs), or None."""
    if ev in CLASSIC:
        primal, deriv = CLASSIC[ev]
        total = 0
        for e in evals:
            if e["description"] is None or not e["ns"]:
                continue
            if e["function"] in (primal, deriv):
                total += mean_ns(e["ns"])
        return 1e9 / total if total > 0 else None
    if ev in EQUIV:
        means = [mean_ns(e["ns"]) for e in evals if e["ns"]]
        return 1e9 / min(means) if means else None
    return None


def fmt_ms(ns):
    if ns is None:
        return "–"
    ms = ns / 1e6
    if ms >= 100:
        return f"{ms:,.0f}".replace(",", " ") + " ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    if ms >= 1:
        return f"{ms:.2f} ms"
    if ms >= 0.01:
        return f"{ms:.3f} ms"
    return f"{ms * 1000:.2f} µs"


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    r = a / b
    if r >= 10:
        return f"{r:.1f}"
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def fmt_score(s):
    if s is None:
        return "–"
    return f"{s:.4g}"


def report(args, out, peers):
    runs = read_runs(out)
    if not runs:
        die(f"no runs recorded in {out}/runs.jsonl")
    loads = [r["load_before"] for r in runs if r.get("load_before") is not None] + [
        r["load_after"] for r in runs if r.get("load_after") is not None]
    starts = sorted(r["start"] for r in runs)
    print(f"Runs from {starts[0]} to {starts[-1]} (UTC start times), {len(runs)} runs of `gradbench run`; "
          f"1-minute load average at run start/end: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
          f"max {max(loads):.2f} (machine with {os.cpu_count()} CPUs).")
    what = ("mean `evaluate` time of each message (as GradBench's scorer)" if args.stat == "mean"
            else "median `evaluate` time of each message (--stat median; scores still use the mean)")
    print(f"Times: {what}, median over rounds; "
          "ratio = nilang median / peer median. valid = rounds in which the eval judged the evaluation valid.\n")
    summary = []
    evals_seen = [e for e in args.evals if any(r["eval"] == e for r in runs)]
    for ev in evals_seen:
        ev_runs = [r for r in runs if r["eval"] == ev]
        tools = ["nilang"] + [p for p in peers[ev] if any(r["tool"] == p for r in ev_runs)]
        per_tool = {}  # tool -> list of (round, run record, evals)
        for r in sorted(ev_runs, key=lambda r: r["round"]):
            if r["tool"] not in tools:
                continue
            path = out / r["log"]
            if not path.exists():
                continue
            evs, _ = parse_log(path)
            per_tool.setdefault(r["tool"], []).append((r["round"], r, evs))
        # rows in the order of the first log that has them
        keys = []
        for t in tools:
            for _, _, evs in per_tool.get(t, []):
                for e in evs:
                    k = (e["function"], e["description"])
                    if k not in keys:
                        keys.append(k)
        ev_loads = [x for r in ev_runs for x in (r.get("load_before"), r.get("load_after")) if x is not None]
        print(f"### {ev}\n")
        print(f"Rounds: {max(r['round'] for r in ev_runs)}; eval command: `{ev_runs[0]['eval_command']}`; "
              f"load average during its runs {min(ev_loads):.2f}–{max(ev_loads):.2f}.\n")
        best_pool = [p for p in tools[1:] if p not in args.best_exclude]
        head = ["function", "input"] + [f"{t}" for t in tools] + [f"nilang ÷ {p}" for p in tools[1:]] + \
               (["best other", "nilang ÷ best"] if best_pool else []) + [f"valid {t}" for t in tools]
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|")
        for k in keys:
            meds, valids = {}, {}
            for t in tools:
                means, nv, nr = [], 0, 0
                for _, _, evs in per_tool.get(t, []):
                    for e in evs:
                        if (e["function"], e["description"]) == k:
                            nr += 1
                            nv += 1 if e["valid"] else 0
                            if e["ns"]:
                                means.append(per_message(e["ns"], args.stat))
                meds[t] = statistics.median(means) if means else None
                valids[t] = f"{nv}/{nr}"
            best_cells = []
            if best_pool:
                timed = [p for p in best_pool if meds[p] is not None]
                best = min(timed, key=lambda p: meds[p]) if timed else None
                best_cells = [best or "–", fmt_ratio(meds["nilang"], meds[best]) if best else "–"]
            cells = [k[0], k[1] or ""] + [fmt_ms(meds[t]) for t in tools] + \
                    [fmt_ratio(meds["nilang"], meds[p]) for p in tools[1:]] + best_cells + \
                    [valids[t] for t in tools]
            print("| " + " | ".join(cells) + " |")
        print()
        scores, by_round = {}, {}
        for t in tools:
            parts, sc = [], []
            for rnd, r, evs in per_tool.get(t, []):
                nvalid = sum(1 for e in evs if e["valid"])
                s = score(ev, evs)
                if s is not None:
                    sc.append(s)
                    by_round[(t, rnd)] = s
                note = "" if r["rc"] == 0 else f", exit {r['rc']}"
                parts.append(f"r{rnd}: {nvalid}/{len(evs)} valid, score {fmt_score(s)}{note}")
            scores[t] = statistics.median(sc) if sc else None
            print(f"- {t}: " + "; ".join(parts) + f" — median score {fmt_score(scores[t])}")
        print()
        valid_all = {t: (sum(1 for _, _, evs in per_tool.get(t, []) for e in evs if e["valid"]),
                         sum(len(evs) for _, _, evs in per_tool.get(t, []))) for t in tools}
        paired = {p: [by_round[(p, rnd)] / by_round[("nilang", rnd)] for (t, rnd) in by_round
                      if t == p and ("nilang", rnd) in by_round] for p in tools[1:]}
        summary.append((ev, tools, scores, valid_all, paired))
    print("### GradBench scores (1 / Σ mean primal + derivative, in 1/s; median over rounds)\n")
    print("Score ratio: peer score ÷ nilang score = nilang's total time ÷ the peer's (above 1: nilang slower); "
          "first of the medians, then the median of the per-round ratios (rounds paired).\n")
    print("| eval | nilang score | peer | peer score | ratio of medians | median per-round ratio | "
          "valid nilang | valid peer |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for ev, tools, scores, valid_all, paired in summary:
        for p in tools[1:]:
            ratio = fmt_ratio(scores[p], scores["nilang"])
            pr = fmt_ratio(statistics.median(paired[p]), 1) if paired[p] else "–"
            print(f"| {ev} | {fmt_score(scores['nilang'])} | {p} | {fmt_score(scores[p])} | {ratio} | {pr} | "
                  f"{valid_all['nilang'][0]}/{valid_all['nilang'][1]} | {valid_all[p][0]}/{valid_all[p][1]} |")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gradbench", nargs="?", default=os.environ.get("GRADBENCH_DIR"),
                    help="GradBench clone (default: $GRADBENCH_DIR)")
    here = Path(__file__).resolve()
    # crates/nilang-gradbench/examples/THIS -> the workspace root
    root = here.parents[3] if len(here.parents) > 3 else here.parent
    default_bin = root / "target/release/nilang-gradbench"
    ap.add_argument("--tool", default=str(default_bin), help=f"nilang-gradbench binary (default {default_bin})")
    ap.add_argument("--evals", nargs="+", default=DEFAULT_EVALS, help="evals to run (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per tool and eval (default 3)")
    ap.add_argument("--peer", action="append", default=[], metavar="EVAL=TOOL[,TOOL]",
                    help="peer tools of an eval: nilang-dualrev, manual, adol-c, codipack, finite, jax, jax-blocked, "
                         "jax-blocked-x64, pytorch, pytorch-all "
                         "(default manual; ode: jax-blocked)")
    ap.add_argument("--eval-args", action="append", default=[], metavar="EVAL=ARGS",
                    help="extra arguments for an eval's run.py, e.g. 'ht=--max 11' or 'gmm=-d 2 10'")
    ap.add_argument("--out", default="target/gradbench-compare", help="log folder (default %(default)s)")
    ap.add_argument("--cli", help="GradBench CLI (default <gradbench>/target/release-with-debug/gradbench)")
    ap.add_argument("--python", default=sys.executable, help="Python for GradBench's evals and tools")
    ap.add_argument("--timeout", type=int, help="per-response timeout in seconds, passed to gradbench run")
    ap.add_argument("--stat", choices=["mean", "median"], default="mean",
                    help="per-message time in the tables: GradBench's mean of the message's evaluate "
                         "timings (default), or their median (leaves out e.g. JAX's JIT compile in the "
                         "first run); scores always use the mean")
    ap.add_argument("--best-exclude", nargs="*", default=["jax", "nilang-dualrev"], metavar="TOOL",
                    help="peers left out of the per-input best other tool (default: %(default)s)")
    ap.add_argument("--resume", action="store_true", help="skip runs already recorded in OUT/runs.jsonl")
    ap.add_argument("--report-only", action="store_true", help="only print the tables from OUT")
    args = ap.parse_args()
    if not args.gradbench:
        die("give the GradBench folder as argument or in $GRADBENCH_DIR")
    gb = Path(args.gradbench).resolve()
    if not (gb / "python/gradbench/gradbench/evals").is_dir():
        die(f"{gb} does not look like a GradBench clone")
    peers = {ev: (["jax-blocked"] if ev == "ode" else ["manual"]) for ev in args.evals}
    for spec in args.peer:
        ev, _, tools = spec.partition("=")
        peers[ev] = [t for t in tools.split(",") if t]
    eval_args = {}
    for spec in args.eval_args:
        ev, _, rest = spec.partition("=")
        eval_args[ev] = shlex.split(rest)
    args.eval_args = eval_args
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        run_all(args, gb, out, Path(args.tool).resolve(), peers)
    report(args, out, peers)


if __name__ == "__main__":
    main()
