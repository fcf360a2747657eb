#!/usr/bin/env bash
#===- bench/run.sh - benchmark the kernels of bench/ with quant-run ------===//
#
# Writes random inputs (make_inputs.py), runs each bench/*.mlir kernel with
# `quant-run --benchmark` (which also measures the memory bandwidth in the
# same run) and prints one table. The linear_* kernels (matrix-vector products
# with quantized weights) run a second time with --benchmark-cold: calls
# rotate over copies of the weights totalling 8 x the last-level cache, as a
# decode step streams its weights from DRAM, beside the read-only bandwidth
# (docs/Runner.md). Takes a few seconds per kernel (more for cold runs on
# machines with a large last-level cache; COLD=0 skips them).
#
#   bench/run.sh                 # build/bin/quant-run, 20 timed calls each
#   CALLS=50 BUILD_DIR=out bench/run.sh
#   bench/run.sh dequant_mxfp4   # only the named kernels
#   COLD=0 bench/run.sh          # no cold runs
#   PEER=1 bench/run.sh          # also ggml's Q4_0 / MXFP4 GEMVs, cold, 1 and 2
#                                # threads (PEER_THREADS; bench/ggml/)
#
# QUANT_RUN overrides the quant-run binary, PYTHON the Python with numpy
# (default /usr/bin/python3), WORK_DIR where the inputs and JSON reports go.
#
#===----------------------------------------------------------------------===//
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build_dir="${BUILD_DIR:-$root/build}"
quant_run="${QUANT_RUN:-$build_dir/bin/quant-run}"
python="${PYTHON:-/usr/bin/python3}"
calls="${CALLS:-20}"
cold="${COLD:-1}"
work_dir="${WORK_DIR:-${TMPDIR:-/tmp}/quant-block-bench}"

if [[ ! -x "$quant_run" ]]; then
  echo "bench/run.sh: no quant-run at $quant_run (build it, or set QUANT_RUN" \
       "or BUILD_DIR)" >&2
  exit 1
fi

mkdir -p "$work_dir"
mapfile -t all_kernels < <("$python" "$here/make_inputs.py" "$work_dir")
kernels=("$@")
if [[ ${#kernels[@]} -eq 0 ]]; then
  kernels=("${all_kernels[@]}")
fi

reports=()
for kernel in "${kernels[@]}"; do
  if [[ ! -f "$here/$kernel.mlir" || ! -f "$work_dir/$kernel.args" ]]; then
    echo "bench/run.sh: unknown kernel '$kernel'" \
         "(known: ${all_kernels[*]})" >&2
    exit 1
  fi
  mapfile -t args < "$work_dir/$kernel.args"
  echo "== $kernel" >&2
  "$quant_run" "$here/$kernel.mlir" "${args[@]}" --benchmark="$calls" \
    --benchmark-json="$work_dir/$kernel.json" > "$work_dir/$kernel.log"
  reports+=("$work_dir/$kernel.json")
  if [[ "$cold" != 0 && "$kernel" == linear_* ]]; then
    echo "== $kernel (cold)" >&2
    "$quant_run" "$here/$kernel.mlir" "${args[@]}" --benchmark="$calls" \
      --benchmark-cold --benchmark-json="$work_dir/$kernel.cold.json" \
      > "$work_dir/$kernel.cold.log"
    reports+=("$work_dir/$kernel.cold.json")
  fi
done

# The peer, measured the same way in the same run (fetches ggml with npm);
# table.py then prints each kernel beside the ggml case of its shape.
if [[ "${PEER:-0}" != 0 ]]; then
  echo "== ggml (bench/ggml/run.sh)" >&2
  CALLS="$calls" THREADS="${PEER_THREADS:-1 2}" "$here/ggml/run.sh" \
    | tee "$work_dir/ggml.log" >&2
  "$python" "$here/table.py" --peer "$work_dir/ggml.log" "${reports[@]}"
else
  "$python" "$here/table.py" "${reports[@]}"
fi
