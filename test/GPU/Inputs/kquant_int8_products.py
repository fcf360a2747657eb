"""Writes test/GPU/kquant-int8.mlir: int8-activation products
(accumulate(i32)) with GGUF's two-level weights, whose expected bits
(the CHECK lines) are numpy's model of the contract's order
(docs/Numerics.md, "accumulate(i32)"):

  for each block kb in increasing order, from +0.0, in f32:
    acc += f32(isum) * (f32(sl) * sr)      isum = sum ql * qr (exact)
    acc += f32(asum) * (f32(sl) * m)       with mins: asum = sum ql

  sr = f32(s) * f32(outer scale of the block's super-block), rounded once
  m  = f32(zp) * f32(outer min), rounded once (Q4_K's), or the float zero
       point itself (Q4_1's)

Each product and sum rounded to f32 (no fastmath<contract>). The scales
use every bit of their types, so that products round and a different order
or a fused multiply-add shows in the bits.

    python3 kquant_int8_products.py > ../kquant-int8.mlir
"""

import numpy as np

RNG = np.random.default_rng(28)


def f32(x):
    return np.float32(x)


def dense(array, fmt="{}"):
    if array.ndim == 1:
        return "[" + ", ".join(fmt.format(v) for v in array) + "]"
    return "[" + ", ".join(dense(row, fmt) for row in array) + "]"


def few_bits(shape, low, high, denominator):
    """f32 values with few significant bits (exact in f16)."""
    return (RNG.integers(low, high, size=shape) / denominator).astype(
        np.float32)


def full_f16(shape, low, high):
    """f16 values with every significand bit in use (as f32): products of
    them round, so that the order of the roundings shows."""
    return RNG.uniform(low, high, size=shape).astype(np.float16).astype(
        np.float32)


def full_f32(shape, low, high):
    return RNG.uniform(low, high, size=shape).astype(np.float32)


class Case:
    def __init__(self, name, m, n, k, block, storage, scale, zero_point,
                 outer_block=None, outer_min=False):
        self.name, self.m, self.n, self.k, self.block = name, m, n, k, block
        self.storage, self.scale, self.zero_point = storage, scale, zero_point
        self.outer_block, self.outer_min = outer_block, outer_min
        blocks = k // block
        if storage == "ui4":
            self.codes = RNG.integers(0, 16, size=(n, k))
        else:  # i8 codes of 6-bit values (Q6_K widened)
            self.codes = RNG.integers(-32, 32, size=(n, k))
        if scale == "ui6":
            self.scales = RNG.integers(0, 64, size=(n, blocks))
        elif scale == "i8":
            self.scales = RNG.integers(-128, 128, size=(n, blocks))
        else:  # f16
            self.scales = full_f16((n, blocks), 0.001, 0.02)
        if zero_point == "ui6":
            self.zero_points = RNG.integers(0, 64, size=(n, blocks))
        elif zero_point == "f16":
            self.zero_points = full_f16((n, blocks), -0.1, 0.1)
        if outer_block:
            supers = blocks // outer_block
            self.outer = full_f16((n, supers), 0.0005, 0.03)
            if outer_min:
                self.outer_mins = -full_f16((n, supers), 0.0005, 0.03)
        self.x_codes = RNG.integers(-128, 128, size=(m, k))
        self.x_scales = full_f32((m, blocks), 0.001, 0.05)

    def scheme(self):
        params = f"block = [{self.block}], scale = {self.scale}"
        if self.zero_point:
            params += f", zero_point = {self.zero_point}"
        if self.outer_block:
            params += f", outer = <f16, block = [{self.outer_block}]"
            params += ", min = f16>" if self.outer_min else ">"
        return (f"!quant_block.tensor<{self.n}x{self.k}, #quant_block.scheme<"
                f"{self.storage} : f32, {params}>>")

    def lhs(self):
        return (f"!quant_block.tensor<{self.m}x{self.k}, #quant_block.scheme<"
                f"i8 : f32, block = [1, {self.block}]>>")

    def expected(self):
        blocks = self.k // self.block
        out = np.zeros((self.m, self.n), np.float32)
        for i in range(self.m):
            for j in range(self.n):
                acc = f32(0.0)
                for kb in range(blocks):
                    ks = slice(kb * self.block, (kb + 1) * self.block)
                    x = self.x_codes[i, ks].astype(np.int64)
                    isum = int(np.sum(x * self.codes[j, ks]))
                    sr = f32(self.scales[j, kb])
                    if self.outer_block:
                        sr = f32(sr * f32(self.outer[j, kb // self.outer_block]))
                    sl = f32(self.x_scales[i, kb])
                    acc = f32(acc + f32(f32(isum) * f32(sl * sr)))
                    if self.zero_point:
                        if self.outer_min:
                            mn = f32(f32(self.zero_points[j, kb]) *
                                     f32(self.outer_mins[j, kb //
                                                         self.outer_block]))
                        else:
                            mn = f32(self.zero_points[j, kb])
                        asum = int(np.sum(x))
                        acc = f32(acc + f32(f32(asum) * f32(sl * mn)))
                out[i, j] = acc
        return out

    def function(self):
        return f"""func.func @{self.name}(%x: {self.lhs()}, %w: {self.scheme()}) -> tensor<{self.m}x{self.n}xf32> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : {self.lhs()}, {self.scheme()} -> tensor<{self.m}x{self.n}xf32>
  return %y : tensor<{self.m}x{self.n}xf32>
}}"""

    def call(self):
        n, k, m, name = self.n, self.k, self.m, self.name
        blocks = k // self.block
        lines = []
        data = f"tensor<{n}x{k}x{self.storage}>"
        lines.append(f"  %{name}_d = arith.constant dense<{dense(self.codes)}> : {data}")
        st = f"tensor<{n}x{blocks}x{self.scale}>"
        fmt = "{!r}" if self.scale == "f16" else "{}"
        lines.append(f"  %{name}_s = arith.constant dense<{dense(self.scales, fmt)}> : {st}")
        pack = f"  %{name}_w = quant_block.pack %{name}_d scales(%{name}_s : {st})"
        if self.zero_point:
            zt = f"tensor<{n}x{blocks}x{self.zero_point}>"
            fmt = "{!r}" if self.zero_point == "f16" else "{}"
            lines.append(f"  %{name}_z = arith.constant dense<{dense(self.zero_points, fmt)}> : {zt}")
            pack += f" zero_points(%{name}_z : {zt})"
        if self.outer_block:
            ot = f"tensor<{n}x{blocks // self.outer_block}xf16>"
            lines.append(f"  %{name}_o = arith.constant dense<{dense(self.outer, '{!r}')}> : {ot}")
            pack += f" outer_scales(%{name}_o : {ot})"
            if self.outer_min:
                lines.append(f"  %{name}_om = arith.constant dense<{dense(self.outer_mins, '{!r}')}> : {ot}")
                pack += f" outer_mins(%{name}_om : {ot})"
        lines.append(pack + f" : {data} -> {self.scheme()}")
        xs = f"tensor<{m}x{blocks}xf32>"
        lines.append(f"  %{name}_xc = arith.constant dense<{dense(self.x_codes)}> : tensor<{m}x{k}xi8>")
        lines.append(f"  %{name}_xs = arith.constant dense<{dense(self.x_scales, '{!r}')}> : {xs}")
        lines.append(f"  %{name}_x = quant_block.pack %{name}_xc scales(%{name}_xs : {xs}) : tensor<{m}x{k}xi8> -> {self.lhs()}")
        lines.append(f"  %{name}_y = func.call @{name}(%{name}_x, %{name}_w) : ({self.lhs()}, {self.scheme()}) -> tensor<{m}x{n}xf32>")
        for i, row in enumerate(self.expected().view(np.int32)):
            prefix = "CHECK" if i == 0 else "CHECK-NEXT"
            lines.append(f"  // {prefix}: {dense(row)}")
        lines.append(f"  %{name}_b = arith.bitcast %{name}_y : tensor<{m}x{n}xf32> to tensor<{m}x{n}xi32>")
        lines.append(f"  %{name}_u = tensor.cast %{name}_b : tensor<{m}x{n}xi32> to tensor<*xi32>")
        lines.append(f"  func.call @printMemrefI32(%{name}_u) : (tensor<*xi32>) -> ()")
        return "\n".join(lines)


CASES = [
    # Q4_K: 4-bit codes, 6-bit scales and mins per block of 32, f16 super-
    # scale and super-min per 8 blocks; 40 blocks a row (two rounds of 32
    # lanes, the second partial).
    Case("q4_k", 3, 5, 1280, 32, "ui4", "ui6", "ui6", outer_block=8,
         outer_min=True),
    # Q6_K with its codes widened to bytes: i8 scales per block of 16, f16
    # super-scale per 16 blocks.
    Case("q6_k", 3, 5, 512, 16, "i8", "i8", None, outer_block=16),
    # Q4_1: f16 scales and f16 mins (float zero points) per block of 32.
    Case("q4_1", 2, 7, 256, 32, "ui4", "f16", "f16"),
]


def main():
    print("""// int8-activation products (accumulate(i32)) with GGUF's two-level
// weights: Q4_K (6-bit scales and mins under f16 super-scales and
// super-mins), Q6_K widened (i8 scales under f16 super-scales) and Q4_1
// (f16 mins). Compiled for the CPU here and for the GPUs in
// test/GPU/*/kquant-int8.test, where --quant-block-gpu-matmul-kernels'
// integer kernel takes them; the CHECK lines are numpy's model of the
// contract's order (generated by Inputs/kquant_int8_products.py).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s
""")
    for case in CASES:
        print(case.function())
        print()
    print("func.func @main() {")
    for case in CASES:
        print(case.call())
    print("  return\n}")
    print("func.func private @printMemrefI32(tensor<*xi32>)")


if __name__ == "__main__":
    main()
