/*===- quant-block-c/Runner.h - compile and call kernels from C ---*- C -*-===*\
|*                                                                            *|
|* A small runner over the JIT that quant-run uses (quant-block/Runner):      *|
|* compile a module with a pass pipeline, look up a function, call it with    *|
|* strided buffers and receive its results as dense buffers. The signature    *|
|* of each function is read before lowering, as quant-run does, so every call *|
|* is checked against the element types and static dimensions the source IR   *|
|* states. Failures return null and hand the captured diagnostics (with their *|
|* locations) and the reason to an MlirStringCallback as text.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_C_RUNNER_H
#define QUANT_BLOCK_C_RUNNER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

/// A compiled module: its JIT-compiled code and the signatures of its
/// functions.
DEFINE_C_API_STRUCT(MlirQuantBlockExecutable, void);
/// One function of an executable; owned by it.
DEFINE_C_API_STRUCT(MlirQuantBlockFunction, const void);
/// The results of one call, copied into dense buffers the caller owns.
DEFINE_C_API_STRUCT(MlirQuantBlockResults, void);

#undef DEFINE_C_API_STRUCT

/// An element type as numpy describes it: a kind ('f' float, 'i' signed
/// integer, 'u' unsigned integer, 'b' bool) and a size in bytes. bf16 and
/// the 8-bit float types travel as their bit patterns ('u', 2 and 'u', 1),
/// as quant-run's .npy files do (docs/Runner.md).
typedef struct MlirQuantBlockElementType {
  char kind;
  int32_t size;
} MlirQuantBlockElementType;

/// A strided view of an array: element [i0, ..., ir-1] is at
/// data + (i0 * strides[0] + ... ) * elementType.size bytes. `strides` in
/// elements; NULL means dense row-major. A scalar is rank 0 with `data`
/// pointing to its value.
typedef struct MlirQuantBlockBuffer {
  void *data;
  intptr_t rank;
  const int64_t *shape;
  const int64_t *strides;
  MlirQuantBlockElementType elementType;
} MlirQuantBlockBuffer;

/// A dimension the signature leaves open (`?`).
#define MLIR_QUANT_BLOCK_DYNAMIC_DIMENSION INT64_MIN

/// Compiles a clone of `module` (which is left as it is): reads the
/// signature of every func.func it defines, lowers the clone with the
/// textual pass pipeline `pipeline` (e.g. "quant-block-cpu-pipeline"; the
/// quant-block and upstream passes are registered first) and JIT-compiles it
/// for the host at -O3. With `quantizedAsParts`, !quant_block.tensor
/// arguments and results are passed as their parts (packed data, scales,
/// zero points, ...; quant-run --quantized-as-parts). On failure returns a
/// null executable and calls `onError` with the diagnostics and the reason.
MLIR_CAPI_EXPORTED MlirQuantBlockExecutable mlirQuantBlockExecutableCreate(
    MlirModule module, MlirStringRef pipeline, bool quantizedAsParts,
    MlirStringCallback onError, void *userData);

/// As mlirQuantBlockExecutableCreate, and loads the `numLibraries` shared
/// libraries at `libraries` (paths) for the calls of the compiled code: the
/// GPU runtime (libQuantBlockCudaRuntime.so, libQuantBlockVulkanRuntime.so)
/// of a module lowered with a GPU pipeline, whose device buffers
/// mlirQuantBlockExecutableUpload makes.
MLIR_CAPI_EXPORTED MlirQuantBlockExecutable
mlirQuantBlockExecutableCreateWithLibraries(
    MlirModule module, MlirStringRef pipeline, bool quantizedAsParts,
    intptr_t numLibraries, const MlirStringRef *libraries,
    MlirStringCallback onError, void *userData);

/// How mlirQuantBlockExecutableCreateWithOptions compiles and calls.
typedef struct MlirQuantBlockCompileOptions {
  /// !quant_block.tensor arguments and results passed as their parts.
  bool quantizedAsParts;
  /// Shared libraries (paths) the compiled code calls (a GPU runtime).
  intptr_t numLibraries;
  const MlirStringRef *libraries;
  /// The compiled code's malloc hands out again, pages already mapped, the
  /// blocks of 32 MiB or more and of the same size that the same call freed
  /// (an inference step's layers ask for the same temporaries layer after
  /// layer; glibc maps such a block afresh each time, and touching fresh
  /// pages costs page faults; it keeps smaller ones in its heaps). What a
  /// call freed is released when it returns, so nothing stays resident
  /// between calls.
  bool reuseBuffers;
} MlirQuantBlockCompileOptions;

/// As mlirQuantBlockExecutableCreate, with `options`.
MLIR_CAPI_EXPORTED MlirQuantBlockExecutable
mlirQuantBlockExecutableCreateWithOptions(
    MlirModule module, MlirStringRef pipeline,
    const MlirQuantBlockCompileOptions *options, MlirStringCallback onError,
    void *userData);

MLIR_CAPI_EXPORTED void
mlirQuantBlockExecutableDestroy(MlirQuantBlockExecutable executable);

/// After compiling, for a process that goes on to run what it compiled:
/// returns malloc's free heap to the system and asks the kernel to page out
/// the pages of libMLIR and libLLVM that compiling touched (none of it is
/// needed to call compiled functions; the next compilation reads the pages
/// back from the page cache). Returns the bytes of library mappings the
/// kernel took the advice for (0 without MADV_PAGEOUT, Linux before 5.4,
/// or with the compiler linked statically).
MLIR_CAPI_EXPORTED uint64_t mlirQuantBlockReleaseCompilerMemory(void);

/// Copies the dense row-major `array` (strides must be NULL or dense) into
/// a new device buffer of the executable's GPU runtime and returns its
/// address, to be passed as the `data` of a device-resident argument
/// (`quant_block.device_resident`) in any number of calls; freed by
/// mlirQuantBlockExecutableFreeDevice or with the executable. Returns NULL
/// (and `onError` told why) when the executable loaded no GPU runtime.
MLIR_CAPI_EXPORTED void *
mlirQuantBlockExecutableUpload(MlirQuantBlockExecutable executable,
                               const MlirQuantBlockBuffer *array,
                               MlirStringCallback onError, void *userData);

/// Frees a buffer of mlirQuantBlockExecutableUpload.
MLIR_CAPI_EXPORTED void
mlirQuantBlockExecutableFreeDevice(MlirQuantBlockExecutable executable,
                                   void *device);

/// The copies the executable's GPU runtime made so far, in the order of
/// quant-block-c/GpuRuntime.h's QuantBlockGpuCopyStats (host to device:
/// copies, bytes; device to host: copies, bytes; device to device: copies,
/// bytes); false when it loaded no GPU runtime.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockExecutableGetCopyStats(MlirQuantBlockExecutable executable,
                                     uint64_t stats[6]);

/// The kernel launches and host waits (stream and event synchronizations)
/// of the executable's GPU runtime so far, in the order of
/// quant-block-c/GpuRuntime.h's QuantBlockGpuLaunchStats (launches,
/// synchronizations); false when it loaded no GPU runtime.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockExecutableGetLaunchStats(MlirQuantBlockExecutable executable,
                                       uint64_t stats[2]);

/// What the kernels of --quant-block-cpu-pipeline may use on a CPU (the
/// pipeline's x86 options that its `target-cpu` / `target-features`
/// resolve to, docs/CPU.md).
typedef struct MlirQuantBlockCPUTarget {
  bool avx512f;
  /// AVX512-VNNI with AVX512BW (vpdpbusd on 512-bit vectors).
  bool avx512Vnni;
  /// AMX-TILE and AMX-INT8 with AVX512-VNNI.
  bool amxInt8;
  /// AMX-TILE and AMX-BF16 (the amx_bf16 kernel, x86-amx-bf16).
  bool amxBF16;
  bool f16c;
  /// The widest vector registers, in bits.
  int64_t vectorBits;
} MlirQuantBlockCPUTarget;

/// Resolves `cpu` ("host": the CPU the executables of this runner are
/// compiled for; an LLVM processor name such as "x86-64-v3"; empty: the
/// generic one) with `features` ("+avx512vnni,-avx512f", may be empty)
/// into `target`. Returns false (and `onError` told why) for an unknown
/// processor or feature name.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockResolveCPUTarget(MlirStringRef cpu, MlirStringRef features,
                               MlirQuantBlockCPUTarget *target,
                               MlirStringCallback onError, void *userData);

static inline bool
mlirQuantBlockExecutableIsNull(MlirQuantBlockExecutable executable) {
  return !executable.ptr;
}

/// The function `name`, or null (and `onError` told why: missing, or a
/// signature the runner cannot pass).
MLIR_CAPI_EXPORTED MlirQuantBlockFunction mlirQuantBlockExecutableLookup(
    MlirQuantBlockExecutable executable, MlirStringRef name,
    MlirStringCallback onError, void *userData);

static inline bool mlirQuantBlockFunctionIsNull(MlirQuantBlockFunction fn) {
  return !fn.ptr;
}

/// How many arguments and results cross the boundary (a quantized tensor
/// passed as parts counts once per part).
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockFunctionGetNumArguments(MlirQuantBlockFunction function);
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockFunctionGetNumResults(MlirQuantBlockFunction function);

/// The element type, rank and dimension `dim` (or
/// MLIR_QUANT_BLOCK_DYNAMIC_DIMENSION) of argument or result `pos`, and its
/// description ("argument #1 of @f (the scales of ...)") for messages.
MLIR_CAPI_EXPORTED MlirQuantBlockElementType
mlirQuantBlockFunctionGetArgumentElementType(MlirQuantBlockFunction function,
                                             intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t mlirQuantBlockFunctionGetArgumentRank(
    MlirQuantBlockFunction function, intptr_t pos);
MLIR_CAPI_EXPORTED int64_t mlirQuantBlockFunctionGetArgumentDim(
    MlirQuantBlockFunction function, intptr_t pos, intptr_t dim);
MLIR_CAPI_EXPORTED MlirStringRef mlirQuantBlockFunctionGetArgumentName(
    MlirQuantBlockFunction function, intptr_t pos);
/// Whether argument `pos` is device-resident (`quant_block.device_resident`):
/// its `data` must then come from mlirQuantBlockExecutableUpload.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockFunctionIsArgumentDeviceResident(MlirQuantBlockFunction function,
                                               intptr_t pos);
MLIR_CAPI_EXPORTED MlirQuantBlockElementType
mlirQuantBlockFunctionGetResultElementType(MlirQuantBlockFunction function,
                                           intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t mlirQuantBlockFunctionGetResultRank(
    MlirQuantBlockFunction function, intptr_t pos);
MLIR_CAPI_EXPORTED int64_t mlirQuantBlockFunctionGetResultDim(
    MlirQuantBlockFunction function, intptr_t pos, intptr_t dim);

/// Calls `function` on `arguments` (checked first against the signature:
/// count, element type, rank and static dimensions; strided buffers are
/// copied densely, dense ones are passed as they are). A tensor argument is
/// not written by the function; a memref argument is the caller's buffer,
/// which the function may write in place (state kept across calls, such as
/// the KV cache of quant_block.llama; pass it dense, or the writes go to a
/// copy). A device-resident argument takes a buffer of
/// mlirQuantBlockExecutableUpload of its exact size, which is passed to the
/// kernels without a copy; any other argument must not be such a buffer.
/// Returns the results, or null with `onError` told why.
MLIR_CAPI_EXPORTED MlirQuantBlockResults mlirQuantBlockFunctionCall(
    MlirQuantBlockFunction function, intptr_t numArguments,
    const MlirQuantBlockBuffer *arguments, MlirStringCallback onError,
    void *userData);

static inline bool mlirQuantBlockResultsIsNull(MlirQuantBlockResults results) {
  return !results.ptr;
}

MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockResultsGetNum(MlirQuantBlockResults results);
/// Result `pos` as a dense buffer, valid until the results are destroyed.
MLIR_CAPI_EXPORTED MlirQuantBlockBuffer
mlirQuantBlockResultsGet(MlirQuantBlockResults results, intptr_t pos);
MLIR_CAPI_EXPORTED void
mlirQuantBlockResultsDestroy(MlirQuantBlockResults results);

#ifdef __cplusplus
}
#endif

#endif // QUANT_BLOCK_C_RUNNER_H
