#!/usr/bin/env python3
"""Lowers a test module (host `main` + gpu.module kernels) for the Vulkan
runtime with upstream MLIR 22 passes only, and prints the LLVM-dialect module.

usage: lower_to_vulkan.py MLIR_OPT INPUT [--kernels-only]

With --kernels-only, stops after step 2: the module then holds serializable
SPIR-V kernels and a host side still to be lowered (TO_BINARY_AND_LLVM, which
lit.local.cfg also gives quant-run as its --pipeline).

1. spirv-attach-target + convert-gpu-to-spirv. For a Vulkan (Shader) target
   MLIR 22 puts the spirv.module *beside* its gpu.module, while
   gpu-module-to-binary serializes the spirv.module found *inside* it.
2. This script moves each top-level `spirv.module @__spv__NAME` into
   `gpu.module @NAME` (a text rewrite of mlir-opt's printed output, where
   top-level operations are indented by two spaces and a region's opening
   brace ends its operation's first line).
3. The SPIR-V ABI passes, serialization, and the host side: synchronous gpu
   ops become async ones with tokens (gpu-to-llvm lowers gpu.alloc and
   gpu.memcpy only in that form) and kernels take bare pointers with
   interspersed byte sizes (the runtime's ABI, docs/GPU.md).
"""

import re
import subprocess
import sys

# Vulkan 1.1 drivers with 8/16-bit storage accept this target. Without
# Float16 and Int8, f16 and i8 kernels silently miscompile
# (../shared/notes/gpu-paths.md).
SPIRV_TARGET = (
    "spirv-attach-target{ver=v1.3 "
    "caps=Shader,Int8,Int16,Float16,StorageBuffer8BitAccess,"
    "StorageBuffer16BitAccess "
    "exts=SPV_KHR_8bit_storage,SPV_KHR_16bit_storage,"
    "SPV_KHR_storage_buffer_storage_class client_api=Vulkan}")
KERNELS_TO_SPIRV = f"builtin.module({SPIRV_TARGET},convert-gpu-to-spirv)"
TO_BINARY_AND_LLVM = (
    "builtin.module(func.func(gpu-async-region),"
    "gpu.module(spirv.module(spirv-lower-abi-attrs,spirv-update-vce)),"
    "gpu-module-to-binary,convert-scf-to-cf,finalize-memref-to-llvm,"
    "gpu-to-llvm{use-bare-pointers-for-kernels=true "
    "intersperse-sizes-for-kernels=true},"
    "convert-to-llvm,reconcile-unrealized-casts)")


def nest_spirv_modules(text):
    moved = []
    while True:
        match = re.search(r"^  spirv\.module @__spv__(\w+) ", text, re.M)
        if not match:
            break
        line_end = text.index("\n", match.start())
        begin = text.rindex("{", match.start(), line_end)
        depth, end = 0, begin
        while True:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
            end += 1
        moved.append((match.group(1), text[match.start():end + 1]))
        text = text[:match.start()] + text[end + 1:]
    for name, spirv_module in moved:
        gpu_module = re.search(r"gpu\.module @" + name + r"\b[^\n]*\{\n", text)
        if not gpu_module:
            sys.exit(f"lower-to-vulkan: no gpu.module @{name}")
        text = (text[:gpu_module.end()] + spirv_module + "\n" +
                text[gpu_module.end():])
    return text


def run(mlir_opt, pipeline, stdin=None, path=None):
    command = [mlir_opt, f"--pass-pipeline={pipeline}"] + ([path] if path else [])
    result = subprocess.run(command, input=stdin, stdout=subprocess.PIPE,
                            text=True)
    if result.returncode != 0:
        sys.exit(result.returncode)
    return result.stdout


def main():
    args = sys.argv[1:]
    kernels_only = "--kernels-only" in args
    if kernels_only:
        args.remove("--kernels-only")
    if len(args) != 2:
        sys.exit(__doc__)
    mlir_opt, path = args
    nested = nest_spirv_modules(run(mlir_opt, KERNELS_TO_SPIRV, path=path))
    if kernels_only:
        sys.stdout.write(nested)
    else:
        sys.stdout.write(run(mlir_opt, TO_BINARY_AND_LLVM, stdin=nested))


if __name__ == "__main__":
    main()
