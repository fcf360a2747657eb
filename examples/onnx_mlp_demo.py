"""The main job as a user meets it: an ONNX model with quantized weights
is imported, compiled for the CPU and run.

Builds a two-layer MLP with onnx.helper (a com.microsoft MatMulNBits layer
with int4 blocked weights, as ONNX Runtime's int4 LLM exports hold them, and
a blocked int8 DequantizeLinear feeding a MatMul), imports it with
quant_block.onnx, compiles it with --quant-block-cpu-pipeline, runs it on
random input and prints the largest difference from a numpy model of the
same network and the time per call. Run by `./run.sh demo`:

    PYTHONPATH=build/python /usr/bin/python3 examples/onnx_mlp_demo.py
"""

import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import quant_block
from quant_block import reference
from quant_block.onnx import import_model

M, K, HIDDEN, N, BLOCK, BLOCK2 = 8, 1024, 512, 256, 32, 32
rng = np.random.default_rng(0)

# Layer 1: MatMulNBits, uint4 codes two per byte (low nibble first), one f32
# scale and one uint4 zero point per block of 32 along K.
codes = rng.integers(0, 16, (HIDDEN, K)).astype(np.uint8)
scales = (rng.random((HIDDEN, K // BLOCK)) * 0.02 + 0.001).astype(np.float32)
zero_points = rng.integers(0, 16, (HIDDEN, K // BLOCK)).astype(np.uint8)
packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).reshape(HIDDEN, K // BLOCK, BLOCK // 2)
packed_zero_points = zero_points[:, 0::2] | (zero_points[:, 1::2] << 4)

# Layer 2: int8 weights [HIDDEN, N], one f32 scale per block of 32 rows.
w2 = rng.integers(-128, 128, (HIDDEN, N)).astype(np.int8)
s2 = (rng.random((HIDDEN // BLOCK2, N)) * 0.002 + 0.0005).astype(np.float32)

nodes = [
    helper.make_node("MatMulNBits", ["x", "B1", "S1", "Z1"], ["h"],
                     domain="com.microsoft", K=K, N=HIDDEN, bits=4,
                     block_size=BLOCK, name="layer1"),
    helper.make_node("Relu", ["h"], ["r"]),
    helper.make_node("DequantizeLinear", ["W2", "S2"], ["w2"], axis=0,
                     block_size=BLOCK2, name="layer2_weight"),
    helper.make_node("MatMul", ["r", "w2"], ["y"], name="layer2"),
]
graph = helper.make_graph(
    nodes, "int4_mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])],
    [numpy_helper.from_array(packed, "B1"),
     numpy_helper.from_array(scales.reshape(-1), "S1"),
     numpy_helper.from_array(packed_zero_points.reshape(-1), "Z1"),
     numpy_helper.from_array(w2, "W2"), numpy_helper.from_array(s2, "S2")])
model = helper.make_model(graph, opset_imports=[
    helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])

start = time.perf_counter()
module = import_model(model)
kernels = quant_block.compile(module)
compile_seconds = time.perf_counter() - start

x = rng.standard_normal((M, K)).astype(np.float32)
y = kernels.main(x)
calls = 20
start = time.perf_counter()
for _ in range(calls):
    kernels.main(x)
per_call = (time.perf_counter() - start) / calls

# The numpy model: weights dequantized by the reference of the numerics.
w1 = reference.dequantize_scheme(
    codes, reference.Scheme("ui4", block=(1, BLOCK), zero_point="ui4"),
    reference.Params(scales, zero_points, None, None))
w2f = reference.dequantize_scheme(
    w2, reference.Scheme("i8", block=(BLOCK2, 1)),
    reference.Params(s2, None, None, None))
expected = np.maximum(x @ w1.T, 0) @ w2f

print(f"model: MatMulNBits int4 [{HIDDEN}x{K}, block {BLOCK}] -> Relu -> "
      f"DequantizeLinear int8 [{HIDDEN}x{N}, block {BLOCK2}] + MatMul")
print(f"imported: {str(module).count('quant_block.matmul')} quant_block.matmul "
      f"(weights stay packed: {packed.nbytes + w2.nbytes} bytes of codes)")
print(f"import + compile: {compile_seconds:.2f} s")
print(f"max |compiled - numpy reference|: {np.max(np.abs(y - expected)):.3g} "
      f"(output magnitude {np.max(np.abs(expected)):.3g})")
print(f"time per call ({M}x{K} input): {per_call * 1e3:.3f} ms")
