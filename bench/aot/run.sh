#!/usr/bin/env bash
#===- bench/aot/run.sh - bench/ kernels compiled ahead of time, from C ---===//
#
# Compiles bench/ kernels the way an application embeds them, ahead of time
# with the C interface:
#
#   quant-opt K.mlir --llvm-request-c-wrappers --quant-block-cpu-pipeline=...
#     | mlir-translate --mlir-to-llvmir | opt -O3 | llc -O3 -> K.so
#
# (the CPU pipeline gets the options quant-run's JIT sets for this host:
# x86-avx512-vnni, x86-amx, x86-avx512-vbmi, x86-avx512, x86-avx512-bf16, x86-f16c; opt and llc get the host's triple and
# -mcpu=native, as the JIT targets the host: mlir-translate writes no target
# triple, and without one opt optimizes with no target information), calls `_mlir_ciface_K` from C (aot_call.c) cold, and
# runs `quant-run --benchmark-cold` on the same kernel and inputs in the same
# run, alternating the two REPEATS times (default 3: one run of each moves
# by 5-10 % on a shared VM). Prints, per kernel, the best minimum time of
# each side, their ratio, and whether the two results have the same bits.
#
#   bench/aot/run.sh                       # the default kernels, 20 calls
#   CALLS=50 bench/aot/run.sh linear_mxfp4_fast
#   OMP_NUM_THREADS=2 bench/aot/run.sh     # both sides follow it
#
# BUILD_DIR (default build/), LLVM_BIN (default /usr/lib/llvm-22/bin), CC,
# PYTHON (with numpy; default /usr/bin/python3), WORK_DIR, LLC_BYTES (the
# last-level cache; default from sysfs, or 32 MiB), CALLS and REPEATS override the
# defaults; PIPELINE_OPTIONS replaces the CPU pipeline's options. Exits
# with 1 when a result's bits differ.
#
#===----------------------------------------------------------------------===//
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(dirname "$here")"
root="$(dirname "$bench")"
build_dir="${BUILD_DIR:-$root/build}"
llvm_bin="${LLVM_BIN:-/usr/lib/llvm-22/bin}"
python="${PYTHON:-/usr/bin/python3}"
cc="${CC:-cc}"
calls="${CALLS:-20}"
repeats="${REPEATS:-3}"
work_dir="${WORK_DIR:-${TMPDIR:-/tmp}/quant-block-aot}"

llc_bytes="${LLC_BYTES:-}"
if [[ -z "$llc_bytes" ]]; then
  size="$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo 32M)"
  case "$size" in
    *K) llc_bytes=$(( ${size%K} * 1024 )) ;;
    *M) llc_bytes=$(( ${size%M} * 1024 * 1024 )) ;;
    *) llc_bytes="$size" ;;
  esac
fi
llc_mib=$(( (llc_bytes + (1 << 20) - 1) >> 20 ))

# What quant-run's JIT adds for this host (adaptPipelineToTarget).
flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
options=()
if [[ "$flags" == *avx512_vnni* && "$flags" == *avx512bw* ]]; then
  options+=(x86-avx512-vnni=true)
fi
if [[ "$flags" == *avx512_vnni* && "$flags" == *avx512bw* &&
      "$flags" == *amx_tile* && "$flags" == *amx_int8* ]]; then
  options+=(x86-amx=true)
fi
if [[ "$flags" == *avx512_vnni* && "$flags" == *avx512bw* &&
      "$flags" == *avx512vbmi* ]]; then
  options+=(x86-avx512-vbmi=true)
fi
if [[ "$flags" == *avx512f* ]]; then
  options+=(x86-avx512=true)
fi
if [[ "$flags" == *avx512f* && "$flags" == *avx512_bf16* ]]; then
  options+=(x86-avx512-bf16=true)
fi
if [[ "$flags" == *f16c* ]]; then
  options+=(x86-f16c=true)
fi
pipeline_options="${options[*]:-}"
# PIPELINE_OPTIONS replaces them, e.g. "target-cpu=host" (the pipeline
# resolves every x86 option and the vector width itself, docs/CPU.md) or ""
# (portable code).
pipeline_options="${PIPELINE_OPTIONS-$pipeline_options}"
triple="$("$llvm_bin/llvm-config" --host-target)"

mkdir -p "$work_dir"
"$cc" -O2 -pthread -o "$work_dir/aot_call" "$here/aot_call.c" -ldl
mapfile -t all_kernels < <("$python" "$bench/make_inputs.py" "$work_dir")
kernels=("$@")
if [[ ${#kernels[@]} -eq 0 ]]; then
  kernels=(linear_int4_g32_f16_fast linear_int4_g32_f16_i8act
           linear_int4_g32_f16_fast_m8 linear_mxfp4_fast)
fi

echo "--quant-block-cpu-pipeline=\"$pipeline_options\"; opt -O3 / llc -O3 -mtriple=$triple -mcpu=native;" \
     "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}; last-level cache $llc_mib MiB"
rows=()
status=0
for kernel in "${kernels[@]}"; do
  if [[ ! -f "$bench/$kernel.mlir" || ! -f "$work_dir/$kernel.args" ]]; then
    echo "bench/aot/run.sh: unknown kernel '$kernel'" \
         "(known: ${all_kernels[*]})" >&2
    exit 1
  fi
  mapfile -t args < "$work_dir/$kernel.args"
  inputs=()
  for (( i = 0; i < ${#args[@]}; ++i )); do
    if [[ "${args[$i]}" == -i ]]; then
      inputs+=("${args[$((i + 1))]}")
    fi
  done

  out="$work_dir/$kernel"
  rm -f "$out".jit.*.json
  "$build_dir/bin/quant-opt" "$bench/$kernel.mlir" --llvm-request-c-wrappers \
    --quant-block-cpu-pipeline="$pipeline_options" -o "$out.llvm.mlir"
  "$llvm_bin/mlir-translate" --mlir-to-llvmir "$out.llvm.mlir" -o "$out.ll"
  "$llvm_bin/opt" -O3 -mtriple="$triple" -mcpu=native "$out.ll" -o "$out.bc"
  "$llvm_bin/llc" -O3 -mtriple="$triple" -mcpu=native -relocation-model=pic \
    -filetype=obj "$out.bc" -o "$out.o"
  libs=()
  if grep -q '__kmpc_' "$out.ll"; then
    libs=(-L"$llvm_bin/../lib" -lomp -Wl,-rpath,"$llvm_bin/../lib")
  fi
  "$cc" -shared -o "$out.so" "$out.o" "${libs[@]}"

  aot_lines=()
  for (( r = 0; r < repeats; ++r )); do
    aot_lines+=("$("$work_dir/aot_call" "$out.so" "$kernel" "$calls" \
      "$llc_bytes" '<f4:2' "$out.aot.npy" "${inputs[@]}")")
    echo "${aot_lines[-1]}"
    "$build_dir/bin/quant-run" "$bench/$kernel.mlir" "${args[@]}" \
      --benchmark="$calls" --benchmark-cold \
      --benchmark-cold-llc-mib="$llc_mib" --benchmark-json="$out.jit.$r.json" \
      -o "$out.jit.npy" > "$out.jit.log"
  done
  row="$("$python" - "$kernel" "$out.aot.npy" "$out.jit.npy" "$repeats" \
    "${aot_lines[@]}" "$out".jit.*.json <<'EOF'
import json, re, sys
import numpy as np
kernel, aot_npy, jit_npy, repeats = sys.argv[1:5]
aot_lines = sys.argv[5:5 + int(repeats)]
reports = sys.argv[5 + int(repeats):]
aot_ms = min(float(re.search(r"min ([0-9.]+) ms", line).group(1))
             for line in aot_lines)
jit_ms = 1e3 * min(json.load(open(report))["min_seconds"]
                   for report in reports)
aot, jit = np.load(aot_npy), np.load(jit_npy)
same = aot.shape == jit.shape and aot.dtype == jit.dtype and \
    np.array_equal(aot.view(np.uint8), jit.view(np.uint8))
print(f"{kernel} {aot_ms:.3f} {jit_ms:.3f} {aot_ms / jit_ms:.2f} "
      f"{'same' if same else 'DIFFERENT'}")
EOF
)"
  rows+=("$row")
  [[ "$row" == *DIFFERENT ]] && status=1
done

echo
echo "kernel aot_ms jit_ms aot/jit bits (best of $repeats runs each)"
printf '%s\n' "${rows[@]}"
exit "$status"
