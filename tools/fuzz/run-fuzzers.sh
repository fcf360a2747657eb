#!/usr/bin/env bash
#===- tools/fuzz/run-fuzzers.sh - run the libFuzzer targets ---------------===//
#
# Usage: run-fuzzers.sh BUILD_DIR [SECONDS] [libFuzzer flags...]
#
# Regenerates the seed corpora from the lit tests (make-corpus.py), then runs
# quant-block-fuzz-mlir, -npy and -gguf of BUILD_DIR (configured
# with -DQUANT_BLOCK_ENABLE_FUZZING=ON) for SECONDS each (default 60), all
# three at once. New coverage goes to BUILD_DIR/fuzz/corpus-*, crashes to
# BUILD_DIR/fuzz/artifacts/. Prints the executions of each target and exits
# non-zero if any found something. FUZZ_SEED (default 1: CI runs the same
# sequence every time, so a finding there reproduces; 0 = random) and extra
# flags (-jobs=N, -max_len=...) are passed to libFuzzer. docs/Fuzzing.md
# describes the longer runs.
#
#===----------------------------------------------------------------------===//
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="$(cd "${1:?usage: $0 BUILD_DIR [SECONDS] [libFuzzer flags...]}" && pwd)"
seconds="${2:-60}"
shift $(($# < 2 ? $# : 2))
fuzz_dir="$build_dir/fuzz"

# The same sanitizer settings as the test lane (run.sh): Debian's LLVM is not
# instrumented, so its inlined allocator poisoning must be ignored.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"

/usr/bin/python3 "$here/make-corpus.py" --tests "$here/../../test" \
  --mlir "$fuzz_dir/seeds-mlir" --npy "$fuzz_dir/seeds-npy"
# The GGUF seeds: the valid and hostile files of the quant-import-gguf tests.
rm -rf "$fuzz_dir/seeds-gguf"
/usr/bin/python3 "$here/../../test/Target/GGUF/Inputs/make-gguf.py" \
  "$fuzz_dir/seeds-gguf"
mkdir -p "$fuzz_dir/artifacts"

# The three targets run at once (each single-threaded): SECONDS of wall
# time in all instead of three times that, on a machine of two cores or more.
targets=(mlir npy gguf)
for target in "${targets[@]}"; do
  fuzzer="$build_dir/bin/quant-block-fuzz-$target"
  dict="$here/quant-block-mlir.dict"
  [[ $target == npy ]] && dict="$here/npy.dict"
  [[ $target == gguf ]] && dict="$here/gguf.dict"
  corpus="$fuzz_dir/corpus-$target"
  log="$fuzz_dir/$target.log"
  mkdir -p "$corpus"
  echo "== fuzzing $target for ${seconds}s (log: $log)"
  # regressions/<target>: every input that once crashed a target; libFuzzer
  # runs each corpus input before it mutates, so they are checked every run.
  (
    status=0
    "$fuzzer" "$corpus" "$fuzz_dir/seeds-$target" "$here/regressions/$target" \
      -dict="$dict" \
      -max_total_time="$seconds" -timeout=60 -max_len=4096 \
      -seed="${FUZZ_SEED:-1}" -print_final_stats=1 \
      -artifact_prefix="$fuzz_dir/artifacts/$target-" "$@" >"$log" 2>&1 ||
      status=$?
    echo "$status" >"$fuzz_dir/$target.status"
  ) &
done
wait

total=0
failed=0
for target in "${targets[@]}"; do
  fuzzer="$build_dir/bin/quant-block-fuzz-$target"
  log="$fuzz_dir/$target.log"
  status=$(cat "$fuzz_dir/$target.status")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "   $target: ${runs:-?} executions, exit status $status"
  total=$((total + ${runs:-0}))
  if ((status)); then
    echo "== quant-block-fuzz-$target found a problem; the end of its log:"
    tail -n 60 "$log"
    echo "== reproduce with: $fuzzer <the crash- file under $fuzz_dir/artifacts>"
    failed=1
  fi
done
((failed)) && exit 1
echo "== fuzzing done: $total executions in all, no findings"
