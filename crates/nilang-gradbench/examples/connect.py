#!/usr/bin/env python3
"""Run a GradBench eval against a GradBench tool, the way `gradbench run` does.

    python3 connect.py --eval 'CMD' --tool 'CMD' [-o log.jsonl] [--summary s.json] [--timeout S]

Both commands are run by the shell, each in its own process group, with stdin and stdout piped
(stderr is left on the terminal). The connector reads one line (one JSON message) at a time from
the eval, checks that it is JSON with a known `kind`, writes it to the tool, reads exactly one
line back, checks it against the response shape for that kind, and writes it to the eval. Every
message, `analysis` ones included, goes to the tool, and every response goes back to the eval.
When the eval closes its stdout the run is over: both stdins are closed and both processes
awaited.

The log (`-o`) has one JSON object per line, as GradBench's CLI writes it:
`{"elapsed": {"nanoseconds": N}, "message": {...}}` for each eval message and
`{"elapsed": {"nanoseconds": N}, "response": {...}}` for each tool response, N counted from the
start of the run.

The exit status follows `gradbench run`: 0 when every module was defined, every evaluation
succeeded and every analysis was valid; otherwise the first that applies of 1 (error: bad JSON,
a response that does not fit, the tool closing its output), 5 (timeout), 2 (a `define` failed),
3 (an `evaluate` failed), 4 (some analysis was invalid), and otherwise 1 if the eval or the tool
exited with a nonzero status (where `gradbench run` only checks that waiting for them worked).

Only the Python standard library is used.
"""

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

EXIT = {"error": 1, "undefined": 2, "failure": 3, "invalid": 4, "timeout": 5, "interrupt": 6}


class ProtocolError(Exception):
    pass


def spawn(command):
    return subprocess.Popen(
        command,
        shell=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,  # own process group, like the CLI's process_group(0)
    )


def line_reader(stream, q):
    """Push each line of `stream` (bytes) into `q`, then None at end of file."""
    for line in iter(stream.readline, b""):
        q.put(line)
    q.put(None)


def kill_group(proc):
    try:
        os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def nanostring(ns):
    ms = ns // 1_000_000
    return f"{ms:>8}ms" if ms < 1000 else f"{ms / 1000:>8.3f} s"


def need(cond, what):
    if not cond:
        raise ProtocolError(what)


def check_response(kind, message, response):
    """Raise ProtocolError where `response` is not a response to `message`, as the CLI does."""
    need(isinstance(response, dict), "tool response is not a JSON object")
    need(isinstance(response.get("id"), int), "tool response has no integer `id`")
    if response["id"] != message["id"]:
        # The CLI does not check this (the eval does); report it all the same.
        raise ProtocolError(f"tool answered id {response['id']} to message {message['id']}")
    if kind == "start":
        need(response.get("tool") is None or isinstance(response["tool"], str),
             "`tool` in start response must be a string")
    elif kind == "define":
        need(isinstance(response.get("success"), bool), "define response needs boolean `success`")
        if response["success"] and response.get("error") is not None:
            raise ProtocolError("tool reported success but gave an error")
    elif kind == "evaluate":
        need(isinstance(response.get("success"), bool), "evaluate response needs boolean `success`")
        timings = response.get("timings")
        if timings is not None:
            need(isinstance(timings, list) and all(
                isinstance(t, dict) and isinstance(t.get("name"), str)
                and isinstance(t.get("nanoseconds"), int) and t["nanoseconds"] >= 0
                for t in timings), "`timings` must be a list of {name, nanoseconds}")
        if response["success"]:
            if response.get("error") is not None:
                raise ProtocolError("tool reported success but gave an error")
            if "output" not in response:
                raise ProtocolError("tool reported success but gave no output")


def check_message(message):
    need(isinstance(message, dict), "eval message is not a JSON object")
    need(isinstance(message.get("id"), int), "eval message has no integer `id`")
    kind = message.get("kind")
    fields = {
        "start": [],
        "define": ["module"],
        "evaluate": ["module", "function"],
        "analysis": ["of", "valid"],
    }
    need(kind in fields, f"eval message has unknown kind {kind!r}")
    for f in fields[kind]:
        need(f in message, f"eval `{kind}` message has no `{f}`")
    return kind


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", required=True, help="shell command running the eval")
    parser.add_argument("--tool", required=True, help="shell command running the tool")
    parser.add_argument("-o", "--output", help="write the transcript (JSON lines) here")
    parser.add_argument("--summary", help="write per-evaluation results (JSON) here")
    parser.add_argument("--timeout", type=float, help="seconds to wait for each tool response")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args()

    out = sys.stdout
    log = open(args.output, "w") if args.output else None
    start = time.monotonic_ns()
    elapsed = lambda: time.monotonic_ns() - start  # noqa: E731

    eval_proc = spawn(args.eval)
    tool_proc = spawn(args.tool)
    eval_q, tool_q = queue.Queue(), queue.Queue()
    threading.Thread(target=line_reader, args=(eval_proc.stdout, eval_q), daemon=True).start()
    threading.Thread(target=line_reader, args=(tool_proc.stdout, tool_q), daemon=True).start()

    counts = {"undefined": 0, "failure": 0, "invalid": 0}
    evaluations = []  # one dict per evaluate message
    by_id = {}
    outcome = None
    error = None

    def say(text):
        if not args.quiet:
            print(text, file=out, flush=True)

    try:
        while True:
            eval_line = eval_q.get()
            if eval_line is None:
                break  # the eval is done
            message_time = elapsed()
            text = eval_line.decode("utf-8").strip()
            if log:
                log.write(f'{{"elapsed": {{"nanoseconds": {message_time}}}, "message": {text}}}\n')
                log.flush()
            try:
                message = json.loads(text)
            except json.JSONDecodeError as e:
                raise ProtocolError(f"invalid JSON from eval: {e}: {text[:200]}")
            kind = check_message(message)

            if kind == "evaluate":
                entry = {
                    "id": message["id"],
                    "module": message["module"],
                    "function": message["function"],
                    "description": message.get("description"),
                }
                evaluations.append(entry)
                by_id[message["id"]] = entry
            elif kind == "analysis":
                entry = by_id.get(message["of"])
                if entry is not None:
                    entry["valid"] = message["valid"]
                    entry["analysis_error"] = message.get("error")
                if not message["valid"]:
                    counts["invalid"] += 1
                mark = "valid" if message["valid"] else "INVALID"
                say(f"[{message['of']}] analysis: {mark}")
                if message.get("error"):
                    say(message["error"])

            # Forward the eval's message only once it is known to be JSON.
            tool_proc.stdin.write(eval_line if eval_line.endswith(b"\n") else eval_line + b"\n")
            tool_proc.stdin.flush()
            try:
                tool_line = tool_q.get(timeout=args.timeout)
            except queue.Empty:
                say(f"[{message['id']}] no response within {args.timeout} s")
                outcome = "timeout"
                break
            if tool_line is None:
                raise ProtocolError(f"tool closed its output before answering message {message['id']}")
            response_time = elapsed()
            ns = response_time - message_time
            rtext = tool_line.decode("utf-8").strip()
            try:
                response = json.loads(rtext)
            except json.JSONDecodeError as e:
                raise ProtocolError(f"invalid JSON from tool: {e}: {rtext[:200]}")
            check_response(kind, message, response)

            if kind == "start":
                say(f"[{message['id']}] start {message.get('eval', '')} ({response.get('tool')})")
            elif kind == "define":
                ok = response["success"]
                if not ok:
                    counts["undefined"] += 1
                say(f"[{message['id']}] def {message['module']} {nanostring(ns)} {'ok' if ok else 'FAILED'}")
                if response.get("error"):
                    say(response["error"])
            elif kind == "evaluate":
                entry = by_id[message["id"]]
                entry["success"] = response["success"]
                entry["wall_ns"] = ns
                timings = response.get("timings") or []
                entry["runs"] = len(timings)
                if timings:
                    entry["mean_ns"] = sum(t["nanoseconds"] for t in timings) // len(timings)
                if not response["success"]:
                    counts["failure"] += 1
                    entry["error"] = response.get("error")
                desc = message.get("description") or ""
                say(f"[{message['id']}] eval {message['module']}::{message['function']} {desc} "
                    f"{nanostring(ns)} {'' if response['success'] else 'FAILED'}"
                    + (f" ~{nanostring(entry['mean_ns']).strip()} x{len(timings)}" if timings else ""))
                if not response["success"] and response.get("error"):
                    say(response["error"])

            if log:
                log.write(f'{{"elapsed": {{"nanoseconds": {response_time}}}, "response": {rtext}}}\n')
                log.flush()
            eval_proc.stdin.write(tool_line if tool_line.endswith(b"\n") else tool_line + b"\n")
            eval_proc.stdin.flush()
    except ProtocolError as e:
        error = str(e)
        outcome = "error"
    except BrokenPipeError as e:
        error = f"broken pipe: {e}"
        outcome = "error"
    except KeyboardInterrupt:
        outcome = "interrupt"

    # End of the run: close both inputs so each process sees end of file, then wait.
    for proc in (tool_proc, eval_proc):
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    if outcome in ("timeout", "interrupt"):
        kill_group(tool_proc)
        if outcome == "interrupt":
            kill_group(eval_proc)
    statuses = {}
    for name, proc in (("eval", eval_proc), ("tool", tool_proc)):
        try:
            statuses[name] = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            statuses[name] = proc.wait()
    if log:
        log.close()

    if outcome is None:
        for name in ("undefined", "failure", "invalid"):
            if counts[name]:
                outcome = name
                break
    if outcome is None and any(s != 0 for s in statuses.values()):
        # `gradbench run` only checks that waiting worked; a crashed eval (a traceback, no
        # more messages) would pass there. Here it is an error.
        outcome = "error"
        error = f"a process exited with a nonzero status: {statuses}"

    valid = sum(1 for e in evaluations if e.get("valid") is True)
    invalid = sum(1 for e in evaluations if e.get("valid") is False)
    failed = sum(1 for e in evaluations if e.get("success") is False)
    summary = {
        "outcome": outcome or "success",
        "error": error,
        "evaluations": len(evaluations),
        "valid": valid,
        "invalid": invalid,
        "failed": failed,
        "unanalyzed": len(evaluations) - valid - invalid,
        "exit_status": statuses,
        "details": evaluations,
    }
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f, indent=1)
    if error:
        print(f"error: {error}", file=out)
    print(f"outcome: {summary['outcome']}; evaluations {len(evaluations)}, valid {valid}, "
          f"invalid {invalid}, failed {failed}; eval exit {statuses['eval']}, "
          f"tool exit {statuses['tool']}", file=out, flush=True)
    sys.exit(EXIT[outcome] if outcome else 0)


if __name__ == "__main__":
    main()
