//===- Passes.td - SPIR-V code generation passes -----------*- tablegen -*-===//
//
// The passes of --quant-block-spirv-pipeline alone, after the GPU middle:
// the checks and entry-point ABI of SPIR-V kernels, dynamic shapes and
// buffer sizes for Vulkan, 8-bit float buffers as bytes, and the nesting of
// the spirv.modules that gpu-module-to-binary serializes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_SPIRV_PASSES_TD
#define QUANT_BLOCK_CODEGEN_SPIRV_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUSPIRVKernelABI : Pass<"quant-block-gpu-spirv-kernel-abi",
                             "gpu::GPUModuleOp"> {
  let summary = "Check SPIR-V kernels and give them their entry-point ABI";
  let description = [{
    Runs after `spirv-attach-target`, before `convert-gpu-to-spirv`. Gives
    every kernel a `spirv.entry_point_abi` with its known workgroup size
    (`known_block_size`, from the constant block sizes of the launch), puts
    the target environment on the gpu.module as a `spirv.target_env`
    attribute too (convert-math-to-spirv looks only there, and would convert
    f64 math with the default environment, which has no Float64), and
    reports, at the op or argument (at the kernel for a value without a
    location), what the SPIR-V lowering would otherwise accept silently or
    fail on obscurely:
    * a kernel argument that is not an identity-layout memref, statically
      shaped or one-dimensional (the Vulkan ABI binds one storage buffer per
      memref; a scalar would become a one-element buffer; dynamically shaped
      buffers are flattened by `--quant-block-gpu-spirv-dynamic-shapes`);
    * bf16 anywhere in a kernel (SPIR-V for Vulkan has no bf16 type);
    * sub-byte integers or narrow floats in a kernel (the front half decodes
      them from i8 storage; SPIR-V has no such types);
    * 8-, 16- or 64-bit integers and 16- or 64-bit floats without the
      `Int8`, `Int16`, `Int64`, `Float16` or `Float64` capability in the
      module's target environment: the type converter would otherwise
      compute in 32 bits (a silent miscompile that spirv-val accepts).
  }];
  let dependentDialects = [
    "::mlir::spirv::SPIRVDialect",
  ];
}

def GPUSPIRVDynamicShapes : Pass<"quant-block-gpu-spirv-dynamic-shapes",
                                 "ModuleOp"> {
  let summary = "Give SPIR-V kernels flat buffers and a buffer of sizes";
  let description = [{
    A Vulkan kernel binds each buffer as one runtime array: it has no memref
    descriptor to read a dynamic size from, and the SPIR-V lowering indexes
    only arrays whose strides are static. This pass, run on kernels and
    their launches after `--fold-memref-alias-ops`, turns every dynamically
    shaped, identity-layout kernel argument `memref<?x32xT>` into a flat
    `memref<?xT>` (the same bytes): its `memref.load` and `memref.store`
    index it with row-major linearized indices, its `memref.dim` and the
    sizes of reshapes of it become the sizes themselves. The dynamic sizes
    of all such arguments travel in one extra, last kernel argument, a
    `memref<Kxi32>` that the host fills before each launch (a stack buffer
    of the calling function; the Vulkan runtime stages host memory) and that
    the kernel reads once at its entry. On the host each flattened operand
    is a `memref.collapse_shape` of the original buffer.

    Any other use of such an argument (a view read through, a non-constant
    `memref.dim`) is an error at that use. Statically shaped arguments are
    left as they are. The linear indices are `affine.linearize_index`
    (lowered by lower-affine after this pass).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUSPIRVBufferSizes : Pass<"quant-block-gpu-spirv-buffer-sizes",
                               "ModuleOp"> {
  let summary = "Pass each kernel buffer's byte size after it";
  let description = [{
    The host side of the Vulkan runtime's ABI (docs/GPU.md): after each
    memref operand of a `gpu.launch_func`, an i64 operand with its size in
    bytes (the element's bytes times the product of its sizes, dynamic ones
    read with `memref.dim`). Run after `gpu-module-to-binary`, then
    `gpu-to-llvm` with bare pointers turns every memref into its aligned
    pointer, so the runtime receives (pointer, byte size) pairs. Upstream's
    `intersperse-sizes-for-kernels` does the same for statically shaped
    buffers only. An operand that is not an identity-layout memref of
    integers or floats is an error: the runtime binds buffers only.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUNestSPIRVModules : Pass<"quant-block-gpu-nest-spirv-modules",
                               "ModuleOp"> {
  let summary = "Move each kernel's spirv.module into its gpu.module";
  let description = [{
    `convert-gpu-to-spirv` puts the `spirv.module @__spv__<name>` it makes of
    `gpu.module @<name>` beside it, at the top level, while
    `gpu-module-to-binary` serializes the `spirv.module` found *inside* a
    gpu.module with a SPIR-V target (upstream's test pipeline uses a
    test-only conversion pass that nests it). This pass moves each
    `spirv.module` into its gpu.module. A gpu.module with a SPIR-V target
    and no spirv.module is an error here, not an obscure serialization
    failure later.
  }];
}

def GPUNarrowFloatStorage : Pass<"quant-block-gpu-narrow-float-storage",
                                 "ModuleOp"> {
  let summary = "Give kernels 8-bit float buffers as i8 buffers";
  let description = [{
    SPIR-V has no FP8 or E8M0 types, while the front half leaves loads and
    stores of such buffers (MX and NVFP4 block scales) that it decodes with
    integer arithmetic right after (`arith.bitcast` to i8). This pass turns
    every kernel argument of type `memref<...xf8*>` into `memref<...xi8>`
    (the same bytes), its loads into i8 loads followed by a bitcast and its
    stores into a bitcast followed by an i8 store (the canonicalizer then
    folds the bitcast pairs away), and casts the launch operands on the host
    (`builtin.unrealized_conversion_cast`, which the LLVM lowering folds:
    both types lower to the same pointer). Views must have been folded into
    the loads and stores first (`--fold-memref-alias-ops`); any other use of
    such an argument is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

def SPIRVDotProducts : Pass<"quant-block-spirv-dot-products",
                            "gpu::GPUModuleOp"> {
  let summary = "4-way byte dot products as SPIR-V SDot / SUDot / UDot";
  let description = [{
    Runs on the kernels before `convert-gpu-to-spirv`, where their target
    environment allows the DotProduct and DotProductInput4x8Bit
    capabilities (--quant-block-spirv-pipeline's `int8-dot-products`; a
    module whose target lacks them is left as it is, and its dot products
    are lowered element by element). Each 4-way byte dot product in the
    target-neutral form of --quant-block-gpu-matmul-kernels'
    `byte-dot-products` becomes one `spirv.SDot` (both factors signed),
    `spirv.SUDot` (one signed, taken first) or `spirv.UDot` on the two
    `vector<4xi8>`, and the accumulator is added with a plain `arith.addi`:
    the saturating `*DotAccSat` forms would differ from the i32 arithmetic
    of the form where it wraps. A module that gets dot products has its
    target environment raised to SPIR-V 1.6 (in its targets and its
    `spirv.target_env`): MLIR's availability rules take the capabilities
    from that version on, whatever the extension says. The other modules
    keep their version, on which their entry points' interfaces depend.
    ```mlir
    // Before:
    %a32 = arith.extui %a : vector<4xi8> to vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %p = arith.muli %a32, %b32 : vector<4xi32>
    %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
    // After:
    %d = spirv.SUDot %b, %a : vector<4xi8> -> i32
    %s = arith.addi %acc, %d : i32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::spirv::SPIRVDialect",
  ];
}

def SPIRVSubgroupSize : Pass<"quant-block-spirv-subgroup-size",
                             "gpu::GPUModuleOp"> {
  let summary = "Set the subgroup size of a kernel module's SPIR-V target";
  let description = [{
    Runs after `spirv-attach-target`, before `convert-gpu-to-spirv`: the
    resource limits of the module's SPIR-V target environment (in its
    targets and its `spirv.target_env`) get `subgroup_size` (and the
    minimum and maximum) `subgroup-size`, the device's. convert-gpu-to-
    spirv lowers a `gpu.shuffle` only when its width is the target's
    subgroup size: the matmul kernels' shuffles within a subgroup get that
    width from --quant-block-gpu-emulate-shuffles{native-width} and become
    `spirv.GroupNonUniformShuffleXor`. The size must be a power of two.
    ```mlir
    // Before (spirv-attach-target's default limits):
    gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader,
        GroupNonUniformShuffle], []>, #spirv.resource_limits<>>] { ... }
    // After, with subgroup-size=8:
    gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader,
        GroupNonUniformShuffle], []>, #spirv.resource_limits<
        subgroup_size = 8, min_subgroup_size = 8, max_subgroup_size = 8>>]
    ```
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "int64_t", /*default=*/"32",
           "The device's subgroup size">,
  ];
}

def SPIRVRecordSubgroupSize : Pass<"quant-block-spirv-record-subgroup-size",
                                   "spirv::ModuleOp"> {
  let summary = "Record in a SPIR-V module the subgroup size its subgroup "
                "operations assume";
  let description = [{
    Vulkan fixes a kernel's subgroup size when the pipeline is created, not
    in the SPIR-V, and a shuffle written for subgroups of 8 threads is
    wrong on subgroups of another size. A `spirv.module` (inside its
    `gpu.module`) that uses `GroupNonUniform*` operations gets the
    specialization constant `quant_block_subgroup_size` with SpecId 20802
    (0x5142) and the subgroup size of its target environment as value;
    libQuantBlockVulkanRuntime.so reads it from the binary and creates the
    kernel's pipeline with that required subgroup size and full subgroups,
    or stops with an error where the device cannot. Modules without
    subgroup operations are left as they are. Nothing reads the constant
    in the kernels.
    ```mlir
    // Added, with subgroup_size = 8 in the target's resource limits:
    spirv.SpecConstant @quant_block_subgroup_size spec_id(20802) = 8 : i32
    ```
  }];
}

def GPUBFloat16Bits : Pass<"quant-block-gpu-bf16-bits", "ModuleOp"> {
  let summary = "Carry kernels' bf16 values as their i16 bits";
  let description = [{
    Vulkan's SPIR-V has no bf16 type. After the GPU middle a kernel computes
    nothing in bf16: `arith-emulate-unsupported-floats` computes bf16
    arithmetic in f32, --quant-block-expand-float-conversions rounds to and
    extends from bf16 with integer arithmetic on the bits (`arith.bitcast`
    between bf16 and i16), so what is left of bf16 in a kernel only moves
    bit patterns: loads and stores of bf16 buffers (activations, results,
    weights' expressed values), vectors built, shuffled and bitcast (the
    fragments of the bf16 tensor-core kernel), constants, selects and loop
    arguments. This pass gives each such value (scalar, vector or buffer)
    the i16 type of its bits in every kernel, rewrites bf16 constants to
    their bit patterns, drops the bitcasts that became i16 to i16, and casts
    the launch operands on the host (`builtin.unrealized_conversion_cast`
    for buffers, which the LLVM lowering folds: both lower to the same
    pointer; `arith.bitcast` for scalars). The results are the same bits as
    with a bf16 type.

    A kernel op that computes on bf16 (a `math` op on bf16 values, which no
    pass before widens) is an error at that op.
    ```mlir
    // Before, in a kernel:
    %h = memref.load %x[%i] : memref<64xbf16>
    %b = arith.bitcast %h : bf16 to i16
    // After:
    %b = memref.load %x[%i] : memref<64xi16>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

#endif // QUANT_BLOCK_CODEGEN_SPIRV_PASSES_TD
