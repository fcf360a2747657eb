"""Prints the module of test/Integration/tile-constant-weights.mlir: int8
activations (quantized from x) times two constant weights of 48 rows
(random codes): int4 with f16 scales, and uint4 with f16 scales and uint4
zero points, each a quant_block.pack of arith.constant parts."""

import numpy as np

N, K, M, BLOCK = 48, 64, 9, 32


def dense(values):
    return "[" + ", ".join(dense(v) if isinstance(v, list) else repr(v)
                           for v in values) + "]"


def main():
    rng = np.random.default_rng(11)
    codes = rng.integers(-8, 8, (N, K)).tolist()
    ucodes = rng.integers(0, 16, (N, K)).tolist()
    scales = [[float(v) for v in row] for row in
              rng.choice([0.0625, 0.125, 0.25, 0.5, 1.5], (N, K // BLOCK))]
    zero_points = rng.integers(0, 16, (N, K // BLOCK)).tolist()
    w = (f"!quant_block.tensor<{N}x{K}, #quant_block.scheme<i4 : f32, "
         f"block = [1, {BLOCK}], scale = f16>>")
    wz = (f"!quant_block.tensor<{N}x{K}, #quant_block.scheme<ui4 : f32, "
          f"block = [1, {BLOCK}], scale = f16, zero_point = ui4>>")
    a = (f"!quant_block.tensor<{M}x{K}, #quant_block.scheme<i8 : f32, "
         f"block = [1, {BLOCK}]>>")
    s = f"tensor<{N}x{K // BLOCK}"
    print(f"""func.func @products(%x: tensor<{M}x{K}xf32>) -> (tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>) {{
  %d = arith.constant dense<{dense(codes)}> : tensor<{N}x{K}xi4>
  %s = arith.constant dense<{dense(scales)}> : {s}xf16>
  %w = quant_block.pack %d scales(%s : {s}xf16>) : tensor<{N}x{K}xi4> -> {w}
  %xq = quant_block.quantize_dynamic absmax %x : tensor<{M}x{K}xf32> -> {a}
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : {a}, {w} -> tensor<{M}x{N}xf32>
  %ud = arith.constant dense<{dense(ucodes)}> : tensor<{N}x{K}xui4>
  %z = arith.constant dense<{dense(zero_points)}> : {s}xui4>
  %wz = quant_block.pack %ud scales(%s : {s}xf16>) zero_points(%z : {s}xui4>) : tensor<{N}x{K}xui4> -> {wz}
  %yz = quant_block.matmul %xq, %wz transpose_rhs accumulate(i32) inhibit : {a}, {wz} -> tensor<{M}x{N}xf32>
  return %y, %yz : tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>
}}""")


if __name__ == "__main__":
    main()
