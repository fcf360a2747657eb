//===- QuantBlockDialect.td - quant_block dialect ----------*- tablegen -*-===//
//
// The quant_block dialect: block-wise (group-wise) and OCP Microscaling (MX)
// quantization with self-describing types and run-time quantization
// parameters.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKDIALECT_TD
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKDIALECT_TD

include "mlir/IR/OpBase.td"

def QuantBlock_Dialect : Dialect {
  let name = "quant_block";
  let cppNamespace = "::mlir::quant_block";
  let summary = "Block-wise and OCP Microscaling (MX) quantization";
  let description = [{
    The `quant_block` dialect describes quantized tensors whose scales and
    zero points are shared by *blocks* of elements: per-tensor, per-axis
    (per-channel, per-token), per-group (e.g. 1x32, as int4 group-quantized
    LLM weights use), 2-D blocks (e.g. 128x128) and the OCP Microscaling
    formats (MXFP8, MXFP6, MXFP4, MXINT8) and NVFP4.

    A quantized tensor has three parts: the *data* (storage values), the
    *scales* and optional *zero points*. The *scheme*
    (`#quant_block.scheme`) relates them and lives in the type
    (`!quant_block.tensor`), so the IR is self-describing; the scales and
    zero points themselves are SSA values, so they can be constants or arrive
    at run time. Scales are always kept *contracted*: their shape is
    `ceil(dim / block)` per dimension, never expanded to the data's shape.

    The numerics of every op are defined bit for bit in `docs/Numerics.md`.
  }];
  // quant_block.matmul carries arith's fast-math flags.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 0;
  // Function argument attributes: `quant_block.device_resident` and
  // `quant_block.gguf_tensor`.
  let hasRegionArgAttrVerify = 1;
  // `quant_block.cpu_kernel` on a quant_block.matmul,
  // `quant_block.never_subnormal_operand` on an arith.truncf.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// A unit attribute on a function argument: the caller passes a buffer
    /// that already lives on the device (allocated and filled through the
    /// GPU runtime's quantBlockGpu* entry points) and keeps it there across
    /// calls; the GPU pipelines pass it to kernels without copies, and host
    /// code must not touch its elements (docs/GPU.md, "Device-resident
    /// arguments"). A quantized argument passes every part so.
    static constexpr ::llvm::StringLiteral getDeviceResidentAttrName() {
      return "quant_block.device_resident";
    }
    /// A string attribute on a function argument: the GGUF tensor that
    /// quant-run --gguf binds to it (quant-import-gguf sets it).
    static constexpr ::llvm::StringLiteral getGGUFTensorAttrName() {
      return "quant_block.gguf_tensor";
    }
    /// A #quant_block.cpu_matmul_kernel on a quant_block.matmul: the CPU
    /// kernel --quant-block-cpu-matmul-kernels emits for it.
    static constexpr ::llvm::StringLiteral getCPUKernelAttrName() {
      return "quant_block.cpu_kernel";
    }
    /// A unit attribute on an `arith.truncf` from f32 to bf16 whose operand
    /// is never an f32 subnormal (its producer proves it: the CPU kernels'
    /// integer or E2M1 codes times one f16 scale, at least 2^-24 in
    /// magnitude unless zero). --quant-block-expand-float-conversions with
    /// `native-bf16-truncation` leaves such a truncation to LLVM
    /// (AVX512-BF16's vcvtneps2bf16, which reads subnormals as zero).
    static constexpr ::llvm::StringLiteral getNeverSubnormalOperandAttrName() {
      return "quant_block.never_subnormal_operand";
    }

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKDIALECT_TD
