#!/usr/bin/env bash
# Runs a bundle of bench/gpu/bundle.sh on a machine with an NVIDIA GPU (it
# is copied into the bundle as run.sh):
#
#   BUNDLE/run.sh RESULTS
#
# Every check's executable runs and its output is compared with the CPU
# pipeline's (bundle_compare.py, or the test's own check script), and with
# SANITIZE=1 runs again under compute-sanitizer's memcheck; then the
# GEMV benchmark of every form built runs as bench/gpu/run.sh runs it and table.py
# prints its table; then the LLaMA models (llama_run.py). Needs python3 with numpy. Exits 1 if a check failed.
set -uo pipefail

BUNDLE=$(cd "$(dirname "$0")" && pwd)
RESULTS=${1:?usage: run.sh RESULTS}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
PYTHON=${PYTHON:-python3}
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0

if command -v nvidia-smi >/dev/null; then
  echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
fi
while read -r name kind; do
  out=$RESULTS/$name.out
  expected=$BUNDLE/cases/$name.expected
  timeout 300 "$BUNDLE/cases/$name" >"$out" 2>"$RESULTS/$name.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: exit $rc: $(tail -3 "$RESULTS/$name.err" | tr '\n' ' ')"
    status=1; continue
  fi
  case "$kind" in
    exact) verdict=$("$PYTHON" "$BUNDLE/bundle_compare.py" "$expected" "$out") ;;
    reassoc) verdict=$("$PYTHON" "$BUNDLE/bundle_compare.py" --relative 1e-5 "$expected" "$out") ;;
    reassoc-bits) verdict=$("$PYTHON" "$BUNDLE/bundle_compare.py" --relative 1e-5 --f32-bits "$expected" "$out") ;;
    matmul) verdict=$("$PYTHON" "$BUNDLE/gpu_matmul_kernels.py" check "$out" "$expected" 2>&1 | tr '\n' ' ') ;;
    matmul-tc) # the cases of 16 or more rows (the tensor-core kernel)
      verdict=$("$PYTHON" "$BUNDLE/gpu_matmul_kernels.py" check --cases tensor-cores "$out" "$expected" 2>&1 | tr '\n' ' ') ;;
    matmul-k*) # matmul-k<S>[c<C>]: split-k S, chunk-words C (2 by default)
      spec=${kind#matmul-k}; split=${spec%%c*}; chunk=2
      [ "$spec" != "$split" ] && chunk=${spec#*c}
      verdict=$("$PYTHON" "$BUNDLE/gpu_matmul_kernels.py" check --split-k "$split" --chunk-words "$chunk" "$out" "$expected" 2>&1 | tr '\n' ' ') ;;
    reduction) verdict=$("$PYTHON" "$BUNDLE/reduction_gemv.py" check "$expected" "$out" 2>&1 | tr '\n' ' ') ;;
  esac
  rc=$?
  if [ $rc -eq 0 ]; then echo "PASS $name ($kind): $verdict"
  else echo "FAIL $name ($kind): $verdict"; status=1; fi
  if [ "${SANITIZE:-0}" = 1 ]; then
    if compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$BUNDLE/cases/$name" >"$RESULTS/$name.memcheck" 2>&1; then
      echo "PASS $name (memcheck)"
    else
      echo "FAIL $name (memcheck): $(grep -m3 'Invalid\|ERROR' "$RESULTS/$name.memcheck" | tr '\n' ' ')"
      status=1
    fi
  fi
done < "$BUNDLE/cases.txt"

# The benchmark, as bench/gpu/run.sh runs it.
for dir in "$BUNDLE"/bench-*; do
  [ -f "$dir/params.txt" ] || continue
  form=${dir##*/bench-}
  res=$RESULTS/bench-$form
  mkdir -p "$res"
  cp "$dir/cases.txt" "$dir/params.txt" "$res/" 2>/dev/null
  "$dir/copy" >"$res/copy.out" 2>"$res/copy.err" || {
    echo "FAIL bench-$form copy: $(tail -3 "$res/copy.err")"; status=1; }
  for name in $(cut -d' ' -f1 "$dir/cases.txt"); do
    "$dir/$name" >"$res/$name.out" 2>"$res/$name.err" || {
      echo "FAIL bench-$form $name: $(tail -3 "$res/$name.err")"; status=1; }
    QUANT_BLOCK_CUDA_PROFILE=1 "$dir/$name" >"$res/$name.profiled.out" \
      2>"$res/$name.prof" || {
      echo "FAIL bench-$form $name (profiled): $(tail -3 "$res/$name.prof")"
      status=1; }
  done
  echo "== GEMV benchmark, $form form"
  "$PYTHON" "$BUNDLE/table.py" "$res" nvvm "${form%-r1}" || status=1
done
# The device-resident GEMV: hot and cold kernel times (profile), whole-call
# wall time, the bytes that crossed PCIe per call.
dir=$BUNDLE/bench-resident
if [ -f "$dir/cases.txt" ]; then
  res=$RESULTS/bench-resident
  mkdir -p "$res"
  cp "$dir/cases.txt" "$res/"
  while read -r name scheme n k bytes rows; do
    QUANT_BLOCK_CUDA_PROFILE=1 "$dir/$name" "$scheme" "$n" "$k" \
      "${WARMUP:-10}" "${ITERS:-100}" "${RESIDENT_COPIES:-32}" "${rows:-1}" \
      >"$res/$name.out" 2>"$res/$name.prof" || {
      echo "FAIL bench-resident $name: $(grep -v '^quant-block-cuda-profile' "$res/$name.prof" | tail -3)"
      status=1; }
    # The same without the runtime's stream pool and memory pool.
    QUANT_BLOCK_CUDA_CACHING=0 "$dir/$name" "$scheme" "$n" "$k" \
      "${WARMUP:-10}" "${ITERS:-100}" 1 "${rows:-1}" >"$res/$name.nocache.out" \
      2>"$res/$name.nocache.err" || {
      echo "FAIL bench-resident $name (no caching): $(tail -3 "$res/$name.nocache.err")"
      status=1; }
  done < "$dir/cases.txt"
  echo "== GEMV benchmark, device-resident weights"
  copy_out=$(ls "$RESULTS"/bench-pipeline/copy.out 2>/dev/null | head -1)
  "$PYTHON" "$BUNDLE/resident_table.py" "$res" "${WARMUP:-10}" "${ITERS:-100}" \
    ${copy_out:+"$copy_out"} || status=1
fi
# The LLaMA model: the tiny ones' logits against the CPU's, the 7B-shaped
# ones' pp / tg, then where each spends its time (every kernel's, from
# QUANT_BLOCK_CUDA_PROFILE, the five longest of a prefill and of tg's warm-up).
if [ -f "$BUNDLE/llama-models.txt" ]; then
  res=$RESULTS/llama
  mkdir -p "$res"
  copy_out=$(ls "$RESULTS"/bench-pipeline/copy.out 2>/dev/null | head -1)
  echo "== LLaMA model (llama_run.py)"
  while read -r name runtime; do
    lib=$BUNDLE/lib/libQuantBlockCudaRuntime.so
    [ "$runtime" = vulkan ] && lib=${VULKAN_RUNTIME:-libQuantBlockVulkanRuntime.so}
    timeout "${LLAMA_TIMEOUT:-240}" "$PYTHON" "$BUNDLE/llama_run.py" \
      "$BUNDLE/$name" --runtime "$lib" ${copy_out:+--copy "$copy_out"} \
      </dev/null >"$res/$name.out" 2>"$res/$name.err"
    rc=$?
    grep -E '^(PASS|FAIL|RESULT|llama_)' "$res/$name.out"
    if [ $rc -ne 0 ]; then
      grep -q "^FAIL" "$res/$name.out" ||
        echo "FAIL llama $name: exit $rc: $(tail -3 "$res/$name.err" | tr '\n' ' ')"
      status=1; continue
    fi
    case $name in llama_bench_*)
      for test in pp tg; do
        QUANT_BLOCK_CUDA_PROFILE=1 timeout "${LLAMA_TIMEOUT:-240}" \
          "$PYTHON" "$BUNDLE/llama_run.py" "$BUNDLE/$name" --runtime "$lib" \
          --only $test </dev/null >/dev/null 2>"$res/$name.$test.prof" &&
          "$PYTHON" "$BUNDLE/llama_run.py" --summarize "$res/$name.$test.prof" \
            --title "$name $test"
      done ;;
    esac
  done < "$BUNDLE/llama-models.txt"
fi
exit $status
