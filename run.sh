#!/usr/bin/env bash
#===- run.sh - set up, build, demo and test quant-block ----------------===//
#
# The two README commands:
#   ./run.sh demo      installs what is missing (as root, from Debian's
#                      archive), builds, compiles the examples in examples/,
#                      writes, imports, compiles and runs a quantized LLaMA
#                      GGUF model (beside llama.cpp where npm has it), and a
#                      quantized two-layer ONNX model
#   ./run.sh test      installs what is missing, builds, and runs every test
#                      suite (lit + GoogleTest + pytest, all under ctest), then
#                      the sanitizer lane below; fails if either lane fails
# and the lanes on their own:
#   ./run.sh normal    the normal build and suites only
#   ./run.sh sanitize  clang-22 with ASan + UBSan and libFuzzer in
#                      build-sanitize/: the suites (a documented subset, see
#                      sanitize_skip) and a short run of each fuzz target
#
# Environment: BUILD_DIR (default: build), SANITIZE_BUILD_DIR (default:
# build-sanitize), JOBS (default: nproc), FUZZ_SECONDS (per fuzz target,
# default 60), QUANT_BLOCK_CONFORMANCE_DIR (default: test/Conformance/vectors,
# the copy in the repository; set it only to test against another copy).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
build_dir="${BUILD_DIR:-$here/build}"
sanitize_dir="${SANITIZE_BUILD_DIR:-$here/build-sanitize}"
jobs="${JOBS:-$(nproc)}"

# Debian packages the project builds and tests with. Nothing is vendored.
# The Vulkan ones run the SPIR-V tests on the CPU (Mesa's lavapipe).
packages=(
  cmake ninja-build g++ git
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libomp-22-dev
  libgtest-dev python3 python3-numpy python3-pytest python3-onnx
  mesa-vulkan-drivers libvulkan-dev vulkan-tools spirv-tools
)
# ... and for the sanitizer lane.
sanitize_packages=(clang-22 libclang-rt-22-dev libfuzzer-22-dev)
# Optional: ONNX Runtime (npm's onnxruntime-node under Debian's node) is the
# reference the ONNX importer's test compares with; the test reports itself
# skipped, with the reason, where it is missing.
optional_packages=(nodejs npm)

install_missing() {
  local missing=()
  for pkg in "$@"; do
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

# configure_and_build DIR [cmake flags...]
configure_and_build() {
  local dir="$1"
  shift
  local extra=("$@")
  [[ -n "${QUANT_BLOCK_CONFORMANCE_DIR:-}" ]] &&
    extra+=("-DQUANT_BLOCK_CONFORMANCE_DIR=$QUANT_BLOCK_CONFORMANCE_DIR")
  if command -v ccache >/dev/null && [[ -z "${CI:-}" ]]; then
    extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
      -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  echo "== configuring in $dir"
  cmake -G Ninja -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    "${extra[@]}" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
  echo "== building with $jobs jobs"
  cmake --build "$dir" -j "$jobs"
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
  # The same kind of program on a GPU target: Vulkan on whatever device the
  # loader finds (Mesa's lavapipe on the CPU here), with the project's own
  # mgpu* runtime wrappers; it must print the CPU pipeline's bits.
  local vulkan_rt="$build_dir/lib/libQuantBlockVulkanRuntime.so"
  local example=test/GPU/gemv.mlir
  if [ -f "$vulkan_rt" ] && vulkaninfo --summary 2>/dev/null |
      grep -q deviceName; then
    echo "== $example: compiled with --quant-block-spirv-pipeline, run on Vulkan"
    "$opt" "$example" --quant-block-spirv-pipeline |
      /usr/lib/llvm-22/bin/mlir-runner -e main --entry-point-result=void \
        --shared-libs="$vulkan_rt,$lib/libmlir_runner_utils.so,$lib/libmlir_c_runner_utils.so"
    echo "   and with --quant-block-cpu-pipeline (the same bits):"
    "$opt" "$example" --quant-block-cpu-pipeline |
      /usr/lib/llvm-22/bin/mlir-runner -e main --entry-point-result=void \
        --shared-libs="$lib/libmlir_runner_utils.so,$lib/libmlir_c_runner_utils.so"
    echo
  else
    echo "== (no Vulkan device or runtime library: the GPU example is skipped)"
  fi
  echo "== examples/llama_demo.py: a quantized LLaMA model (GGUF, Q4_K_M) imported,"
  echo "   compiled and run: tokens/s and agreement with exact math and llama.cpp"
  install_onnxruntime
  PYTHONPATH="$build_dir/python" QUANT_BLOCK_BINARY_DIR="$build_dir" \
    /usr/bin/python3 examples/llama_demo.py
  echo
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
  # ggml's prebuilt libraries (npm's @node-llama-cpp/linux-x64): the oracle
  # of the GGUF tests that compare with ggml's own quantizers, writer and
  # to_float (python/tests/test_gguf*.py skip them, saying why, without it).
  local ggml_dir="$build_dir/npm/ggml"
  if command -v npm >/dev/null &&
    [[ ! -f "$ggml_dir/package/bins/linux-x64/libggml-base.so" ]]; then
    echo "== fetching ggml's prebuilt libraries into $ggml_dir"
    mkdir -p "$ggml_dir"
    (cd "$ggml_dir" &&
      npm pack --silent @node-llama-cpp/linux-x64@3.22.1 >/dev/null &&
      tar xzf node-llama-cpp-linux-x64-*.tgz && rm -f node-llama-cpp-linux-x64-*.tgz) ||
      echo "(the ggml package is unavailable: the GGUF tests against ggml are skipped)"
  fi
}

# The lit features the packages above provide. Without one, the tests that
# REQUIRES it would pass as UNSUPPORTED; with QUANT_BLOCK_LIT_REQUIRE naming
# it, lit stops and says what is missing (test/lit.cfg.py). Set
# QUANT_BLOCK_LIT_REQUIRE yourself (empty: require nothing) to override.
lit_features="libomp spirv-val"

run_tests() {
  install_onnxruntime
  echo "== running every suite under ctest"
  QUANT_BLOCK_LIT_REQUIRE="${QUANT_BLOCK_LIT_REQUIRE-$lit_features vulkan}" \
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
}

# The sanitizer lane's subset of the suites: every lit, GoogleTest, C API and
# pytest test except these (regex for ctest -E, and the reason printed).
sanitize_skip='^lit-x86-64|^embedding/cmake-package$|^python/|^lit/GPU/SPIRV/|^lit/GPU/CUDA/bench-gpu-|^lit/GPU/CUDA/bundle\.test$|^lit/Differential/differential_(fastmath|bench)|^lit/(Runner|Pipelines)/bench-kernels|^lit/Runner/bench-aot'
sanitize_skip_reasons=(
  "lit-x86-64-*/: the executed suites again for other x86-64 levels; the
     host-side code they run is the same as in lit/, and they would triple
     the lane's time"
  "embedding/cmake-package: the consumer is built by the system compiler
     without sanitizer flags against the instrumented static libraries"
  "python/*: Debian's python3 is not instrumented and cannot load the
     instrumented libQuantBlockCAPI.so (the ASan runtime must come first);
     the C API itself is covered by the C tests in lit/CAPI"
  "lit/GPU/SPIRV/*, lit/GPU/CUDA/bench-gpu-*, bundle.test: one test runs both the
     instrumented quant-opt (ASan linked statically) and Debian's mlir-runner
     loading the instrumented runtime wrappers (which needs the shared ASan
     runtime preloaded, and the two runtimes refuse to meet in one process
     tree under one LD_PRELOAD). The pipelines' passes run under ASan in
     lit/GPU/*.mlir and lit/GPU/NVVM/, the wrappers in lit/GPU/Vulkan/ and
     lit/GPU/CUDA/"
  "lit/Differential/differential_fastmath*, differential_bench*, the
     bench-kernels and bench-aot tests: the same passes on kernels of
     benchmark size in many configurations (the other differential tests
     and lit/Integration run those passes under ASan here); they took a
     quarter of the lane's test time (230 of 990 s on 2 cores)"
)

# Debian's libMLIR.so / libLLVM.so are not instrumented: LLVM's allocators,
# inlined into our code, poison memory that uninstrumented code then writes,
# so user poisoning is ignored (docs/Fuzzing.md). UBSan findings are fatal
# (-fno-sanitize-recover=all), and print a stack.
sanitizer_env() {
  export ASAN_OPTIONS="allow_user_poisoning=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
}

sanitize() {
  install_missing "${packages[@]}" "${sanitize_packages[@]}"
  CC=clang-22 CXX=clang++-22 configure_and_build "$sanitize_dir" \
    -DQUANT_BLOCK_ENABLE_FUZZING=ON
  sanitizer_env
  echo "== sanitizer lane: the suites under ASan + UBSan, except:"
  printf '   %s\n' "${sanitize_skip_reasons[@]}"
  QUANT_BLOCK_LIT_REQUIRE="${QUANT_BLOCK_LIT_REQUIRE-$lit_features}" \
    ctest --test-dir "$sanitize_dir" --output-on-failure -j "$jobs" \
    -E "$sanitize_skip"
  "$here/tools/fuzz/run-fuzzers.sh" "$sanitize_dir" "${FUZZ_SECONDS:-60}"
}

case "${1:-}" in
demo)
  install_missing "${packages[@]}"
  configure_and_build "$build_dir"
  demo
  ;;
normal)
  install_missing "${packages[@]}"
  configure_and_build "$build_dir"
  run_tests
  ;;
sanitize)
  sanitize
  ;;
test)
  # Both lanes run even if the first fails; the exit status says whether
  # both passed.
  failed=()
  time_normal=$SECONDS
  ("$here/run.sh" normal) || failed+=(normal)
  time_normal=$((SECONDS - time_normal))
  time_sanitize=$SECONDS
  ("$here/run.sh" sanitize) || failed+=(sanitize)
  time_sanitize=$((SECONDS - time_sanitize))
  echo "== lanes: normal ${time_normal}s, sanitize ${time_sanitize}s"
  if ((${#failed[@]})); then
    echo "== FAILED lanes: ${failed[*]}" >&2
    exit 1
  fi
  ;;
*)
  echo "usage: $0 demo|test|normal|sanitize" >&2
  exit 2
  ;;
esac
