#!/usr/bin/env bash
# Strong and weak scaling of nilang-mpi's distributed GMM gradient (d 10, K 10) at 1, 2 and 4
# MPI ranks on this machine, one rayon thread per rank; the figures of docs/scaling.md.
#
# Usage: scripts/mpi_scaling.sh [REPS]   (default 9; each line prints the median of REPS
# gradients and the bytes per gradient, `sharded gmm`)
# Needs OpenMPI (apt-get install libopenmpi-dev openmpi-bin libclang-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${1:-9}"
bin="${CARGO_TARGET_DIR:-target}/release/examples/sharded"
cargo build --release -q -p nilang-mpi --features mpi --example sharded
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
run() { mpirun --oversubscribe -np "$1" -x RAYON_NUM_THREADS=1 "$bin" gmm 10 10 "$2" "$reps"; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "strong scaling: 100000 points over all ranks"
for p in 1 2 4; do run "$p" 100000; done
echo "weak scaling: 50000 points per rank"
for p in 1 2 4; do run "$p" $((50000 * p)); done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
