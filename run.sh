#!/usr/bin/env bash
#===- run.sh - set up, build, demo and test quant-block ----------------===//
#
# The two README commands:
#   ./run.sh demo   installs what is missing (as root, from Debian's archive),
#                   builds, compiles the examples in examples/, and imports,
#                   compiles and runs a quantized two-layer ONNX model
#   ./run.sh test   installs what is missing, builds, and runs every test suite
#                   (lit + GoogleTest + pytest, all under ctest)
#
# Environment: BUILD_DIR (default: build), JOBS (default: nproc),
# QUANT_BLOCK_CONFORMANCE_DIR (default: test/Conformance/vectors, the copy in
# the repository; set it only to test against another copy).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
build_dir="${BUILD_DIR:-$here/build}"
jobs="${JOBS:-$(nproc)}"

# Debian packages the project builds and tests with. Nothing is vendored.
packages=(
  cmake ninja-build g++ git
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libgtest-dev python3 python3-numpy python3-pytest python3-onnx
)
# Optional: ONNX Runtime (npm's onnxruntime-node under Debian's node) is the
# reference the ONNX importer's test compares with; the test reports itself
# skipped, with the reason, where it is missing.
optional_packages=(nodejs npm)

install_missing() {
  local missing=()
  for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    if [[ $(id -u) -ne 0 ]]; then
      echo "error: missing packages and not root: ${missing[*]}" >&2
      exit 1
    fi
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      "${missing[@]}"
  fi
}

configure_and_build() {
  local extra=()
  [[ -n "${QUANT_BLOCK_CONFORMANCE_DIR:-}" ]] &&
    extra+=("-DQUANT_BLOCK_CONFORMANCE_DIR=$QUANT_BLOCK_CONFORMANCE_DIR")
  if command -v ccache >/dev/null && [[ -z "${CI:-}" ]]; then
    extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  echo "== configuring in $build_dir"
  cmake -G Ninja -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
    "${extra[@]}" >"$build_dir.configure.log" 2>&1 ||
    { cat "$build_dir.configure.log"; exit 1; }
  echo "== building with $jobs jobs"
  cmake --build "$build_dir" -j "$jobs"
}

demo() {
  local opt="$build_dir/bin/quant-opt"
  for example in examples/*.mlir; do
    echo
    echo "== $example: parse, verify and canonicalize with quant-opt"
    "$opt" "$example" --canonicalize
  done
  echo
  local lib=/usr/lib/llvm-22/lib
  for example in test/Integration/int4-linear.mlir \
    test/Integration/ocp-floats.mlir; do
    echo "== $example: compiled with --quant-block-cpu-pipeline and run"
    sed -n '1,/^\/\/ RUN/p' "$example" | grep -v RUN
    "$opt" "$example" --quant-block-cpu-pipeline |
      /usr/lib/llvm-22/bin/mlir-runner -e main --entry-point-result=void \
        --shared-libs="$lib/libmlir_runner_utils.so,$lib/libmlir_c_runner_utils.so"
    echo
  done
  echo "== examples/onnx_mlp_demo.py: an ONNX model with int4 MatMulNBits and"
  echo "   blocked int8 DequantizeLinear weights, imported, compiled and run"
  PYTHONPATH="$build_dir/python" /usr/bin/python3 examples/onnx_mlp_demo.py
  echo
  echo "== the quant_block passes and pipelines known to quant-opt"
  "$opt" --help | grep -E -- "--quant-block|--convert-quant-block" ||
    echo "(none registered yet)"
}

install_onnxruntime() {
  if [[ $(id -u) -eq 0 ]]; then
    local missing=()
    for pkg in "${optional_packages[@]}"; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
        missing+=("$pkg")
    done
    if ((${#missing[@]})); then
      DEBIAN_FRONTEND=noninteractive apt-get install -y \
        --no-install-recommends "${missing[@]}" || true
    fi
  fi
  if command -v npm >/dev/null &&
    [[ ! -d "$build_dir/npm/node_modules/onnxruntime-node" ]]; then
    echo "== installing onnxruntime-node into $build_dir/npm"
    npm install --ignore-scripts --no-audit --no-fund \
      --prefix "$build_dir/npm" onnxruntime-node@1.30 ||
      echo "(onnxruntime-node unavailable: its comparison test is skipped)"
  fi
}

run_tests() {
  install_onnxruntime
  echo "== running every suite under ctest"
  ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
}

case "${1:-}" in
demo)
  install_missing
  configure_and_build
  demo
  ;;
test)
  install_missing
  configure_and_build
  run_tests
  ;;
*)
  echo "usage: $0 demo|test" >&2
  exit 2
  ;;
esac
