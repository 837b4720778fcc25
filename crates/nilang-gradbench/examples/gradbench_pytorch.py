"""Run GradBench's PyTorch tool with a chosen number of threads (used by gradbench_compare.py).

    python3 gradbench_pytorch.py --threads N|all GRADBENCH/python/gradbench/gradbench/tools/pytorch/run.py [ARGS]

GradBench's own `tools/pytorch/run.py` sets no thread count (its `--multithreaded` only prints
"not yet implemented"), so PyTorch uses its default intra-op pool, one thread per core; that is
how GradBench's nightly runs it (`gradbench repo run --eval E --tool pytorch`, no option). This
wrapper leaves the tool's files untouched and runs its `run.py` unchanged as `__main__` after
setting, for `--threads N`, `OMP_NUM_THREADS`, `MKL_NUM_THREADS`, `OPENBLAS_NUM_THREADS` to N
before torch is imported and then `torch.set_num_threads(N)` and
`torch.set_num_interop_threads(N)`; `--threads all` changes nothing (the nightly's setting).
"""

import os
import runpy
import sys


def main():
    args = sys.argv[1:]
    threads = "all"
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--threads":
            threads = args.pop(0)
        else:
            sys.exit(f"gradbench_pytorch: unknown option {opt}")
    if not args:
        sys.exit("gradbench_pytorch: give the path of GradBench's tools/pytorch/run.py")
    run_py = os.path.abspath(args.pop(0))
    if threads != "all":
        n = int(threads)
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[var] = str(n)
    import torch

    if threads != "all":
        torch.set_num_threads(n)
        torch.set_num_interop_threads(n)
    print(f"gradbench_pytorch: torch {torch.__version__}, {torch.get_num_threads()} intra-op "
          f"thread(s), {torch.get_num_interop_threads()} inter-op", file=sys.stderr, flush=True)
    # As when Python runs the script itself: its folder first on sys.path (the tool imports its
    # eval modules by bare name), and its own argv.
    sys.path.insert(0, os.path.dirname(run_py))
    sys.argv = [run_py] + args
    runpy.run_path(run_py, run_name="__main__")


if __name__ == "__main__":
    main()
