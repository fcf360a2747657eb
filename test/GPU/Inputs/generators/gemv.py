import numpy as np
rng = np.random.default_rng(12)
N, K, B = 5, 64, 32
q = rng.integers(-8, 8, size=(N, K))
s = (rng.integers(1, 64, size=(N, K // B)) / 64.0).astype(np.float32)
x1 = (rng.integers(-32, 32, size=(1, K)) / 8.0).astype(np.float32)
x3 = (rng.standard_normal((3, K))).astype(np.float32)
def ref(x):
    w = (q.astype(np.float32) * np.repeat(s, B, axis=1)).astype(np.float32)
    out = np.zeros((x.shape[0], N), np.float32)
    for m in range(x.shape[0]):
        for n in range(N):
            acc = np.float32(0)
            for k in range(K):
                acc = np.float32(acc + np.float32(x[m, k] * w[n, k]))
            out[m, n] = acc
    return out
def dense(a, fmt):
    rows = ["[" + ", ".join(fmt(v) for v in r) + "]" for r in a]
    return "[" + ",\n      ".join(rows) + "]"
f32 = lambda v: repr(float(np.float32(v)))
i = lambda v: str(int(v))
bits = lambda a: ", ".join(str(int(b)) for b in a.view(np.int32).ravel())
print(f"""// A fused int4 block-wise GEMV (quant_block.matmul transpose_rhs, M = 1)
// and a small-M GEMM (M = 3), strict k order (no reassoc): compiled for the
// CPU and for the GPUs (test/GPU/*.test), the printed bits are the numpy
// reference's sequential f32 sums (generated, see the comment at the end).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!w = !quant_block.tensor<{N}x{K}, #quant_block.scheme<i4 : f32, block = [1, {B}]>>

func.func @gemv(%x: tensor<1x{K}xf32>, %w: !w) -> tensor<1x{N}xf32> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<1x{K}xf32>, !w -> tensor<1x{N}xf32>
  return %y : tensor<1x{N}xf32>
}}

func.func @gemm(%x: tensor<3x{K}xf32>, %w: !w) -> tensor<3x{N}xf32> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<3x{K}xf32>, !w -> tensor<3x{N}xf32>
  return %y : tensor<3x{N}xf32>
}}

func.func @main() {{
  %d = arith.constant dense<{dense(q, i)}> : tensor<{N}x{K}xi4>
  %s = arith.constant dense<{dense(s, f32)}> : tensor<{N}x{K//B}xf32>
  %w = quant_block.pack %d scales(%s : tensor<{N}x{K//B}xf32>) : tensor<{N}x{K}xi4> -> !w
  %x1 = arith.constant dense<{dense(x1, f32)}> : tensor<1x{K}xf32>
  %x3 = arith.constant dense<{dense(x3, f32)}> : tensor<3x{K}xf32>

  // CHECK: [{bits(ref(x1))}]
  %y1 = func.call @gemv(%x1, %w) : (tensor<1x{K}xf32>, !w) -> tensor<1x{N}xf32>
  %y1b = arith.bitcast %y1 : tensor<1x{N}xf32> to tensor<1x{N}xi32>
  %u1 = tensor.cast %y1b : tensor<1x{N}xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u1) : (tensor<*xi32>) -> ()
""")
r3 = ref(x3)
for m in range(3):
    print(f"  // CHECK{'-NEXT' if m else ''}: [{bits(r3[m])}]")
print(f"""  %y3 = func.call @gemm(%x3, %w) : (tensor<3x{K}xf32>, !w) -> tensor<3x{N}xf32>
  %y3b = arith.bitcast %y3 : tensor<3x{N}xf32> to tensor<3x{N}xi32>
  %u3 = tensor.cast %y3b : tensor<3x{N}xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u3) : (tensor<*xi32>) -> ()
  return
}}
func.func private @printMemrefI32(tensor<*xi32>)
// The CHECK lines: w = q * s in f32; acc = fl(acc + fl(x * w)) for k = 0 ..
// K - 1 in order (numpy, float32), from a fixed-seed generator.""")
