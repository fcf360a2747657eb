"""The main job end to end: a quantized LLaMA model in a GGUF file,
imported, compiled and run by quant-block.

1. writes a small random-weight LLaMA model in llama.cpp's Q4_K_M mix (Q4_K
   weights, Q6_K for the output and some layers' attn_v / ffn_down);
2. imports it (every weight stays in its GGUF block format) and compiles
   its prefill and decode functions for the CPU;
3. generates tokens greedily, printing tokens per second;
4. checks the logits against an exact float64 model of the same weights
   and, where npm's prebuilt llama.cpp is present, against llama.cpp.

    PYTHONPATH=build/python python3 examples/llama_demo.py [--keep FILE]
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python", "tests"))

from quant_block import gguf, gguf_writer, llama, llama_reference  # noqa: E402

SHAPE = dict(n_vocab=2048, n_embd=512, n_layer=4, n_ff=1536, n_head=8,
             n_head_kv=4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", help="write the model here and keep it")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="quant-block-llama-")
    path = args.keep or os.path.join(folder, "demo-Q4_K_M.gguf")

    print(f"1. Writing a random-weight LLaMA model ({SHAPE['n_layer']} "
          f"layers, dim {SHAPE['n_embd']}, {SHAPE['n_head']} heads over "
          f"{SHAPE['n_head_kv']} kv heads, vocab {SHAPE['n_vocab']}) in "
          f"the Q4_K_M mix to {path}")
    gguf_writer.write_random_llama(path, mix="Q4_K_M", seed=7, **SHAPE)
    with gguf.open(path) as f:
        kinds = sorted({t.type for t in f.tensors})
        print(f"   {len(f.tensors)} tensors, types {', '.join(kinds)}, "
              f"{os.path.getsize(path) / 2**20:.1f} MiB")

    print("2. Importing and compiling it (weights stay quantized; one "
          "function per call width)")
    start = time.perf_counter()
    model = llama.Llama(path, capacity=64)
    prompt = [1, 319, 1075, 778, 1024, 42, 7, 2047]
    logits = model.prefill(prompt)
    first = time.perf_counter() - start
    print(f"   loaded, compiled and ran the {len(prompt)}-token prompt in "
          f"{first:.1f} s")

    print("3. Generating 24 tokens greedily")
    model.reset()
    start = time.perf_counter()
    logits = model.prefill(prompt)
    prefill = time.perf_counter() - start
    tokens, step = [], logits[-1]
    model.decode(int(np.argmax(step)))  # compiles the decode width
    model.reset()
    model.prefill(prompt)
    start = time.perf_counter()
    for _ in range(24):
        tokens.append(int(np.argmax(step)))
        step = model.decode(tokens[-1])
    decode = time.perf_counter() - start
    print(f"   prompt {prompt} -> {tokens}")
    print(f"   prefill {len(prompt) / prefill:.0f} tokens/s, decode "
          f"{24 / decode:.0f} tokens/s (one thread per core, OpenMP)")

    print("4. Checking the logits of the prompt")
    reader = gguf_writer.read_gguf(path)
    import ggml_reference
    weights = {t.name: ggml_reference.dequantize(t.type_id, t.data, t.ne)
               for t in reader.tensors}
    config = llama_reference.config_from_metadata(reader.kv, weights)
    exact = llama_reference.forward(weights, config, prompt)
    rel = np.linalg.norm(logits - exact) / np.linalg.norm(exact)
    same = np.mean(logits.argmax(1) == exact.argmax(1))
    print(f"   against exact float64 math on the same weights: relative "
          f"error {rel:.1e}, same top token at {same:.0%} of the positions")
    import llamacpp
    lib, reason = llamacpp.library_dir()
    if lib is None:
        print(f"   (llama.cpp not compared: {reason})")
    else:
        with llamacpp.LlamaCpp(path, n_ctx=64) as llm:
            theirs = llm.logits(prompt)
        rel = np.linalg.norm(logits - theirs) / np.linalg.norm(theirs)
        same = np.mean(logits.argmax(1) == theirs.argmax(1))
        print(f"   against llama.cpp on the same file: relative difference "
              f"{rel:.1e} (llama.cpp rounds its activations to 8 bits), same "
              f"top token at {same:.0%} of the positions")
    if not args.keep:
        os.remove(path)
        os.rmdir(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
