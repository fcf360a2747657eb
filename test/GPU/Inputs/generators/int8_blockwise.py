"""Writes test/GPU/int8-blockwise.mlir: the module and its CHECK lines
(numpy's q = clamp(roundeven(x / s) + z), y = (q - z) * s in float32).
Usage: python3 int8_blockwise.py > test/GPU/int8-blockwise.mlir"""
import numpy as np
rng = np.random.default_rng(8)
R, C, B = 4, 48, 16
x = (rng.standard_normal((R, C)) * 4).astype(np.float32)
x[0, 0] = 1000.0; x[1, 1] = -1000.0  # saturation
x[2, 2] = np.float32(2.5) * np.float32(0.5)  # a tie: 1.25 / 0.5 = 2.5 -> 2
s = (rng.integers(1, 32, size=(R, C // B)) / 32.0).astype(np.float32)
s[2, 0] = 0.5
z = rng.integers(-20, 20, size=(R, C // B)).astype(np.int8)
z[2, 0] = 0
S = np.repeat(s, B, axis=1); Z = np.repeat(z, B, axis=1).astype(np.float32)
def rt(zp):
    q = np.rint(np.float32(x / S)).astype(np.float32) + (Z if zp else 0)
    q = np.clip(q, -128, 127).astype(np.int32)
    return ((q - (Z.astype(np.int32) if zp else 0)).astype(np.float32) * S).astype(np.float32)
def dense(a, fmt):
    return "[" + ",\n      ".join("[" + ", ".join(fmt(v) for v in r) + "]" for r in a) + "]"
f32 = lambda v: repr(float(np.float32(v)))
i = lambda v: str(int(v))
def checks(a):
    return "\n".join(f"  // CHECK{'-NEXT' if n else ''}: [{', '.join(str(int(b)) for b in r.view(np.int32))}]" for n, r in enumerate(a))
print(f"""// int8 block-wise quantize + dequantize (blocks of {B} along rows), without
// and with i8 zero points: round half to even, saturation. Compiled for the
// CPU here and for the GPUs in test/GPU/*.test; the CHECK lines are numpy's
// q = clamp(roundeven(x / s) + z), y = (q - z) * s in f32 (generated).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!s = !quant_block.tensor<{R}x{C}, #quant_block.scheme<i8 : f32, block = [1, {B}]>>
!z = !quant_block.tensor<{R}x{C}, #quant_block.scheme<i8 : f32, block = [1, {B}], zero_point = i8>>

func.func @symmetric(%x: tensor<{R}x{C}xf32>, %s: tensor<{R}x{C//B}xf32>) -> tensor<{R}x{C}xf32> {{
  %q = quant_block.quantize %x scales(%s : tensor<{R}x{C//B}xf32>) : tensor<{R}x{C}xf32> -> !s
  %y = quant_block.dequantize %q : !s -> tensor<{R}x{C}xf32>
  return %y : tensor<{R}x{C}xf32>
}}

func.func @zero_points(%x: tensor<{R}x{C}xf32>, %s: tensor<{R}x{C//B}xf32>, %z: tensor<{R}x{C//B}xi8>) -> tensor<{R}x{C}xf32> {{
  %q = quant_block.quantize %x scales(%s : tensor<{R}x{C//B}xf32>) zero_points(%z : tensor<{R}x{C//B}xi8>) : tensor<{R}x{C}xf32> -> !z
  %y = quant_block.dequantize %q : !z -> tensor<{R}x{C}xf32>
  return %y : tensor<{R}x{C}xf32>
}}

func.func @main() {{
  %x = arith.constant dense<{dense(x, f32)}> : tensor<{R}x{C}xf32>
  %s = arith.constant dense<{dense(s, f32)}> : tensor<{R}x{C//B}xf32>
  %z = arith.constant dense<{dense(z, i)}> : tensor<{R}x{C//B}xi8>
{checks(rt(False))}
  %y = func.call @symmetric(%x, %s) : (tensor<{R}x{C}xf32>, tensor<{R}x{C//B}xf32>) -> tensor<{R}x{C}xf32>
  %yb = arith.bitcast %y : tensor<{R}x{C}xf32> to tensor<{R}x{C}xi32>
  %u = tensor.cast %yb : tensor<{R}x{C}xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
{checks(rt(True))}
  %y2 = func.call @zero_points(%x, %s, %z) : (tensor<{R}x{C}xf32>, tensor<{R}x{C//B}xf32>, tensor<{R}x{C//B}xi8>) -> tensor<{R}x{C}xf32>
  %y2b = arith.bitcast %y2 : tensor<{R}x{C}xf32> to tensor<{R}x{C}xi32>
  %u2 = tensor.cast %y2b : tensor<{R}x{C}xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u2) : (tensor<*xi32>) -> ()
  return
}}
func.func private @printMemrefI32(tensor<*xi32>)""")
