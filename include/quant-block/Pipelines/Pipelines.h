//===- Pipelines.h - named end-to-end quant-block pipelines -----*- C++ -*-===//
//
// The pipelines only compose passes: one target-neutral front half (raise,
// propagation and fusion of dequantization, TOSA to linalg, quant_block to
// linalg, elementwise to linalg, narrow-float expansion, elementwise fusion)
// that every target pipeline starts with, and one back half per target.
// --quant-block-linalg-pipeline is the front half alone;
// --quant-block-cpu-pipeline goes on to the LLVM dialect, runnable with
// mlir-runner; --quant-block-spirv-pipeline and --quant-block-nvvm-pipeline
// share a GPU middle (bufferization, kernels, data movement) and end with a
// gpu.binary and LLVM host code. The passes themselves live in Codegen/Common
// (target-neutral), Codegen/CPU and Codegen/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_PIPELINES_PIPELINES_H
#define QUANT_BLOCK_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::quant_block {

/// Options of the target-neutral front half.
struct FrontHalfOptions {
  /// Run --quant-block-raise first.
  bool raise = true;
  /// Lower TOSA around the quant_block ops to linalg / arith / tensor.
  bool lowerTosa = true;
  /// Run --quant-block-propagate: dequantization moves below layout ops, so
  /// transposes and reshapes of a weight move its packed form.
  bool propagate = true;
  /// Run --quant-block-fuse: dequantized weights fuse into the contractions
  /// that consume them, a transposed weight folded into `transpose_rhs`.
  bool fuse = true;
  /// --quant-block-fuse's `integer-dot`: products of dynamically quantized
  /// int8 activations and integer weights accumulate in i32 per block.
  bool integerDot = true;
};

/// Appends the target-neutral front half to `pm` (a module pass manager):
/// from quant_block, TOSA, upstream quant and frontend decompositions to
/// fused linalg on tensors, with narrow-float extensions decoded exactly.
/// Every target pipeline starts with it, so every target computes the same
/// numerics from the same IR.
void buildFrontHalfPipeline(OpPassManager &pm, const FrontHalfOptions &options);

/// The two stages of the front half, for a target that adds its own passes
/// between them: the transformations on quant_block ops (raise, propagate,
/// fuse), then the lowering to fused linalg (TOSA, quant_block to linalg,
/// narrow floats, elementwise fusion). buildFrontHalfPipeline appends both.
void buildFrontHalfTransformStage(OpPassManager &pm,
                                  const FrontHalfOptions &options);
void buildFrontHalfLoweringStage(OpPassManager &pm,
                                 const FrontHalfOptions &options);

/// Appends the bufferization every target shares (lib/Pipelines/
/// BufferizationStage.cpp): one-shot bufferization with identity-layout
/// memrefs at function boundaries, then deallocation of every buffer the
/// code allocates.
void buildBufferizationStage(OpPassManager &pm);

/// The front half's options as pipeline options, shared by every pipeline
/// that starts with the front half (`Derived` is the pipeline's own options).
template <typename Derived>
struct FrontHalfPipelineOptions : public PassPipelineOptions<Derived> {
  mlir::detail::PassOptions::Option<bool> raise{
      *this, "raise",
      llvm::cl::desc("Run --quant-block-raise first: upstream quant ops and "
                     "frontend quantization emulations become quant_block "
                     "ops (upstream quant ops have no other lowering here)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> lowerTosa{
      *this, "lower-tosa",
      llvm::cl::desc("Lower TOSA ops around the quant_block ops to linalg"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> propagate{
      *this, "propagate",
      llvm::cl::desc("Run --quant-block-propagate: dequantization moves below "
                     "transposes, reshapes, slices and broadcasts, which then "
                     "move the packed data (bit for bit the same values)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Run --quant-block-fuse and fold transposed weights into "
                     "transpose_rhs: a contraction of a dequantized weight "
                     "reads the packed weight, which is never dequantized "
                     "into a tensor of its own (a named linalg contraction "
                     "gets fastmath<reassoc,contract>, see the pass)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> integerDot{
      *this, "integer-dot",
      llvm::cl::desc("With fuse: products of dynamically quantized int8 "
                     "activations and integer weights accumulate in i32 per "
                     "block (rounds differently from the float product)"),
      llvm::cl::init(true)};

  FrontHalfOptions getFrontHalfOptions() const {
    FrontHalfOptions options;
    options.raise = raise;
    options.lowerTosa = lowerTosa;
    options.propagate = propagate;
    options.fuse = fuse;
    options.integerDot = integerDot;
    return options;
  }
};

/// --quant-block-linalg-pipeline: the front half alone.
struct LinalgPipelineOptions
    : public FrontHalfPipelineOptions<LinalgPipelineOptions> {};

/// --quant-block-cpu-pipeline: the front half, then the CPU back half.
struct CPUPipelineOptions
    : public FrontHalfPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize the linalg ops (off: scalar loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width of the target CPU in bits (128: "
                     "SSE / NEON, 256: AVX2, 512: AVX-512)"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> registers{
      *this, "registers",
      llvm::cl::desc("How many vector registers one vectorized tile fills"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Split the output rows of large vectorized ops across "
                     "threads with OpenMP (OMP_NUM_THREADS sets the count; "
                     "the code calls libomp). Never splits a reduction, so "
                     "results do not depend on the thread count"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> threadSchedule{
      *this, "thread-schedule",
      llvm::cl::desc("With parallel: how the threads' loops hand out their "
                     "iterations (static, dynamic, guided or runtime: "
                     "--quant-block-cpu-thread-schedule)"),
      llvm::cl::init("static")};
  PassOptions::Option<int64_t> threadChunk{
      *this, "thread-chunk",
      llvm::cl::desc("With a dynamic or guided thread-schedule: the "
                     "iterations handed out at a time"),
      llvm::cl::init(1)};
  PassOptions::Option<bool> matmulKernels{
      *this, "matmul-kernels",
      llvm::cl::desc("With vectorize: reassociated quantized matrix products "
                     "that a register-tiled kernel covers use it "
                     "(--quant-block-cpu-matmul-kernels)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tileConstantWeights{
      *this, "tile-constant-weights",
      llvm::cl::desc("With matmul-kernels: constant weights of the kernels "
                     "that read 16-row tiles take the row-tiled layout at "
                     "compile time (--quant-block-cpu-tile-constant-weights; "
                     "the same bits)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> repackWeightsMinRows{
      *this, "repack-weights-min-rows",
      llvm::cl::desc("With matmul-kernels: products of at least this many "
                     "rows whose kernel reads 16-row tiles repack a "
                     "non-constant row-major weight into that layout once "
                     "per call (--quant-block-cpu-repack-weights; the same "
                     "bits); 0: never"),
      llvm::cl::init(128)};
  PassOptions::Option<bool> x86Vnni{
      *this, "x86-avx512-vnni",
      llvm::cl::desc("With matmul-kernels: accumulate(i32) kernels use "
                     "AVX512-VNNI (vpdpbusd); the code needs a host with "
                     "AVX512-VNNI and AVX512BW. quant-run sets it when its "
                     "target has both"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> x86Amx{
      *this, "x86-amx",
      llvm::cl::desc("With x86-avx512-vnni: accumulate(i32) products take "
                     "AMX tiles (tdpbssd) for their whole 16-row tiles of "
                     "activations; the code needs a host with AMX-TILE and "
                     "AMX-INT8, in a process that asked for the tile data "
                     "state (quant-run and the runner API do). quant-run "
                     "sets it when its target has them"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> x86AmxBF16{
      *this, "x86-amx-bf16",
      llvm::cl::desc("With matmul-kernels: reassociated products with bf16 "
                     "activations take AMX-BF16 tiles (tdpbf16ps) for their "
                     "whole 16-row tiles of activations (results within "
                     "the reassociation bound plus a term for the "
                     "subnormals the tile unit flushes, docs/Numerics.md); "
                     "the code needs a host with AMX-TILE and AMX-BF16, in "
                     "a process that asked for the tile data state. "
                     "target-cpu sets it for such CPUs; quant-run's own "
                     "host options do not (it changes the order of the "
                     "sums)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> x86Avx512{
      *this, "x86-avx512",
      llvm::cl::desc("With matmul-kernels: FP4 E2M1 weights are decoded by "
                     "a table lookup with AVX-512's vpermps (the same bits); "
                     "the code needs a host with AVX512F. quant-run sets it "
                     "when its target has AVX512F"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> x86Vbmi{
      *this, "x86-avx512-vbmi",
      llvm::cl::desc("With x86-avx512-vnni: 6-bit integer codes are spread "
                     "to bytes with AVX512-VBMI's vpmultishiftqb (the same "
                     "bits); the code needs a host with AVX512-VBMI. "
                     "quant-run sets it when its target has it"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> x86BF16{
      *this, "x86-avx512-bf16",
      llvm::cl::desc("The target has AVX512-BF16: the kernels' roundings of "
                     "dequantized weights to bf16 that can never see a "
                     "subnormal (integer or E2M1 codes times one f16 scale) "
                     "are left to LLVM (vcvtneps2bf16, the same bits as the "
                     "integer expansion for such values); the code needs a "
                     "host with AVX512-BF16 (elsewhere LLVM calls a "
                     "builtin). quant-run sets it when its target has "
                     "AVX512-BF16"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> x86F16c{
      *this, "x86-f16c",
      llvm::cl::desc("The target has F16C: f16 -> f32 extensions are left to "
                     "LLVM (vcvtph2ps, the same bits as the integer "
                     "expansion). quant-run sets it when its target has "
                     "F16C"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> targetCPU{
      *this, "target-cpu",
      llvm::cl::desc("The CPU the code is for: 'host' (this machine), a "
                     "processor LLVM knows (e.g. 'icelake-server', "
                     "'znver4'), or empty (default: portable code and "
                     "options as given). Every option that depends on the "
                     "target's instructions and is not given (vector-bits, "
                     "x86-avx512, x86-avx512-vnni, x86-avx512-vbmi, "
                     "x86-avx512-bf16, x86-amx, x86-f16c) comes "
                     "from it, and the lowered functions record it "
                     "(target_cpu / target_features)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("Features added to or removed from target-cpu's "
                     "('+avx512vnni,-avx512f', comma-separated)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> reportUnvectorized{
      *this, "report-unvectorized",
      llvm::cl::desc("Emit a remark, with the reason, for every linalg op "
                     "that stays scalar after vectorization "
                     "(--quant-block-cpu-report-unvectorized)"),
      llvm::cl::init(false)};
};

/// Appends the CPU back half to `pm` (a module pass manager): tiling and
/// vectorization, bufferization, loops, host-independent bf16 / f16, and
/// the LLVM dialect.
void buildCPUBackHalfPipeline(OpPassManager &pm,
                              const CPUPipelineOptions &options);

/// Appends the whole CPU pipeline: the front half, then the CPU back half.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// What a GPU target is: the facts of its hardware and code generator that
/// the shared GPU passes adapt to. One value per target
/// (GPUTargetTraits::nvvm(), GPUTargetTraits::spirv()); the pipelines'
/// options say what the user chooses, these what the target is.
struct GPUTargetTraits {
  /// How kernels get workgroup memory: gpu.func workgroup attributions
  /// (NVVM) or memref.alloc in workgroup address space (convert-gpu-to-
  /// spirv lowers only these).
  enum class WorkgroupMemory { Attribution, Alloc };
  WorkgroupMemory workgroupMemory = WorkgroupMemory::Attribution;
  /// The width of the target's subgroups, which the matmul kernels'
  /// shuffles with smaller offsets use (NVIDIA warps: 32; SPIR-V: the
  /// pipeline's `subgroup-size`); 0: unknown, every shuffle goes through
  /// workgroup memory (Vulkan devices have other widths: lavapipe's are 8).
  int64_t subgroupSize = 0;
  /// Aligned 16-byte vector loads are fast and legal (NVVM) rather than
  /// scalar loads (SPIR-V).
  bool vectorLoads = false;
  /// The target's f16 -> f32 extension is exact (NVVM's cvt.f32.f16),
  /// rather than possibly flushing subnormals (SPIR-V drivers).
  bool exactF16Extension = false;
  /// The target's f32 arithmetic keeps subnormals (NVVM without ftz).
  bool exactSubnormals = false;
  /// The target's f32 -> f16 conversion rounds to nearest even with
  /// subnormals, NaN payloads aside (NVVM's cvt.rn.f16.f32): kernels keep
  /// it rather than the integer expansion.
  bool exactF16Truncation = false;
  /// The target has 4-way byte dot products (PTX dp4a from sm_61 on;
  /// SPIR-V's SDot / SUDot on devices with shaderIntegerDotProduct): the
  /// integer matmul kernel sums its codes with them.
  bool byteDotProducts = false;
  /// The integer matmul kernel computes 16 or more activation rows with
  /// warp-level int8 matrix products (nvgpu.mma.sync: NVIDIA tensor cores
  /// from sm_80 on).
  bool tensorCores = false;
  /// Those products go through workgroup memory
  /// (--quant-block-gpu-emulate-warp-matrix-products): targets without
  /// them, where the kernel is to be tested (Vulkan on lavapipe).
  bool emulateTensorCores = false;

  static GPUTargetTraits nvvm() {
    GPUTargetTraits traits;
    traits.subgroupSize = 32;
    traits.vectorLoads = true;
    traits.exactF16Extension = true;
    traits.exactSubnormals = true;
    traits.exactF16Truncation = true;
    return traits;
  }
  static GPUTargetTraits spirv() {
    GPUTargetTraits traits;
    traits.workgroupMemory = WorkgroupMemory::Alloc;
    return traits;
  }
  /// The spelling of the passes' `workgroup-memory` option.
  llvm::StringRef getWorkgroupMemoryName() const {
    return workgroupMemory == WorkgroupMemory::Alloc ? "alloc" : "attribution";
  }
};

/// Options of the GPU middle shared by the GPU pipelines (bufferization,
/// mapping to workgroups and threads, outlining, data movement): the
/// user's choices and the target's traits.
struct GPUMiddleOptions {
  /// Threads per workgroup (one dimension).
  int64_t workgroupSize = 64;
  /// Whether reassociable reductions get a workgroup per output element
  /// (--quant-block-gpu-map-reductions) instead of a loop in one thread.
  bool mapReductions = true;
  /// The fewest reduction iterations per output element mapped that way.
  int64_t minReductionSize = 64;
  /// Whether reassociable quantized products get the warp-per-row kernels
  /// of --quant-block-gpu-matmul-kernels (on tensors, in the front half).
  bool matmulKernels = true;
  /// Weight rows per warp of those kernels (0: chosen from the activation
  /// rows of a tile).
  int64_t rowsPerWarp = 0;
  /// Threads per workgroup of those kernels (0: workgroupSize). 128: four
  /// warps, which split-K gives to the rows of a GEMV (measured on an H200,
  /// docs/GPU.md).
  int64_t matmulWorkgroupSize = 128;
  /// Warps sharing a warp's rows along K in those kernels (0: automatic).
  int64_t splitK = 0;
  /// Most words a lane of those kernels loads at once from a row.
  int64_t chunkWords = 2;
  /// Activation rows per warp of the tensor-core kernels (16 to 64 in
  /// fragments of 16; 0: automatic).
  int64_t tensorCoreRows = 0;
  /// The workgroup size the matmul kernels use.
  int64_t getMatmulWorkgroupSize() const {
    return matmulWorkgroupSize > 0 ? matmulWorkgroupSize : workgroupSize;
  }
  /// The target.
  GPUTargetTraits target;
};

/// The front half's and the GPU middle's options as pipeline options.
template <typename Derived>
struct GPUPipelineOptions : public FrontHalfPipelineOptions<Derived> {
  mlir::detail::PassOptions::Option<int64_t> workgroupSize{
      *this, "workgroup-size",
      llvm::cl::desc("Threads per workgroup: every parallel loop nest is "
                     "collapsed to one dimension and tiled by this size"),
      llvm::cl::init(64)};
  mlir::detail::PassOptions::Option<bool> mapReductions{
      *this, "map-reductions",
      llvm::cl::desc("Sums that may be reassociated (addf with reassoc, "
                     "addi) get one workgroup per output element and a "
                     "tree in workgroup memory (off: one thread each, in "
                     "order)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<int64_t> minReductionSize{
      *this, "min-reduction-size",
      llvm::cl::desc("Fewest reduction iterations per output element that "
                     "map-reductions maps"),
      llvm::cl::init(64)};
  mlir::detail::PassOptions::Option<bool> matmulKernels{
      *this, "matmul-kernels",
      llvm::cl::desc("Quantized products with fastmath<reassoc> get a warp "
                     "of 32 threads per weight row (or per few rows) reading "
                     "packed 32-bit words (--quant-block-gpu-matmul-kernels; "
                     "needs a workgroup-size that is a multiple of 32)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<int64_t> rowsPerWarp{
      *this, "rows-per-warp",
      llvm::cl::desc("Weight rows per warp of those kernels (0: 4 / the "
                     "activation rows of a tile, at least 1)"),
      llvm::cl::init(0)};
  mlir::detail::PassOptions::Option<int64_t> matmulWorkgroupSize{
      *this, "matmul-workgroup-size",
      llvm::cl::desc("Threads per workgroup of those kernels (a multiple of "
                     "32; 0: workgroup-size): by default four warps, which "
                     "share the rows of a long K (split-k)"),
      llvm::cl::init(128)};
  mlir::detail::PassOptions::Option<int64_t> splitK{
      *this, "split-k",
      llvm::cl::desc("Warps of those kernels' workgroups that share a warp's "
                     "weight rows, each summing every split-k-th chunk of K "
                     "(a power of two; 0: the most the workgroup and K "
                     "allow)"),
      llvm::cl::init(0)};
  mlir::detail::PassOptions::Option<int64_t> chunkWords{
      *this, "chunk-words",
      llvm::cl::desc("Most 32-bit words a lane of those kernels loads at "
                     "once from a weight row (1, 2 or 4; 2 was faster than "
                     "4 in 5 of 6 GEMVs on an H200 and an H100, "
                     "docs/GPU.md)"),
      llvm::cl::init(2)};
  mlir::detail::PassOptions::Option<int64_t> tensorCoreRows{
      *this, "tensor-core-rows",
      llvm::cl::desc("Activation rows per warp of the tensor-core kernels "
                     "(16, 32, 48 or 64; 0: the most of 64, 32 and 16 that "
                     "leave a launch 1024 warps; 32 for a dynamic M)"),
      llvm::cl::init(0)};

  GPUMiddleOptions getGPUMiddleOptions(const GPUTargetTraits &target) const {
    GPUMiddleOptions options;
    options.target = target;
    options.workgroupSize = workgroupSize;
    options.mapReductions = mapReductions;
    options.minReductionSize = minReductionSize;
    options.matmulKernels = matmulKernels;
    options.rowsPerWarp = rowsPerWarp;
    options.matmulWorkgroupSize = matmulWorkgroupSize;
    options.splitK = splitK;
    options.chunkWords = chunkWords;
    options.tensorCoreRows = tensorCoreRows;
    return options;
  }
};

/// Appends the front half for a GPU target to `pm`: the front half's
/// transformations, the GPU matmul kernels (where `middle` asks for them
/// and its workgroup size is a multiple of 32), then the lowering to
/// linalg.
void buildGPUFrontHalfPipeline(OpPassManager &pm,
                               const FrontHalfOptions &frontHalf,
                               const GPUMiddleOptions &middle);

/// Appends the GPU middle to `pm` (a module pass manager), after the front
/// half: bufferization, every linalg op a kernel over workgroups of
/// `workgroupSize` threads (reassociable reductions over the threads of a
/// workgroup per output element, the others in sequence in each thread),
/// kernels outlined into a gpu.module, and device buffers and copies around
/// every launch (--quant-block-gpu-data-movement). Targets attach to the
/// gpu.module afterwards.
void buildGPUMiddlePipeline(OpPassManager &pm, const GPUMiddleOptions &options);

/// --quant-block-spirv-pipeline: the front half, the GPU middle, then
/// SPIR-V kernels for Vulkan and LLVM host code.
struct SPIRVPipelineOptions : public GPUPipelineOptions<SPIRVPipelineOptions> {
  PassOptions::Option<std::string> version{
      *this, "spirv-version", llvm::cl::desc("SPIR-V version of the kernels"),
      llvm::cl::init("v1.3")};
  PassOptions::Option<bool> int8DotProducts{
      *this, "int8-dot-products",
      llvm::cl::desc("The device has shaderIntegerDotProduct: the integer "
                     "matmul kernel (accumulate(i32)) sums 4- and 8-bit "
                     "codes with SDot / SUDot (adds the DotProduct and "
                     "DotProductInput4x8Bit capabilities to the target; "
                     "kernels with them are SPIR-V 1.6, Vulkan 1.3's)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> emulatedTensorCores{
      *this, "emulated-tensor-cores",
      llvm::cl::desc("The matmul kernels take the NVVM pipeline's "
                     "tensor-core forms (integer and f16 products of 16 or "
                     "more activation rows), their warp-level matrix "
                     "products performed through workgroup memory: slow, "
                     "for testing those kernels on Vulkan devices"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> subgroupSize{
      *this, "subgroup-size",
      llvm::cl::desc("The device's subgroup size (a power of two dividing "
                     "the matmul kernels' 32-thread warps): their shuffles "
                     "with smaller offsets become SPIR-V subgroup shuffles "
                     "(adds the GroupNonUniform and GroupNonUniformShuffle "
                     "capabilities; the Vulkan runtime requires that size "
                     "of the device); 0: every shuffle through workgroup "
                     "memory"),
      llvm::cl::init(0)};
  PassOptions::ListOption<std::string> capabilities{
      *this, "caps",
      llvm::cl::desc("SPIR-V capabilities the target supports (default: "
                     "Shader, Int8, Int16, Float16, StorageBuffer8BitAccess, "
                     "StorageBuffer16BitAccess)")};
  PassOptions::ListOption<std::string> extensions{
      *this, "exts",
      llvm::cl::desc("SPIR-V extensions the target supports (default: "
                     "SPV_KHR_8bit_storage, SPV_KHR_16bit_storage, "
                     "SPV_KHR_storage_buffer_storage_class)")};
  PassOptions::Option<std::string> clientApi{
      *this, "client-api",
      llvm::cl::desc("Client API of the target (Vulkan, OpenCL, ...)"),
      llvm::cl::init("Vulkan")};
  PassOptions::Option<bool> binary{
      *this, "binary",
      llvm::cl::desc("Serialize the kernels into a gpu.binary and lower the "
                     "host code to LLVM (off: stop with the spirv.module "
                     "and the host code on gpu ops, for inspection)"),
      llvm::cl::init(true)};
};

/// Appends the SPIR-V back half (after the GPU middle).
void buildSPIRVBackHalfPipeline(OpPassManager &pm,
                                const SPIRVPipelineOptions &options);

/// Appends the whole SPIR-V pipeline.
void buildSPIRVPipeline(OpPassManager &pm, const SPIRVPipelineOptions &options);

/// --quant-block-nvvm-pipeline: the front half, the GPU middle, then NVVM
/// kernels compiled to PTX / cubin / fatbin and LLVM host code.
struct NVVMPipelineOptions : public GPUPipelineOptions<NVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target NVIDIA GPU architecture"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (a PTX version every chip accepts: sm_90 "
                     "aborts LLVM with the default +ptx60)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<bool> int8DotProducts{
      *this, "int8-dot-products",
      llvm::cl::desc("The integer matmul kernel (accumulate(i32)) sums 4- "
                     "and 8-bit codes with dp4a (nvvm.dot.accumulate.4way; "
                     "chips from sm_61 on)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Integer and reassociable f16 products of 16 or more "
                     "activation rows take the tensor cores "
                     "(mma.sync.m16n8k32 s8 / m16n8k16 f16; chips from "
                     "sm_80 on)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary format: isa (PTX text, needs no CUDA), "
                     "bin (cubin) or fatbin (both need ptxas)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<int64_t> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level of kernels"),
      llvm::cl::init(3)};
};

/// Appends the NVVM back half (after the GPU middle).
void buildNVVMBackHalfPipeline(OpPassManager &pm,
                               const NVVMPipelineOptions &options);

/// Appends the whole NVVM pipeline.
void buildNVVMPipeline(OpPassManager &pm, const NVVMPipelineOptions &options);

/// Registers --quant-block-linalg-pipeline, --quant-block-cpu-pipeline,
/// --quant-block-spirv-pipeline and --quant-block-nvvm-pipeline (only the
/// pipelines: the passes they use are registered by registerAllPasses() in
/// InitAll.h).
void registerPipelines();

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_PIPELINES_PIPELINES_H
