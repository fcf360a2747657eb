# -*- Python -*-
# lit configuration of the quant-block test suite: FileCheck tests of the
# dialect, the passes and the conversions, and executed integration tests.

import os

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QUANT_BLOCK"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.quant_block_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%conformance", config.conformance_dir))
config.substitutions.append(("%python", config.python_executable))
# The C compiler CMake found: tests that build small C drivers use it.
config.substitutions.append(("%host_cc", config.host_cc))
config.substitutions.append(("%src_root", config.quant_block_src_root))
config.substitutions.append(("%obj_root", config.quant_block_obj_root))
config.substitutions.append(("%quant_block_libs", config.quant_block_lib_dir))
config.substitutions.append(("%llvm_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%llvm_tools_dir", config.llvm_tools_dir))
config.substitutions.append(
    ("%quant_opt", os.path.join(config.quant_block_tools_dir, "quant-opt")))
# The OpenMP runtime that code with the CPU pipeline's threads calls.
config.libomp = os.path.join(config.llvm_lib_dir, "libomp.so")
config.substitutions.append(("%libomp", config.libomp))
if os.path.exists(config.libomp):
    config.available_features.add("libomp")

llvm_config.use_default_substitutions()

# The executed SPIR-V tests (GPU/Vulkan) need libQuantBlockVulkanRuntime.so,
# built where CMake found Vulkan, and a Vulkan device (lavapipe counts).
# `vulkan` is set when both are there; otherwise the reason is kept for
# GPU/Vulkan/lit.local.cfg to print. ctest starts one lit per test file, so
# the answer of `vulkaninfo --summary` is cached in the build tree, keyed by
# what it depends on (the library, the installed drivers, the loader's
# environment).
import glob
import json
import shutil
import subprocess


def probe_vulkan_device():
    """None if vulkaninfo lists a device, else why not."""
    vulkaninfo = shutil.which("vulkaninfo")
    if not vulkaninfo:
        return ("vulkaninfo is missing (install vulkan-tools), so no Vulkan "
                "device could be probed")
    drivers = []
    for pattern in ["/usr/share/vulkan/icd.d/*.json",
                    "/etc/vulkan/icd.d/*.json",
                    "/usr/local/share/vulkan/icd.d/*.json"]:
        for path in sorted(glob.glob(pattern)):
            drivers.append([path, os.path.getmtime(path)])
    key = {"library": os.path.getmtime(config.vulkan_runtime),
           "vulkaninfo": vulkaninfo, "drivers": drivers,
           "env": [os.environ.get(name, "") for name in
                   ("VK_ICD_FILENAMES", "VK_DRIVER_FILES",
                    "VK_ADD_DRIVER_FILES")]}
    cache = os.path.join(config.quant_block_obj_root, "test",
                         "vulkan-probe.json")
    try:
        with open(cache) as f:
            cached = json.load(f)
        if cached["key"] == key:
            return cached["reason"]
    except (OSError, ValueError, KeyError):
        pass
    try:
        output = subprocess.run([vulkaninfo, "--summary"],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True,
                                timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        output = ""
    reason = None
    if "deviceName" not in output:
        reason = ("`vulkaninfo --summary` lists no Vulkan device (install a "
                  "driver, e.g. mesa-vulkan-drivers for lavapipe on the CPU)")
    # Several lit processes may write at once: write, then rename.
    scratch = f"{cache}.{os.getpid()}"
    try:
        with open(scratch, "w") as f:
            json.dump({"key": key, "reason": reason}, f)
        os.replace(scratch, cache)
    except OSError:
        pass
    return reason


config.vulkan_runtime = os.path.join(config.quant_block_lib_dir,
                                     "libQuantBlockVulkanRuntime.so")
if not os.path.exists(config.vulkan_runtime):
    config.vulkan_unsupported_reason = (
        "libQuantBlockVulkanRuntime.so was not built (CMake found no Vulkan "
        "headers and loader: install libvulkan-dev)")
else:
    config.vulkan_unsupported_reason = probe_vulkan_device()
if config.vulkan_unsupported_reason is None:
    config.available_features.add("vulkan")
config.substitutions.append(("%vulkan_runtime", config.vulkan_runtime))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.quant_block_tools_dir, config.llvm_tools_dir]
tools = [
    "quant-opt",
    "quant-import-gguf",
    "quant-block-capi-test",
    "quant-block-capi-runner-test",
    "quant-block-capi-gguf-test",
    "mlir-opt",
    "mlir-translate",
]

# No result may depend on the host CPU. `lit -Dtarget=LEVEL` runs the executed
# tests with code generated for another x86-64 level: quant-run gets
# --target-cpu / --target-features, mlir-runner (which can only take features
# away from the host CPU) gets --mattr. Both go through wrapper scripts, so
# that the Python harnesses, which take the tools' paths as arguments, run
# the same target. A level the host cannot execute makes the tests
# UNSUPPORTED, with the missing CPU flags as the reason.
TARGETS = {
    # level: (quant-run flags, mlir-runner --mattr, /proc/cpuinfo flags)
    "x86-64-v2": (["--target-cpu=x86-64-v2"], "-avx",
                  ["sse4_2", "popcnt", "ssse3"]),
    "x86-64-v3": (["--target-cpu=x86-64-v3"],
                  "-avx512f,-avxvnni,-avxneconvert,-avxifma,-avxvnniint8,"
                  "-avxvnniint16",
                  ["avx2", "fma", "f16c", "bmi1", "bmi2", "movbe", "abm"]),
    # AVX-512 with BF16: LLVM rounds f32 to bf16 with vcvtneps2bf16 here.
    "x86-64-v4-bf16": (["--target-cpu=x86-64-v4",
                        "--target-features=+avx512bf16"], "",
                       ["avx512f", "avx512bw", "avx512cd", "avx512dq",
                        "avx512vl", "avx512_bf16"]),
    # AVX-512 with VNNI and AMX: quant-run's pipeline then takes AMX tiles
    # for the int8 products of 16 rows or more (x86-amx).
    "x86-64-v4-amx": (["--target-cpu=x86-64-v4",
                       "--target-features=+avx512vnni,+amx-tile,+amx-int8"],
                      "", ["avx512f", "avx512bw", "avx512cd", "avx512dq",
                           "avx512vl", "avx512_vnni", "amx_tile",
                           "amx_int8"]),
}


def amx_tile_data_granted():
    """Whether Linux grants this process AMX's tile data state (arch_prctl
    ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA; syscall 158 on x86-64), as
    quant-run asks for it before it uses AMX tiles."""
    import ctypes
    try:
        return ctypes.CDLL(None, use_errno=True).syscall(158, 0x1023, 18) == 0
    except (OSError, AttributeError):
        return False


target = lit_config.params.get("target", "host")
if target == "host":
    tools += ["quant-run", "mlir-runner"]
    # quant-run compiles accumulate(i32) kernels with AVX512-VNNI, decodes
    # 4-bit weight codes with AVX-512 table lookups and leaves f16 -> f32
    # extensions to F16C on such hosts (tests that check it require these
    # features).
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    if {"avx512_vnni", "avx512bw"} <= flags:
                        config.available_features.add("x86-avx512-vnni")
                        # 6-bit codes spread by vpmultishiftqb.
                        if "avx512vbmi" in flags:
                            config.available_features.add("x86-avx512-vbmi")
                        # AMX also needs Linux to grant the tile data state
                        # (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA;
                        # syscall 158 on x86-64), as quant-run asks for it.
                        if ({"amx_tile", "amx_int8"} <= flags
                                and amx_tile_data_granted()):
                            config.available_features.add("x86-amx")
                    if ({"amx_tile", "amx_bf16"} <= flags
                            and amx_tile_data_granted()):
                        config.available_features.add("x86-amx-bf16")
                    if "avx512f" in flags:
                        config.available_features.add("x86-avx512")
                    if "f16c" in flags:
                        config.available_features.add("x86-f16c")
                    break
    except OSError:
        pass
elif target not in TARGETS:
    lit_config.fatal(f"unknown target '{target}'; expected host or one of "
                     + ", ".join(TARGETS))
else:
    run_flags, mattr, cpu_flags = TARGETS[target]
    host_flags = set()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    host_flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    missing = [flag for flag in cpu_flags if flag not in host_flags]
    if missing:
        config.unsupported = True
        lit_config.note(f"target {target} is unsupported on this host: it "
                        f"lacks the CPU flags {', '.join(missing)}")
    elif "amx_tile" in cpu_flags and not amx_tile_data_granted():
        config.unsupported = True
        lit_config.note(f"target {target} is unsupported on this host: "
                        "Linux does not grant the AMX tile data state")
    config.available_features.add(f"target-{target}")
    # Its own Output/ directories: ctest runs the same file for several
    # targets at once.
    config.test_exec_root = os.path.join(config.quant_block_obj_root, "test",
                                         "target-" + target)
    wrapper_dir = os.path.join(config.test_exec_root, "bin")
    os.makedirs(wrapper_dir, exist_ok=True)
    wrappers = {
        "quant-run": [os.path.join(config.quant_block_tools_dir, "quant-run")]
        + run_flags,
        "mlir-runner": [os.path.join(config.llvm_tools_dir, "mlir-runner")]
        + ([f"--mattr={mattr}"] if mattr else []),
    }
    for name, command in wrappers.items():
        path = os.path.join(wrapper_dir, name)
        # ctest runs one lit per file, in parallel: write, then rename.
        scratch = f"{path}.{os.getpid()}"
        with open(scratch, "w") as f:
            f.write("#!/bin/sh\nexec " + " ".join(command) + ' "$@"\n')
        os.chmod(scratch, 0o755)
        os.replace(scratch, path)
    tool_dirs = [wrapper_dir] + tool_dirs
    tools += [ToolSubst("quant-run", os.path.join(wrapper_dir, "quant-run")),
              ToolSubst("mlir-runner",
                        os.path.join(wrapper_dir, "mlir-runner"))]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# GPU code validators (test/GPU): `spirv-val` (Debian's spirv-tools)
# validates serialized SPIR-V, `ptxas` (the CUDA toolkit, on PATH or under
# /usr/local/cuda) assembles PTX. A test that needs a missing one is
# UNSUPPORTED, never passed silently. %gpu_binary extracts the kernel objects
# of gpu.binary ops and runs a validator on each.
spirv_val = shutil.which("spirv-val")
if spirv_val:
    config.available_features.add("spirv-val")
    config.substitutions.append(("%spirv_val", spirv_val))
ptxas = shutil.which("ptxas") or next(
    (p for p in ["/usr/local/cuda/bin/ptxas"] if os.access(p, os.X_OK)), None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(
        ("%{ptxas_cuda_home}", os.path.dirname(os.path.dirname(ptxas))))
config.substitutions.append((
    "%gpu_binary",
    config.python_executable + " "
    + os.path.join(config.test_source_root, "GPU", "Inputs", "gpu_binary.py")))

# A test whose REQUIRES names a missing feature is UNSUPPORTED, which lit and
# ctest count as passed: a lane without libomp once ran none of the threaded
# kernel-order tests and stayed green. QUANT_BLOCK_LIT_REQUIRE (names
# separated by spaces or commas) lists the features a lane installs and must
# therefore have; run.sh sets it. A missing one stops every lit run with the
# reason.
required_features = os.environ.get("QUANT_BLOCK_LIT_REQUIRE", "")
missing_features = [
    feature for feature in required_features.replace(",", " ").split()
    if feature not in config.available_features]
if missing_features:
    known_reasons = {
        "libomp": f"no OpenMP runtime at {config.libomp} "
                  "(Debian: libomp-22-dev)",
        "spirv-val": "no spirv-val on PATH (Debian: spirv-tools)",
        "ptxas": "no ptxas on PATH or under /usr/local/cuda/bin",
        "vulkan": config.vulkan_unsupported_reason,
    }
    lit_config.fatal(
        "QUANT_BLOCK_LIT_REQUIRE names features this host lacks: "
        + "; ".join(f"{feature}: {known_reasons.get(feature) or 'not detected'}"
                    for feature in missing_features))
