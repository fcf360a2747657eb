#!/usr/bin/env bash
# GPU GEMV benchmark: int4 block-32 (f16 scales) and MXFP4 at LLaMA-7B shapes
# (N, K) = (4096, 4096) and (11008, 4096), M = 1, against the device memory
# bandwidth measured in the same run. See bench/README.md (GPU section).
#
#   bench/gpu/run.sh [nvvm|spirv]
#
# Environment: BUILD (build directory, default build), FORM (auto | pipeline
# | hand; auto takes the quant_block pipeline when quant-opt has it, else, for
# nvvm, the hand-written kernel), ITERS / WARMUP (timed / warm-up calls),
# COPY_MIB (size of the bandwidth copy), SHAPES (NxK,...), CHIP (default: the
# GPU's, else sm_80), OUT (where modules and logs go), PIPELINE_OPTIONS
# (appended to the pipeline's options of the pipeline form, e.g.
# `matmul-kernels=false` for the generic lowering of the GEMV).
#
# nvvm without an NVIDIA GPU: compiles every module for sm_80 and sm_90
# through ptxas (gpu-module-to-binary format=bin), says that there is no GPU
# and exits 0. spirv: runs the modules on whatever Vulkan device the loader
# finds (lavapipe on the CPU here); a smoke test, not a measurement.
set -euo pipefail

TARGET=${1:-nvvm}
PIPELINE_OPTIONS=${PIPELINE_OPTIONS:-}
case "$TARGET" in
  nvvm|spirv) ;;
  *) echo "usage: $0 [nvvm|spirv]" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${BUILD:-$ROOT/build}" && pwd)
LLVM=${LLVM:-/usr/lib/llvm-22}
MLIR_OPT=$LLVM/bin/mlir-opt
MLIR_RUNNER=$LLVM/bin/mlir-runner
QUANT_OPT=$BUILD/bin/quant-opt
PYTHON=${PYTHON:-/usr/bin/python3}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# gpu-module-to-binary runs ptxas / fatbinary from PATH.
export PATH="$CUDA_HOME/bin:$PATH"
FORM=${FORM:-auto}
OUT=${OUT:-$BUILD/bench-gpu/$TARGET}
RUNNER_LIBS=$LLVM/lib/libmlir_runner_utils.so,$LLVM/lib/libmlir_c_runner_utils.so

if [ "$TARGET" = nvvm ]; then
  PASS=quant-block-nvvm-pipeline
  WRAPPER=$BUILD/lib/libQuantBlockCudaRuntime.so
  ITERS=${ITERS:-100}; WARMUP=${WARMUP:-10}; COPY_MIB=${COPY_MIB:-1024}
else
  PASS=quant-block-spirv-pipeline
  WRAPPER=$BUILD/lib/libQuantBlockVulkanRuntime.so
  ITERS=${ITERS:-3}; WARMUP=${WARMUP:-1}; COPY_MIB=${COPY_MIB:-64}
fi
SHAPES=${SHAPES:-4096x4096,11008x4096}

has_pass() {
  # Not grep -q: it would exit at the first match and, under pipefail, the
  # SIGPIPE of quant-opt would fail the test.
  [ -x "$QUANT_OPT" ] && "$QUANT_OPT" --help 2>/dev/null | grep -- "--$PASS\b" > /dev/null
}
if [ "$FORM" = auto ]; then
  if has_pass; then
    FORM=pipeline
  elif [ "$TARGET" = nvvm ]; then
    FORM=hand
    echo "note: $QUANT_OPT has no --$PASS; using the hand-written gpu-dialect kernel" >&2
  else
    echo "error: $QUANT_OPT has no --$PASS (the SPIR-V pipeline is not built" \
         "into this quant-opt); nothing to run" >&2
    exit 1
  fi
fi
if [ "$FORM" = hand ] && [ "$TARGET" = spirv ]; then
  echo "error: the hand form is NVVM only" >&2; exit 2
fi
if [ "$FORM" = pipeline ] && ! has_pass; then
  echo "error: $QUANT_OPT has no --$PASS" >&2; exit 1
fi

# A usable NVIDIA GPU: the driver loads, initializes and has a device; prints
# its compute capability as chip=sm_XY. QUANT_BLOCK_LIBCUDA names another driver
# library, as for the wrappers (the tests use a mock driver).
nvidia_chip() {
  "$PYTHON" - <<'EOF'
import ctypes, os, sys
try:
    cuda = ctypes.CDLL(os.environ.get("QUANT_BLOCK_LIBCUDA") or "libcuda.so.1")
except OSError as e:
    sys.exit(f"no NVIDIA driver ({e})")
n, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value == 0:
    sys.exit("the NVIDIA driver finds no usable GPU")
cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, 0)
cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0)
print(f"chip=sm_{major.value}{minor.value}")
EOF
}

rm -rf "$OUT"
mkdir -p "$OUT"
GEN_FORM=$FORM
"$PYTHON" "$ROOT/bench/gpu/gen.py" --out "$OUT" --form "$GEN_FORM" \
  --iters "$ITERS" --warmup "$WARMUP" --copy-mib "$COPY_MIB" --shapes "$SHAPES"
CASES=$(cut -d' ' -f1 "$OUT/cases.txt")

# compile NAME CHIP FORMAT -> $OUT/NAME.CHIP.FORMAT.mlir
compile() {
  local name=$1 chip=$2 format=$3 in="$OUT/$1.mlir" out="$OUT/$1.$2.$3.mlir"
  if [ "$name" = copy ] || [ "$FORM" = hand ]; then
    # The copy module has host code only; the hand form has its kernel in
    # the gpu dialect already: upstream's pipeline lowers both.
    "$MLIR_OPT" "$in" -o "$out" \
      --gpu-lower-to-nvvm-pipeline="cubin-chip=$chip cubin-features=+ptx80 cubin-format=$format"
  else
    "$QUANT_OPT" "$in" -o "$out" --$PASS="chip=$chip format=$format $PIPELINE_OPTIONS"
  fi
}

# run NAME MODULE [env...]: stdout to $OUT/NAME.out, stderr to NAME.err.
run_module() {
  local name=$1 module=$2; shift 2
  env "$@" "$MLIR_RUNNER" "$module" -e main --entry-point-result=void \
    --shared-libs="$WRAPPER,$RUNNER_LIBS" >"$OUT/$name.out" 2>"$OUT/$name.err" || {
      echo "error: $name failed:" >&2; tail -5 "$OUT/$name.err" >&2; return 1; }
}

if [ "$TARGET" = nvvm ]; then
  # Always: every module through ptxas for both chips the project supports.
  for name in copy $CASES; do
    for chip in sm_80 sm_90; do
      compile "$name" "$chip" bin
    done
  done
  echo "compiled copy + $(echo $CASES | wc -w) GEMV modules ($FORM form): ptxas accepted them for sm_80 and sm_90"
  if ! CHIP_FOUND=$(nvidia_chip 2>"$OUT/gpu-probe.err"); then
    echo "no NVIDIA GPU here: $(cat "$OUT/gpu-probe.err"); not running the benchmark"
    exit 0
  fi
  # Only the chip= line: a mock driver prints too.
  CHIP_FOUND=$(printf '%s\n' "$CHIP_FOUND" | sed -n 's/^chip=//p' | tail -1)
  CHIP=${CHIP:-$CHIP_FOUND}
  if [ ! -f "$WRAPPER" ]; then
    echo "error: $WRAPPER not built (CUDA headers not found at configure time?)" >&2
    exit 1
  fi
  for name in copy $CASES; do
    compile "$name" "$CHIP" fatbin
  done
  run_module copy "$OUT/copy.$CHIP.fatbin.mlir"
  for name in $CASES; do
    run_module "$name" "$OUT/$name.$CHIP.fatbin.mlir"
    run_module "$name.profiled" "$OUT/$name.$CHIP.fatbin.mlir" QUANT_BLOCK_CUDA_PROFILE=1
    cp "$OUT/$name.profiled.err" "$OUT/$name.prof"
  done
  echo "device: $CHIP_FOUND ($( (command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | head -1) || echo unknown name))"
else
  if [ ! -f "$WRAPPER" ]; then
    echo "error: $WRAPPER not built" >&2; exit 1
  fi
  if command -v vulkaninfo >/dev/null; then
    echo "Vulkan device: $(vulkaninfo --summary 2>/dev/null | grep -m1 deviceName | sed 's/.*= //')"
  fi
  # The copy module is host code only: lower it like the host side of the
  # SPIR-V pipeline.
  "$MLIR_OPT" "$OUT/copy.mlir" -o "$OUT/copy.host.mlir" \
    --pass-pipeline="builtin.module(gpu-to-llvm, convert-scf-to-cf, convert-cf-to-llvm, convert-arith-to-llvm, convert-func-to-llvm, finalize-memref-to-llvm, reconcile-unrealized-casts)"
  run_module copy "$OUT/copy.host.mlir"
  for name in $CASES; do
    "$QUANT_OPT" "$OUT/$name.mlir" -o "$OUT/$name.spirv.mlir" --$PASS="$PIPELINE_OPTIONS"
    run_module "$name" "$OUT/$name.spirv.mlir"
  done
fi
"$PYTHON" "$ROOT/bench/gpu/table.py" "$OUT" "$TARGET" "$FORM"
