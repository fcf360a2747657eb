#!/usr/bin/env bash
# The prepared device check of the GPU work (issue 28): on a machine without
# a GPU, builds one bundle (bench/gpu/bundle.sh: the NVVM pipeline's executed
# checks with the CPU's expected outputs, and every GPU benchmark: the
# GEMV forms, the device-resident GEMV hot and cold, with and without FMA
# and the runtime's pools, the int8, f16 and bf16 prefill products on the tensor
# cores beside the warp kernel, and the LLaMA model: tiny ones checked
# against the CPU's logits, 7B-shaped ones timed, pp512 / tg128) and puts a
# `device_check.sh` in it that runs
# everything on the GPU machine, under compute-sanitizer's memcheck where
# present, and writes one table.
#
#   bench/gpu/device_check.sh OUT        # here: build the bundle in OUT
#   OUT/device_check.sh RESULTS          # there: RESULTS/table.txt
#
# Needs there: an NVIDIA driver and python3 with numpy; nothing of LLVM or
# MLIR. Took 85 s on an H200 without kernel variants, 145-170 s with the
# default RESIDENT_VARIANTS (runs of 2026-11-27, docs/GPU.md), before the
# prefill products (RESIDENT_PREFILL) and the LLaMA model (LLAMA) were
# added. The environment of bundle.sh (BUILD, CHIP, CHECKS, BENCH, SHAPES,
# RESIDENT_SHAPES, RESIDENT_PREFILL, RESIDENT_HALF_PREFILL,
# RESIDENT_ROWS_VARIANTS, LLAMA, LLAMA_CHECKS,
# LLAMA_BENCH, ...)
# passes through.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUT" >&2; exit 2
fi
"$(dirname "$0")/bundle.sh" "$1"
cat > "$1/device_check.sh" <<'SCRIPT'
#!/usr/bin/env bash
# Runs the bundle (run.sh) with memcheck and writes RESULTS/table.txt: the
# device, every failure, the benchmark tables and the check counts; the
# whole log is RESULTS/full.log. Exits 1 if anything failed.
set -uo pipefail
RESULTS=${1:?usage: device_check.sh RESULTS}
mkdir -p "$RESULTS"
SANITIZE=${SANITIZE:-$(command -v compute-sanitizer >/dev/null && echo 1 || echo 0)} \
  "$(dirname "$0")/run.sh" "$RESULTS" > "$RESULTS/full.log" 2>&1
status=$?
{
  grep -v '^PASS' "$RESULTS/full.log"
  echo "checks: $(grep -c '^PASS' "$RESULTS/full.log") passed," \
    "$(grep -c '^FAIL' "$RESULTS/full.log") failed (memcheck included)"
} > "$RESULTS/table.txt"
cat "$RESULTS/table.txt"
exit $status
SCRIPT
chmod +x "$1/device_check.sh"
echo "device check: run $1/device_check.sh RESULTS on the GPU machine"
