#!/usr/bin/python3
"""The LLaMA model of quant_block.llama compiled ahead of time for a GPU
pipeline, for the device check (bench/gpu/bundle.sh): each `forward`
function (a prefill of N tokens, a decode step) becomes a shared library
(quant-opt with the pipeline, mlir-translate, llc, cc) that
bench/gpu/llama_run.py calls through ctypes where no MLIR is installed.

    llama_bundle.py --out DIR --libs LIB_DIR [--build BUILD]
                    [--pipeline PIPELINE] [--checks MIX:ACT,...]
                    [--check-prefill N] [--bench MIX,...] [--bench-layers L]
                    [--bench-shape 7b|tiny] [--pp N] [--tg N]

Two kinds of model, each in DIR/<name>/ with a manifest.json:

  check  a tiny random-weight model (test_llama's shape) whose parts are
         carried (.npy); the logits of a prefill of 16 tokens (the
         tensor-core kernels' size; --check-prefill) and of two decode steps, computed here
         by the CPU pipeline, are what the GPU's must match: the f32
         bound of python/tests/test_llama.py, the same top-1 token.
  bench  a LLaMA-7B-shaped model (dim 4096, ffn 11008, 32 heads, vocab
         32000) of L layers whose parts are too large to carry: only their
         shapes and types travel, and llama_run.py fills them with random
         values there (the time does not depend on them). pp<N> (one
         prefill of N tokens, the last one's logits, as llama-bench) and
         tg<N> (N decode steps).

DIR/llama-models.txt lists the models (`name runtime`). The libraries
link the GPU runtime of LIB_DIR (the bundle's lib/: found there through
$ORIGIN/../lib).

The manifest names the libraries and the arguments of `forward` after its
two free ones (tokens, position): the KV caches, the RoPE tables and the
weights' parts, all device-resident (uploaded once there).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from quant_block import gguf_writer as gw  # noqa: E402
from quant_block import llama  # noqa: E402

# python/tests/test_llama_reference.py's TINY and test_llama.py's F32_BOUND.
TINY = dict(n_vocab=512, n_embd=256, n_layer=2, n_ff=512, n_head=4,
            n_head_kv=2)
F32_BOUND = 1e-5
SHAPE_7B = dict(n_vocab=32000, n_embd=4096, n_ff=11008, n_head=32,
                n_head_kv=32)
LLVM_LIB = "/usr/lib/llvm-22/lib"
CHECK_DECODES = 2


def tool(name, build):
    for folder in (os.path.join(build, "bin"), os.path.join(LLVM_LIB, "..",
                                                           "bin")):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    return name


def compile_library(text, pipeline, path, args):
    """`text` (the model's module) through `pipeline` into the shared
    library `path`, its functions with C interfaces (_mlir_ciface_*)."""
    folder = os.path.dirname(path)
    stem = os.path.splitext(path)[0]
    del folder
    passes = f"builtin.module(func.func(llvm-request-c-wrappers),{pipeline})"
    lowered = subprocess.run(
        [tool("quant-opt", args.build), f"--pass-pipeline={passes}",
         "-o", stem + ".ll.mlir"], input=text, text=True,
        capture_output=True)
    if lowered.returncode:
        # The diagnostics come first; the IR they print after can be long.
        sys.exit(f"error: {path}: {pipeline} failed:\n"
                 f"{lowered.stderr[:3000]}")
    steps = [
        [tool("mlir-translate", args.build), "--mlir-to-llvmir",
         stem + ".ll.mlir", "-o", stem + ".ll"],
        [tool("llc", args.build), "-O2", "-relocation-model=pic",
         "-filetype=obj", stem + ".ll", "-o", stem + ".o"],
        # -Bsymbolic: each library's calls of its own functions (every
        # library has a @forward and layer functions) stay inside it.
        ["cc", "-shared", "-Wl,-Bsymbolic", stem + ".o", "-o", path,
         f"-L{args.libs}", f"-L{LLVM_LIB}", f"-l:{args.runtime_library}",
         "-l:libmlir_runner_utils.so.22.1",
         "-l:libmlir_c_runner_utils.so.22.1", "-lm",
         # The bundle's lib/ there; here, the build's and LLVM's.
         "-Wl,-rpath,$ORIGIN/../lib",
         f"-Wl,-rpath,{os.path.abspath(args.libs)}", f"-Wl,-rpath,{LLVM_LIB}"],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"error: {path}: {' '.join(step[:2])}: "
                     f"{done.stderr[-2000:]}")
    # The C interface takes the result, the tokens, the position and then
    # one descriptor per argument of the manifest: llama_run.py's call.
    with open(stem + ".ll") as f:
        define = next((line for line in f
                       if line.startswith("define") and
                       "@_mlir_ciface_forward(" in line), None)
    if define is None:
        sys.exit(f"error: {path}: no _mlir_ciface_forward")
    for suffix in (".ll.mlir", ".ll", ".o"):
        os.remove(stem + suffix)
    return len(define.split("(", 1)[1].rsplit(")", 1)[0].split(","))


def check_parameters(library, count, arguments):
    # result, tokens, position, then the manifest's arguments.
    if count != 3 + len(arguments):
        sys.exit(f"error: {library}: _mlir_ciface_forward has {count} "
                 f"parameters, the manifest {len(arguments)} arguments + 3")


def argument_entries(model):
    """The device-resident arguments of `forward` after tokens and
    position, in order: (name, array)."""
    entries = [("kcache", model.kcache), ("vcache", model.vcache),
               ("rope_cos", model.rope_cos), ("rope_sin", model.rope_sin)]
    index = 0
    for name in model.order:
        for part in model.tensors[name].parts:
            entries.append((f"{name}.{part.role}", model.parts[index]))
            index += 1
    assert index == len(model.parts)
    return entries


def describe(name, array, file=None):
    entry = {"name": name, "shape": list(array.shape),
             "dtype": array.dtype.str}
    if file:
        entry["file"] = file
    return entry


def build_check(out, mix, activations, args):
    """A tiny model, its parts carried, the CPU's logits to match."""
    name = f"llama_check_{mix}_{activations}"
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(args.scratch, f"{name}.gguf")
    gw.write_random_llama(path, mix=mix, seed=3, **TINY)
    rng = np.random.default_rng(1)
    prefill = args.check_prefill
    tokens = rng.integers(3, TINY["n_vocab"], prefill + CHECK_DECODES).tolist()
    capacity = 32
    cpu = llama.Llama(path, capacity=capacity, activations=activations)
    expected = [cpu.prefill(tokens[:prefill])]
    expected += [cpu.decode(t)[None] for t in tokens[prefill:]]
    np.save(os.path.join(folder, "expected.npy"), np.concatenate(expected))
    model = llama.Llama(path, capacity=capacity, activations=activations,
                        pipeline=args.pipeline)
    arguments = []
    for arg_name, array in argument_entries(model):
        file = f"{arg_name}.npy"
        # The caches start empty: their contents need not travel.
        if arg_name in ("kcache", "vcache"):
            file = None
        else:
            np.save(os.path.join(folder, file), array)
        arguments.append(describe(arg_name, array, file))
    functions = {}
    for n in sorted({prefill, 1}):
        library = f"forward_{n}.so"
        count = compile_library(model.module_text(n), args.pipeline,
                                os.path.join(folder, library), args)
        check_parameters(library, count, arguments)
        functions[str(n)] = library
    steps = [[0, prefill]] + [[prefill + i, 1] for i in range(CHECK_DECODES)]
    manifest = {"kind": "check", "mix": mix, "activations": activations,
                "n_vocab": TINY["n_vocab"], "functions": functions,
                "arguments": arguments, "tokens": tokens, "steps": steps,
                "bound": F32_BOUND,
                "weight_bytes": int(sum(p.nbytes for p in model.parts))}
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return name


def write_random_gguf(path, mix, shape, layers):
    """A GGUF of random blocks (no quantizer: seconds, not the minutes
    write_random_llama takes for a 7B-shaped 0.5 GB): only the shapes and
    types of its parts are used."""
    config = dict(shape, n_layer=layers)
    shapes = gw.llama_tensor_shapes(**config)
    types = gw.llama_tensor_types(shapes, mix, layers)
    rng = np.random.default_rng(0)
    tensors = []
    for name, ne in shapes.items():
        block_elements = gw.BLOCK[types[name]][0]
        blocks = int(np.prod(ne)) // block_elements
        tensors.append((name, ne, types[name],
                        gw.random_blocks(types[name], blocks, rng)))
    gw.write_gguf(path, gw.llama_metadata(mix=mix, **config), tensors)


def build_bench(out, mix, args):
    """A 7B-shaped model (or --bench-shape's) of args.bench_layers
    layers: the libraries and the parts' shapes."""
    shape = SHAPE_7B if args.bench_shape == "7b" else \
        {k: v for k, v in TINY.items() if k != "n_layer"}
    name = f"llama_bench_{mix}_{args.bench_layers}L"
    if args.bench_shape != "7b":
        name += f"_{args.bench_shape}"
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(args.scratch, f"{name}.gguf")
    write_random_gguf(path, mix, shape, args.bench_layers)
    capacity = args.pp + args.tg
    model = llama.Llama(path, capacity=capacity, activations="int8",
                        pipeline=args.pipeline)
    arguments = [describe(n, a) for n, a in argument_entries(model)]
    # The bytes a decode step reads: every weight but the token
    # embedding, of which it gathers one row.
    read = 0
    for arg_name, array in argument_entries(model):
        if arg_name.startswith(("blk.", "output")):
            read += array.nbytes
        elif arg_name.startswith("token_embd."):
            read += array.nbytes // array.shape[0]
    functions = {}
    for n in sorted({args.pp, 1}):
        library = f"forward_{n}.so"
        count = compile_library(model.module_text(n, last_logits=n > 1),
                                args.pipeline, os.path.join(folder, library),
                                args)
        check_parameters(library, count, arguments)
        functions[str(n)] = library
    manifest = {"kind": "bench", "mix": mix, "activations": "int8",
                "layers": args.bench_layers, "n_vocab": shape["n_vocab"],
                "functions": functions, "arguments": arguments,
                "pp": args.pp, "tg": args.tg,
                "weight_bytes": int(sum(p.nbytes for p in model.parts)),
                "read_bytes_per_token": int(read)}
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    del model
    os.remove(path)
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "..",
                                                        "build"))
    parser.add_argument("--pipeline",
                        default="quant-block-nvvm-pipeline{chip=sm_90 "
                                "format=fatbin}")
    parser.add_argument("--libs", required=True,
                        help="the folder of the runtime libraries to link "
                             "(the bundle's lib/)")
    parser.add_argument("--checks", default="Q4_0:int8,Q4_K_M:int8,Q4_K_M:f32",
                        help="MIX:ACTIVATIONS of the tiny models checked "
                             "against the CPU's logits")
    parser.add_argument("--check-prefill", type=int, default=16,
                        help="the checks' prompt (16: the NVVM pipeline's "
                             "tensor-core kernels take the prefill)")
    parser.add_argument("--bench", default="Q4_0,Q4_K_M",
                        help="the mixes of the 7B-shaped models timed "
                             "(empty: none)")
    parser.add_argument("--bench-layers", type=int, default=4)
    parser.add_argument("--bench-shape", choices=["7b", "tiny"], default="7b",
                        help="tiny: the checks' shape, for the tests")
    parser.add_argument("--pp", type=int, default=512)
    parser.add_argument("--tg", type=int, default=128)
    args = parser.parse_args()
    # Where quant_block finds its C API library (the build's).
    os.environ.setdefault("QUANT_BLOCK_BINARY_DIR", os.path.abspath(args.build))
    runtime = "vulkan" if "spirv" in args.pipeline else "cuda"
    args.runtime_library = {"cuda": "libQuantBlockCudaRuntime.so",
                            "vulkan": "libQuantBlockVulkanRuntime.so"}[runtime]
    os.makedirs(args.out, exist_ok=True)
    names = []
    with tempfile.TemporaryDirectory() as scratch:
        args.scratch = scratch
        for spec in filter(None, args.checks.split(",")):
            mix, activations = spec.split(":")
            names.append(build_check(args.out, mix, activations, args))
        for mix in filter(None, args.bench.split(",")):
            names.append(build_bench(args.out, mix, args))
    with open(os.path.join(args.out, "llama-models.txt"), "w") as f:
        f.write("".join(f"{n} {runtime}\n" for n in names))
    print(f"llama: {len(names)} models for {args.pipeline} in {args.out}")


if __name__ == "__main__":
    main()
