#!/usr/bin/env bash
#===- bench/ggml/run.sh - ggml's Q4_0 / MXFP4 GEMV, cold, beside ours ---===//
#
# Fetches ggml's prebuilt CPU kernels (npm pack @node-llama-cpp/linux-x64: the
# shared libraries libggml-base.so and libggml-cpu-<variant>.so, no headers),
# builds ggml_gemv.c against them and times ggml_mul_mat cold, as
# `quant-run --benchmark-cold` times bench/linear_*.mlir, at the shapes of
# bench/: Q4_0 [4096, 4096] with M = 1, 8, 32, 128 and 512, Q4_0
# [11008, 4096] with M = 1, MXFP4 [4096, 4096] with M = 1, 8 and 32 and
# [11008, 4096] with M = 1, Q4_K [4096, 4096] with M = 1
# (calls rotating over copies of the weight
# totalling 8 x the last-level cache, a read pass over a cold copy after
# each call, bench/cold.h). Not part of the build or the test suite; needs
# npm, a C compiler and the network.
#
#   bench/ggml/run.sh            # 1 and 2 threads, 20 calls
#   CALLS=50 THREADS="1" VARIANT=haswell bench/ggml/run.sh
#   CASES="q4_0:4096:4096:8" bench/ggml/run.sh   # TYPE:N:K:M, space-separated
#   BUFFERS="plain AMX" bench/ggml/run.sh        # where the weight lives
#
# BUFFERS (default `plain CPU_REPACK AMX`): ggml's plain path and the CPU
# backend's extra buffer types, the weight repacked into 8-row tiles and
# ggml's AMX layout (what llama.cpp uses on AMX hosts); a buffer type the
# host lacks prints a line saying so. Each buffer type's first product is
# checked against the plain path's.
#
# VARIANT picks libggml-cpu-<VARIANT>.so (default from /proc/cpuinfo:
# sapphirerapids, skylakex, haswell or x64), GGML_WORK_DIR where the package goes,
# LLC_BYTES overrides the last-level cache size (default: sysfs, or 32 MiB).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work_dir="${GGML_WORK_DIR:-${TMPDIR:-/tmp}/quant-block-ggml}"
calls="${CALLS:-20}"
threads="${THREADS:-1 2}"
cc="${CC:-cc}"

mkdir -p "$work_dir"
cd "$work_dir"
if [[ ! -d package ]]; then
  npm pack --silent @node-llama-cpp/linux-x64 > /dev/null
  tar xzf node-llama-cpp-linux-x64-*.tgz
fi
libs="$work_dir/package/bins/linux-x64"

# The variant ggml's own loader picks on this host (the one with the most
# of the host's features: llama.cpp's choice, the peer to beat). Zen 4 / 5
# get zen4 (AVX512-VNNI, VBMI, BF16), not skylakex, which has no VNNI and
# was half as fast on int8 products there.
if [[ -z "${VARIANT:-}" ]]; then
  flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
  has() { [[ "$flags" == *" $1 "* ]]; }
  if has amx_int8 && has avx512_bf16 && has avx512_vnni; then
    VARIANT=sapphirerapids
  elif has avx512_bf16 && has avx512_vnni && has avx512vbmi; then
    VARIANT=zen4
  elif has avx512_vnni && has avx512vbmi; then
    VARIANT=icelake
  elif has avx512_vnni; then
    VARIANT=cascadelake
  elif has avx512f; then
    VARIANT=skylakex
  elif has avx_vnni && has avx2; then
    VARIANT=alderlake
  elif has avx2; then
    VARIANT=haswell
  else
    VARIANT=x64
  fi
fi

llc="${LLC_BYTES:-}"
if [[ -z "$llc" ]]; then
  size="$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo 32M)"
  case "$size" in
    *K) llc=$(( ${size%K} * 1024 )) ;;
    *M) llc=$(( ${size%M} * 1024 * 1024 )) ;;
    *) llc="$size" ;;
  esac
fi

"$cc" -O2 -pthread -o "$work_dir/ggml_gemv" "$here/ggml_gemv.c" \
  -L"$libs" -l:"libggml-cpu-$VARIANT.so" -l:libggml-base.so \
  -Wl,-rpath,"$libs"
echo "ggml from @node-llama-cpp/linux-x64 ($(ls "$work_dir"/node-llama-cpp-linux-x64-*.tgz | sed 's/.*-x64-//; s/.tgz//')), libggml-cpu-$VARIANT.so"
# TYPE:N:K:M, the shapes of bench/linear_*.mlir.
cases="${CASES:-q4_0:4096:4096:1 q4_0:4096:4096:8 q4_0:4096:4096:32
  q4_0:4096:4096:128 q4_0:4096:4096:512 q4_0:11008:4096:1 mxfp4:4096:4096:1 mxfp4:4096:4096:8 mxfp4:4096:4096:32
  mxfp4:11008:4096:1 q4_K:4096:4096:1}"
buffers="${BUFFERS:-plain CPU_REPACK AMX}"
for t in $threads; do
  for c in $cases; do
    IFS=: read -r type n k m <<< "$c"
    for buffer in $buffers; do
      "$work_dir/ggml_gemv" "$type" "$n" "$k" "$m" "$calls" "$t" "$llc" \
        "$buffer" || echo "ggml $type $n x $k, M = $m: no $buffer result (see above)"
    done
  done
done
