#!/usr/bin/env bash
# Builds a self-contained bundle of the NVVM pipeline's executable checks and
# of the GPU GEMV benchmark, for a machine with an NVIDIA GPU but without
# Debian's MLIR (a rented GPU machine, say): every module is compiled here
# (quant-opt --quant-block-nvvm-pipeline, format=fatbin), translated to LLVM
# IR and compiled ahead of time (mlir-translate, llc) into an executable that
# links only the CUDA wrappers and the runner utilities copied beside it. The
# expected outputs come from the CPU pipeline, run here.
#
#   bench/gpu/bundle.sh OUT          # here: build the bundle in OUT
#   OUT/run.sh RESULTS               # there: run it, results in RESULTS
#
# Environment: BUILD (default build), LLVM (default /usr/lib/llvm-22),
# CHIP (default sm_90), CUDA_HOME (default /usr/local/cuda), CHECKS (a
# comma-separated subset of the checks' names; default all), BENCH (0: no
# benchmark) and for the benchmark ITERS, WARMUP, COPY_MIB, SHAPES (as
# bench/gpu/run.sh).
#
# The cases (OUT/cases.txt, `name kind`):
#   exact      a test's `main` (test/Integration, test/GPU): its output on the
#              GPU must be the CPU pipeline's, character for character (the
#              numerics contract holds on every target)
#   reassoc    the same for a test with fastmath<reassoc> sums: the printed
#              numbers may differ within a relative 1e-5 (reassoc-bits: the
#              printed integers are f32 bit patterns, compared as values)
#   matmul     test/GPU/Inputs/gpu_matmul_kernels.py: its `check GPU CPU`
#              (the GPU's bits are the warp kernels' documented order);
#              matmul-tc: its cases of 16 or more activation rows
#              (`--cases tensor-cores`, the tensor-core kernel);
#              matmul-kS[cC]: the same with `--split-k S` (and
#              `--chunk-words C`)
#   reduction  test/GPU/Inputs/reduction_gemv.py (matmul-kernels=false):
#              its `check CPU GPU`
# and bench-pipeline/, bench-hand/, bench-pipeline-r1/: gen.py's GEMV
# modules and copy module, which run.sh runs as bench/gpu/run.sh would and
# tabulates with table.py; bench-resident/: the GEMV with device-resident
# weights (resident.py's modules linked with resident_driver.c), hot and
# cold (rotated over 32 copies of the weight), tabulated by
# resident_table.py (RESIDENT_SHAPES: its shapes; RESIDENT_VARIANTS: the
# FMA cases again with other pipeline options, `suffix:opt,opt ...`, empty
# for none; RESIDENT_PREFILL: the row counts M of the int8 prefill products,
# `<case>_i8_m<M>`, each also as `..._warp` with tensor-cores=false, empty
# for none; RESIDENT_HALF_PREFILL: those of the f16 and bf16 prefill
# products, `<case>_f16_m<M>` / `<case>_bf16_m<M>`, 256 by default: the
# issue's target is half the dense f16 peak there; RESIDENT_ROWS_VARIANTS:
# the M = 256 prefill products again with other activation rows per warp of
# the tensor-core kernels, `suffix:opt,opt ...` as RESIDENT_VARIANTS,
# tensor-core-rows 16 and 64 by default); llama_*/: the LLaMA model (see
# LLAMA below).
#
# The runner utilities of Debian's LLVM name libMLIR and libLLVM as needed
# libraries without using any of their symbols: the bundle carries empty
# stand-ins for them (lib/), so that nothing of LLVM must be installed there.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUT" >&2; exit 2
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${BUILD:-$ROOT/build}" && pwd)
LLVM=${LLVM:-/usr/lib/llvm-22}
CHIP=${CHIP:-sm_90}
# Exported: the NVVM target finds libdevice (exp, sqrt in the LLaMA
# model's kernels) under $CUDA_HOME/nvvm/libdevice.
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PYTHON=${PYTHON:-/usr/bin/python3}
QUANT_OPT=$BUILD/bin/quant-opt
export PATH="$CUDA_HOME/bin:$LLVM/bin:$PATH"
OUT=$1
rm -rf "$OUT"
mkdir -p "$OUT/lib" "$OUT/cases" "$OUT/log"
OUT=$(cd "$OUT" && pwd)
RUNNER_LIBS=$LLVM/lib/libmlir_runner_utils.so,$LLVM/lib/libmlir_c_runner_utils.so

# The libraries, and the empty stand-ins for what they name but do not use.
cp "$BUILD/lib/libQuantBlockCudaRuntime.so" \
  "$LLVM/lib/libmlir_runner_utils.so.22.1" \
  "$LLVM/lib/libmlir_c_runner_utils.so.22.1" \
  "$LLVM/lib/libmlir_float16_utils.so.22.1" "$OUT/lib/"
echo 'void quant_block_bundle_stub(void) {}' > "$OUT/log/stub.c"
for soname in libMLIR.so.22.1 libLLVM.so.22.1 libmlir_apfloat_wrappers.so.22.1; do
  cc -shared -fPIC "$OUT/log/stub.c" -o "$OUT/lib/$soname" -Wl,-soname,$soname
done
# A module's `main` is renamed: the executable's own main calls it.
printf 'void quant_block_module_main(void);\nint main(void) {\n  quant_block_module_main();\n  return 0;\n}\n' \
  > "$OUT/log/driver.c"
cc -c -O2 "$OUT/log/driver.c" -o "$OUT/log/driver.o"

# aot LOWERED_MLIR EXE: the host module (LLVM dialect and gpu.binary) to an
# executable.
aot() {
  local in=$1 exe=$2
  mlir-translate --mlir-to-llvmir "$in" -o "$exe.ll"
  llc -O2 -relocation-model=pic -filetype=obj "$exe.ll" -o "$exe.o"
  llvm-objcopy --redefine-sym main=quant_block_module_main "$exe.o"
  cc "$OUT/log/driver.o" "$exe.o" -o "$exe" -L"$OUT/lib" \
    -lQuantBlockCudaRuntime -l:libmlir_runner_utils.so.22.1 \
    -l:libmlir_c_runner_utils.so.22.1 -lm \
    -Wl,-rpath-link,"$LLVM/lib" -Wl,-rpath,'$ORIGIN/../lib'
  rm -f "$exe.ll" "$exe.o"
}

cpu_run() {
  "$LLVM/bin/mlir-runner" -e main --entry-point-result=void \
    --shared-libs="$RUNNER_LIBS"
}

FAILED=0
# add NAME KIND SOURCE CPU_OPTIONS [NVVM_PIPELINE_OPTIONS]
add() {
  local name=$1 kind=$2 src=$3 cpu_opts=$4 gpu_opts=${5:-format=fatbin}
  if [ -n "${CHECKS:-}" ] && [[ ",$CHECKS," != *",$name,"* ]]; then
    return
  fi
  if ! "$QUANT_OPT" "$src" $cpu_opts 2>"$OUT/log/$name.cpu.err" | cpu_run \
      >"$OUT/cases/$name.expected" 2>>"$OUT/log/$name.cpu.err"; then
    echo "error: $name: the CPU pipeline's run failed ($OUT/log/$name.cpu.err)" >&2
    FAILED=1; return
  fi
  if ! "$QUANT_OPT" "$src" \
      --quant-block-nvvm-pipeline="chip=$CHIP $gpu_opts" \
      -o "$OUT/log/$name.gpu.mlir" 2>"$OUT/log/$name.gpu.err"; then
    echo "error: $name: --quant-block-nvvm-pipeline failed:" >&2
    head -5 "$OUT/log/$name.gpu.err" >&2
    FAILED=1; return
  fi
  aot "$OUT/log/$name.gpu.mlir" "$OUT/cases/$name"
  rm -f "$OUT/log/$name.gpu.mlir"
  echo "$name $kind" >> "$OUT/cases.txt"
}

T=$ROOT/test
CPU=--quant-block-cpu-pipeline
for f in int4-linear int4-roundtrip int8-dot kquant-super-blocks layout-ops \
         mx-scale-rounding nvfp4 ocp-floats quant-dcast-dynamic \
         quantize-dynamic-ragged quantize-dynamic slice-within-block; do
  add "$f" exact "$T/Integration/$f.mlir" "$CPU"
done
# PTX, compiled by the driver when the module loads.
add int4-linear-ptx exact "$T/Integration/int4-linear.mlir" "$CPU" format=isa
add mxfp6 exact "$T/Integration/mxfp6.mlir" \
  "--convert-quant-block-to-linalg $CPU"
add linear-frontend reassoc "$T/Integration/linear-frontend.mlir" "$CPU"
for f in dynamic-shapes gemv int8-blockwise kquant-int8 mxfp8; do
  add "gpu-$f" exact "$T/GPU/$f.mlir" "$CPU"
done
add gpu-gemv-reassoc reassoc-bits "$T/GPU/gemv-reassoc.mlir" \
  "$CPU=matmul-kernels=false"
"$PYTHON" "$T/GPU/Inputs/gpu_matmul_kernels.py" emit > "$OUT/log/matmul.mlir"
add matmul-kernels matmul "$OUT/log/matmul.mlir" "$CPU"
# The tensor-core kernel (mma.sync.m16n8k32, from sm_80 on): its cases of
# 16 or more activation rows, bit for bit the contract's order. (The CPU
# pipeline without OpenMP: cpu_run loads no libomp.)
"$PYTHON" "$T/GPU/Inputs/gpu_matmul_kernels.py" emit --cases tensor-cores \
  > "$OUT/log/matmul-tc.mlir"
add matmul-tensor-cores matmul-tc "$OUT/log/matmul-tc.mlir" "$CPU=parallel=false"
# The kernels before split-K, and with 8 warps per row and one-word chunks.
add matmul-kernels-k1 matmul-k1 "$OUT/log/matmul.mlir" "$CPU" \
  "format=fatbin split-k=1"
add matmul-kernels-k8c1 matmul-k8c1 "$OUT/log/matmul.mlir" "$CPU" \
  "format=fatbin matmul-workgroup-size=256 split-k=8 chunk-words=1"
add int4-linear-wg1 exact "$T/Integration/int4-linear.mlir" "$CPU" \
  "format=fatbin workgroup-size=1"
"$PYTHON" "$T/GPU/Inputs/reduction_gemv.py" emit > "$OUT/log/reduction.mlir"
add reductions reduction "$OUT/log/reduction.mlir" "$CPU" \
  "format=fatbin matmul-kernels=false"
cp "$T/GPU/Inputs/gpu_matmul_kernels.py" "$T/GPU/Inputs/reduction_gemv.py" \
  "$ROOT/bench/gpu/bundle_compare.py" "$ROOT/bench/gpu/table.py" "$OUT/"

touch "$OUT/cases.txt"
# The benchmark: as bench/gpu/run.sh compiles it, for the one chip.
# pipeline-r1: the pipeline's kernels with one weight row per warp (the
# kernels before rows-per-warp), to compare in the same run.
FORMS="pipeline hand pipeline-r1"
[ "${BENCH:-1}" = 0 ] && FORMS=
for form in $FORMS; do
  dir=$OUT/bench-$form
  mkdir -p "$dir"
  options=
  [ "$form" = pipeline-r1 ] && options=rows-per-warp=1
  "$PYTHON" "$ROOT/bench/gpu/gen.py" --out "$dir" --form "${form%-r1}" \
    --iters "${ITERS:-100}" --warmup "${WARMUP:-10}" \
    --copy-mib "${COPY_MIB:-1024}" --shapes "${SHAPES:-4096x4096,11008x4096}"
  for name in copy $(cut -d' ' -f1 "$dir/cases.txt"); do
    if [ "$name" = copy ] || [ "$form" = hand ]; then
      mlir-opt "$dir/$name.mlir" -o "$dir/$name.bin.mlir" \
        --gpu-lower-to-nvvm-pipeline="cubin-chip=$CHIP cubin-features=+ptx80 cubin-format=fatbin"
    else
      "$QUANT_OPT" "$dir/$name.mlir" -o "$dir/$name.bin.mlir" \
        --quant-block-nvvm-pipeline="chip=$CHIP format=fatbin $options"
    fi
    aot "$dir/$name.bin.mlir" "$dir/$name"
    rm -f "$dir/$name.bin.mlir" "$dir/$name.mlir"
  done
done
# The device-resident GEMV (bench/gpu/resident.py): each module with the
# C driver that uploads the weight once and rotates over copies of it.
if [ "${BENCH:-1}" != 0 ]; then
  dir=$OUT/bench-resident
  mkdir -p "$dir"
  (cd "$ROOT/bench/gpu" && "$PYTHON" resident.py --out "$dir" --fma --int8 \
    --shapes "${RESIDENT_SHAPES:-4096x4096,11008x4096,4096x11008}" \
    --prefill "${RESIDENT_PREFILL-16,64,256}" \
    --half-prefill "${RESIDENT_HALF_PREFILL-256}")
  cc -c -O2 -I"$ROOT/include" "$ROOT/bench/gpu/resident_driver.c" \
    -o "$OUT/log/resident_driver.o"
  # add_variants PATTERN VARIANTS: every case whose name matches PATTERN
  # again, compiled from the same module, once per `suffix:options` of
  # VARIANTS (pipeline options, commas for spaces), to compare in one run.
  : > "$dir/variants.txt"
  add_variants() {
    local pattern=$1 variant suffix name rest
    for variant in $2; do
      suffix=${variant%%:*}
      while read -r name rest; do
        case $name in $pattern)
          cp "$dir/$name.mlir" "$dir/$name$suffix.mlir"
          echo "$name$suffix ${variant#*:}" >> "$dir/variants.txt"
          echo "$name$suffix $rest" >> "$dir/cases.extra" ;;
        esac
      done < "$dir/cases.txt"
    done
  }
  # Launch shapes of the FMA cases; split-k=1 is the kernel before split-K.
  add_variants '*_fma' "${RESIDENT_VARIANTS-"_k1:split-k=1 _c1:chunk-words=1 _c4:chunk-words=4 _c1r8:chunk-words=1,rows-per-warp=8"}"
  # The prefill products (int8 activations, M rows) also with the warp
  # kernel (tensor-cores=false: dp4a, 8 rows per workgroup).
  add_variants '*_i8_m*' "_warp:tensor-cores=false"
  # The largest prefill products (M = 256: int8, f16, bf16) also with 16
  # and 64 activation rows per warp of the tensor-core kernels (the default
  # chooses 32 or 64 from the launch's warps, docs/GPU.md).
  add_variants '*_m256' "${RESIDENT_ROWS_VARIANTS-"_r16:tensor-core-rows=16 _r64:tensor-core-rows=64"}"
  [ -f "$dir/cases.extra" ] && cat "$dir/cases.extra" >> "$dir/cases.txt" &&
    rm "$dir/cases.extra"
  for name in $(cut -d' ' -f1 "$dir/cases.txt"); do
    options=$(awk -v n="$name" '$1 == n { print $2 }' "$dir/variants.txt" |
      tr , ' ')
    "$QUANT_OPT" "$dir/$name.mlir" -o "$dir/$name.bin.mlir" \
      --quant-block-nvvm-pipeline="chip=$CHIP format=fatbin $options"
    mlir-translate --mlir-to-llvmir "$dir/$name.bin.mlir" -o "$dir/$name.ll"
    llc -O2 -relocation-model=pic -filetype=obj "$dir/$name.ll" -o "$dir/$name.o"
    cc "$OUT/log/resident_driver.o" "$dir/$name.o" -o "$dir/$name" \
      -L"$OUT/lib" -lQuantBlockCudaRuntime -l:libmlir_runner_utils.so.22.1 \
      -l:libmlir_c_runner_utils.so.22.1 -lm \
      -Wl,-rpath-link,"$LLVM/lib" -Wl,-rpath,'$ORIGIN/../lib'
    rm -f "$dir/$name.bin.mlir" "$dir/$name.ll" "$dir/$name.o" "$dir/$name.mlir"
  done
  cp "$ROOT/bench/gpu/resident_table.py" "$OUT/"
fi
# The LLaMA model (bench/gpu/llama_bundle.py): tiny models checked against
# the CPU's logits (LLAMA_CHECKS, MIX:ACTIVATIONS) and LLaMA-7B-shaped ones
# of LLAMA_LAYERS layers timed, pp / tg (LLAMA_BENCH: mixes; LLAMA_PP,
# LLAMA_TG; LLAMA_SHAPE=tiny: the checks' shape, for tests), each forward
# function a library that llama_run.py calls there. LLAMA=0: none.
if [ "${LLAMA:-1}" != 0 ]; then
  if "$PYTHON" "$ROOT/bench/gpu/llama_bundle.py" --out "$OUT" --build "$BUILD" \
      --libs "$OUT/lib" \
      --pipeline "quant-block-nvvm-pipeline{chip=$CHIP format=fatbin}" \
      --checks "${LLAMA_CHECKS-Q4_0:int8,Q4_K_M:int8,Q4_K_M:f32}" \
      --bench "${LLAMA_BENCH-Q4_0,Q4_K_M}" --bench-layers "${LLAMA_LAYERS:-4}" \
      --bench-shape "${LLAMA_SHAPE:-7b}" \
      --pp "${LLAMA_PP:-512}" --tg "${LLAMA_TG:-128}" >"$OUT/log/llama.log" 2>&1
  then
    cp "$ROOT/bench/gpu/llama_run.py" "$OUT/"
  else
    echo "error: bench/gpu/llama_bundle.py failed:" >&2
    tail -5 "$OUT/log/llama.log" >&2
    FAILED=1
  fi
fi
cp "$ROOT/bench/gpu/bundle_run.sh" "$OUT/run.sh"
chmod +x "$OUT/run.sh"
echo "bundle: $(wc -l < "$OUT/cases.txt") checks, $(cat "$OUT/llama-models.txt" 2>/dev/null | wc -l) LLaMA models and $(echo $FORMS | wc -w) benchmark forms for $CHIP in $OUT"
exit $FAILED
