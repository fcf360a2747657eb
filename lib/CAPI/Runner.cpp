//===- Runner.cpp - compile and call kernels through the C API ------------===//
//
// The C runner is quant-run's machinery behind handles: the signatures are
// read before lowering (EntrySignature), the clone of the module is lowered
// and JIT-compiled by lowerAndCompile, and calls are marshaled by
// PackedCall. Everything the context reports while compiling is captured
// (with its location) and handed to the caller's callback as text together
// with the reason, since a C host has no other place to read it from.
//
//===----------------------------------------------------------------------===//

#include "quant-block-c/Runner.h"

#include "quant-block-c/Passes.h"
#include "quant-block/Codegen/CPU/CPUTarget.h"
#include "quant-block/Runner/CachingAllocator.h"
#include "quant-block/Runner/CompilerMemory.h"
#include "quant-block/Runner/DeviceBuffers.h"
#include "quant-block/Runner/EntrySignature.h"
#include "quant-block/Runner/JitCompiler.h"
#include "quant-block/Runner/MemRefMarshaling.h"
#include "quant-block/Runner/Npy.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::quant_block::runner;

namespace {
struct Executable;

/// A device buffer of some executable: its size and the GPU runtime that
/// made it (its alloc entry point: one per loaded runtime library).
struct SharedDeviceBuffer {
  uint64_t bytes;
  void *(*alloc)(uint64_t);
};

/// Every executable's device buffers, by address. A function takes the
/// buffers of another executable that calls the same GPU runtime (a model
/// compiled once per token count shares one upload of its weights); the
/// executable that uploaded a buffer owns it.
class DeviceBufferRegistry {
public:
  static DeviceBufferRegistry &get() {
    static DeviceBufferRegistry registry;
    return registry;
  }
  void add(void *buffer, SharedDeviceBuffer info) {
    std::lock_guard<std::mutex> lock(mutex);
    buffers[buffer] = info;
  }
  void remove(void *buffer) {
    std::lock_guard<std::mutex> lock(mutex);
    buffers.erase(buffer);
  }
  std::optional<SharedDeviceBuffer> lookup(void *buffer) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = buffers.find(buffer);
    if (it == buffers.end())
      return std::nullopt;
    return it->second;
  }

private:
  mutable std::mutex mutex;
  llvm::DenseMap<void *, SharedDeviceBuffer> buffers;
};

/// One callable function of an executable: its signature and its wrapper.
struct CompiledFunction {
  EntrySignature signature;
  void (*wrapper)(void **) = nullptr;
  const Executable *executable = nullptr;
};

/// The JIT-compiled module and, per function, the signature or the reason
/// the runner cannot call it.
struct Executable {
  std::unique_ptr<ExecutionEngine> engine;
  llvm::StringMap<CompiledFunction> functions;
  llvm::StringMap<std::string> refused;
  /// The GPU runtime the compiled code calls, if it loaded one, and the
  /// device buffers made for its device-resident arguments (-> bytes).
  std::optional<GpuRuntime> gpu;
  llvm::DenseMap<void *, uint64_t> deviceBuffers;
  /// The compiled code allocates with the caching allocator; each call
  /// releases what it cached when it returns.
  bool reuseBuffers = false;

  ~Executable() {
    for (auto &[buffer, bytes] : deviceBuffers) {
      DeviceBufferRegistry::get().remove(buffer);
      gpu->free(buffer);
    }
  }

  /// The size of the device buffer at `buffer` if this executable may pass
  /// it to its functions: one it uploaded, or another executable's of the
  /// same GPU runtime.
  std::optional<uint64_t> getDeviceBufferBytes(void *buffer) const {
    auto own = deviceBuffers.find(buffer);
    if (own != deviceBuffers.end())
      return own->second;
    std::optional<SharedDeviceBuffer> shared =
        DeviceBufferRegistry::get().lookup(buffer);
    if (shared && gpu && shared->alloc == gpu->alloc)
      return shared->bytes;
    return std::nullopt;
  }
};

/// Results copied out of the compiled code's buffers, and their strides.
struct Results {
  llvm::SmallVector<NpyArray> arrays;
  llvm::SmallVector<llvm::SmallVector<int64_t>> strides;
};
} // namespace

static void report(MlirStringCallback onError, void *userData,
                   llvm::StringRef text) {
  if (onError)
    onError(wrap(text), userData);
}

static MlirQuantBlockElementType wrap(NpyDType dtype) {
  return {dtype.kind, static_cast<int32_t>(dtype.size)};
}

/// Appends every diagnostic the context emits, as `loc: error: message`.
static void captureDiagnostic(Diagnostic &diagnostic, std::string &text) {
  llvm::raw_string_ostream os(text);
  os << diagnostic.getLocation() << ": ";
  switch (diagnostic.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  case DiagnosticSeverity::Note:
    os << "note: ";
    break;
  }
  os << diagnostic << "\n";
  for (Diagnostic &note : diagnostic.getNotes())
    os << note.getLocation() << ": note: " << note << "\n";
}

MlirQuantBlockExecutable
mlirQuantBlockExecutableCreate(MlirModule cModule, MlirStringRef pipeline,
                               bool quantizedAsParts,
                               MlirStringCallback onError, void *userData) {
  return mlirQuantBlockExecutableCreateWithLibraries(
      cModule, pipeline, quantizedAsParts, 0, nullptr, onError, userData);
}

/// The native target, the passes and the pass manager options, once.
static void initializeRunner() {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlirRegisterQuantBlockPasses();
    mlirQuantBlockRegisterUpstreamPasses();
    // lowerAndCompile applies the pass manager's command-line options (as
    // quant-run has them); a C host has none, so they take their defaults.
    registerPassManagerCLOptions();
  });
}

bool mlirQuantBlockResolveCPUTarget(MlirStringRef cpu, MlirStringRef features,
                                    MlirQuantBlockCPUTarget *target,
                                    MlirStringCallback onError,
                                    void *userData) {
  initializeRunner();
  llvm::Expected<quant_block::CPUTarget> resolved =
      quant_block::resolveCPUTarget(unwrap(cpu), unwrap(features));
  if (!resolved) {
    report(onError, userData, llvm::toString(resolved.takeError()));
    return false;
  }
  target->avx512f = resolved->avx512f;
  target->avx512Vnni = resolved->avx512Vnni;
  target->amxInt8 = resolved->amxInt8;
  target->amxBF16 = resolved->amxBF16;
  target->f16c = resolved->f16c;
  target->vectorBits = resolved->vectorBits;
  return true;
}

MlirQuantBlockExecutable mlirQuantBlockExecutableCreateWithLibraries(
    MlirModule cModule, MlirStringRef pipeline, bool quantizedAsParts,
    intptr_t numLibraries, const MlirStringRef *libraries,
    MlirStringCallback onError, void *userData) {
  MlirQuantBlockCompileOptions options = {quantizedAsParts, numLibraries,
                                          libraries, /*reuseBuffers=*/false};
  return mlirQuantBlockExecutableCreateWithOptions(cModule, pipeline, &options,
                                                   onError, userData);
}

MlirQuantBlockExecutable mlirQuantBlockExecutableCreateWithOptions(
    MlirModule cModule, MlirStringRef pipeline,
    const MlirQuantBlockCompileOptions *compileOptions,
    MlirStringCallback onError, void *userData) {
  initializeRunner();
  bool quantizedAsParts = compileOptions->quantizedAsParts;
  intptr_t numLibraries = compileOptions->numLibraries;
  const MlirStringRef *libraries = compileOptions->libraries;

  OwningOpRef<ModuleOp> module = unwrap(cModule).clone();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module->getContext(), [&](Diagnostic &d) {
    captureDiagnostic(d, diagnostics);
    return success();
  });

  auto executable = std::make_unique<Executable>();
  std::vector<EntrySignature> signatures;
  for (auto function : module->getOps<func::FuncOp>()) {
    if (function.isDeclaration())
      continue;
    llvm::Expected<EntrySignature> signature =
        inspectEntryFunction(*module, function.getSymName(), quantizedAsParts);
    if (!signature) {
      executable->refused[function.getSymName()] =
          llvm::toString(signature.takeError());
      continue;
    }
    markTensorArgumentsReadOnly(*module, signature->name);
    signatures.push_back(std::move(*signature));
  }

  JitCompileOptions options;
  options.pipeline = unwrap(pipeline).str();
  for (intptr_t index = 0; index < numLibraries; ++index)
    options.sharedLibPaths.push_back(unwrap(libraries[index]).str());
  options.cachingAllocator = compileOptions->reuseBuffers;
  options.cacheLargeBlocksOnly = true;
  executable->reuseBuffers = compileOptions->reuseBuffers;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      lowerAndCompile(*module, signatures, options);
  if (!engine) {
    std::string reason = llvm::toString(engine.takeError());
    report(onError, userData, diagnostics + "error: " + reason + "\n");
    return {nullptr};
  }
  executable->engine = std::move(*engine);
  for (EntrySignature &signature : signatures) {
    llvm::Expected<void (*)(void **)> wrapper =
        executable->engine->lookupPacked(signature.name);
    if (!wrapper) {
      executable->refused[signature.name] = "cannot link @" + signature.name +
                                            ": " +
                                            llvm::toString(wrapper.takeError());
      continue;
    }
    std::string name = signature.name;
    executable->functions[name] = {std::move(signature), *wrapper,
                                   executable.get()};
  }
  executable->gpu = GpuRuntime::findIn(options.sharedLibPaths);
  return {executable.release()};
}

static Executable &unwrap(MlirQuantBlockExecutable executable) {
  return *static_cast<Executable *>(executable.ptr);
}

void *mlirQuantBlockExecutableUpload(MlirQuantBlockExecutable cExecutable,
                                     const MlirQuantBlockBuffer *array,
                                     MlirStringCallback onError,
                                     void *userData) {
  Executable &executable = unwrap(cExecutable);
  if (!executable.gpu) {
    report(onError, userData,
           "error: the executable loaded no GPU runtime (give "
           "libQuantBlockCudaRuntime.so or libQuantBlockVulkanRuntime.so as "
           "a library of the executable)\n");
    return nullptr;
  }
  uint64_t bytes = array->elementType.size;
  for (intptr_t dim = 0; dim < array->rank; ++dim)
    bytes *= array->shape[dim];
  if (array->strides) {
    int64_t expected = 1;
    for (intptr_t dim = array->rank - 1; dim >= 0; --dim) {
      if (array->shape[dim] != 1 && array->strides[dim] != expected) {
        report(onError, userData,
               "error: only dense row-major arrays are uploaded\n");
        return nullptr;
      }
      expected *= array->shape[dim];
    }
  }
  // One byte for an empty array, so that the buffer has an address of its
  // own to be recognized by.
  void *device = executable.gpu->alloc(std::max<uint64_t>(bytes, 1));
  executable.gpu->upload(device, array->data, bytes);
  executable.deviceBuffers[device] = bytes;
  DeviceBufferRegistry::get().add(device, {bytes, executable.gpu->alloc});
  return device;
}

void mlirQuantBlockExecutableFreeDevice(MlirQuantBlockExecutable cExecutable,
                                        void *device) {
  Executable &executable = unwrap(cExecutable);
  if (executable.deviceBuffers.erase(device)) {
    DeviceBufferRegistry::get().remove(device);
    executable.gpu->free(device);
  }
}

bool mlirQuantBlockExecutableGetCopyStats(MlirQuantBlockExecutable cExecutable,
                                          uint64_t stats[6]) {
  Executable &executable = unwrap(cExecutable);
  if (!executable.gpu)
    return false;
  QuantBlockGpuCopyStats counts;
  executable.gpu->getCopyStats(&counts);
  uint64_t values[6] = {
      counts.hostToDeviceCopies,   counts.hostToDeviceBytes,
      counts.deviceToHostCopies,   counts.deviceToHostBytes,
      counts.deviceToDeviceCopies, counts.deviceToDeviceBytes};
  std::copy(values, values + 6, stats);
  return true;
}

bool mlirQuantBlockExecutableGetLaunchStats(
    MlirQuantBlockExecutable cExecutable, uint64_t stats[2]) {
  Executable &executable = unwrap(cExecutable);
  if (!executable.gpu)
    return false;
  QuantBlockGpuLaunchStats counts;
  executable.gpu->getLaunchStats(&counts);
  stats[0] = counts.kernelLaunches;
  stats[1] = counts.synchronizations;
  return true;
}

void mlirQuantBlockExecutableDestroy(MlirQuantBlockExecutable executable) {
  delete static_cast<Executable *>(executable.ptr);
}

uint64_t mlirQuantBlockReleaseCompilerMemory() {
  return releaseCompilerMemory();
}

bool mlirQuantBlockFunctionIsArgumentDeviceResident(MlirQuantBlockFunction fn,
                                                    intptr_t pos) {
  return static_cast<const CompiledFunction *>(fn.ptr)
      ->signature.arguments[pos]
      .deviceResident;
}

static const CompiledFunction &unwrap(MlirQuantBlockFunction function) {
  return *static_cast<const CompiledFunction *>(function.ptr);
}

MlirQuantBlockFunction
mlirQuantBlockExecutableLookup(MlirQuantBlockExecutable cExecutable,
                               MlirStringRef cName, MlirStringCallback onError,
                               void *userData) {
  auto &executable = *static_cast<Executable *>(cExecutable.ptr);
  llvm::StringRef name = unwrap(cName);
  auto found = executable.functions.find(name);
  if (found != executable.functions.end())
    return {&found->second};
  auto refused = executable.refused.find(name);
  if (refused != executable.refused.end())
    report(onError, userData, "error: " + refused->second + "\n");
  else
    report(onError, userData,
           ("error: the module defines no func.func @" + name + "\n").str());
  return {nullptr};
}

intptr_t mlirQuantBlockFunctionGetNumArguments(MlirQuantBlockFunction fn) {
  return unwrap(fn).signature.arguments.size();
}
intptr_t mlirQuantBlockFunctionGetNumResults(MlirQuantBlockFunction fn) {
  return unwrap(fn).signature.results.size();
}

static int64_t wrapDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? MLIR_QUANT_BLOCK_DYNAMIC_DIMENSION : dim;
}

MlirQuantBlockElementType
mlirQuantBlockFunctionGetArgumentElementType(MlirQuantBlockFunction fn,
                                             intptr_t pos) {
  return wrap(unwrap(fn).signature.arguments[pos].dtype);
}
intptr_t mlirQuantBlockFunctionGetArgumentRank(MlirQuantBlockFunction fn,
                                               intptr_t pos) {
  return unwrap(fn).signature.arguments[pos].getRank();
}
int64_t mlirQuantBlockFunctionGetArgumentDim(MlirQuantBlockFunction fn,
                                             intptr_t pos, intptr_t dim) {
  return wrapDim(unwrap(fn).signature.arguments[pos].shape[dim]);
}
MlirStringRef mlirQuantBlockFunctionGetArgumentName(MlirQuantBlockFunction fn,
                                                    intptr_t pos) {
  return wrap(llvm::StringRef(unwrap(fn).signature.arguments[pos].name));
}
MlirQuantBlockElementType
mlirQuantBlockFunctionGetResultElementType(MlirQuantBlockFunction fn,
                                           intptr_t pos) {
  return wrap(unwrap(fn).signature.results[pos].dtype);
}
intptr_t mlirQuantBlockFunctionGetResultRank(MlirQuantBlockFunction fn,
                                             intptr_t pos) {
  return unwrap(fn).signature.results[pos].getRank();
}
int64_t mlirQuantBlockFunctionGetResultDim(MlirQuantBlockFunction fn,
                                           intptr_t pos, intptr_t dim) {
  return wrapDim(unwrap(fn).signature.results[pos].shape[dim]);
}

/// True if `buffer` is laid out densely in row-major order.
static bool isDenseRowMajor(const MlirQuantBlockBuffer &buffer) {
  if (!buffer.strides)
    return true;
  int64_t expected = 1;
  for (intptr_t dim = buffer.rank - 1; dim >= 0; --dim) {
    if (buffer.shape[dim] != 1 && buffer.strides[dim] != expected)
      return false;
    expected *= buffer.shape[dim];
  }
  return true;
}

MlirQuantBlockResults
mlirQuantBlockFunctionCall(MlirQuantBlockFunction cFunction,
                           intptr_t numArguments,
                           const MlirQuantBlockBuffer *arguments,
                           MlirStringCallback onError, void *userData) {
  const CompiledFunction &function = unwrap(cFunction);
  const EntrySignature &signature = function.signature;
  if (static_cast<size_t>(numArguments) != signature.arguments.size()) {
    report(onError, userData,
           ("error: @" + signature.name + " takes " +
            llvm::Twine(signature.arguments.size()) + " arguments but " +
            llvm::Twine(numArguments) + " were given\n")
               .str());
    return {nullptr};
  }
  PackedCall call(signature);
  // Strided arguments are copied densely; these buffers hold the copies
  // until the call returns.
  llvm::SmallVector<NpyArray> denseCopies;
  denseCopies.reserve(numArguments);
  for (intptr_t index = 0; index < numArguments; ++index) {
    const MlirQuantBlockBuffer &buffer = arguments[index];
    NpyArray described;
    described.dtype = {buffer.elementType.kind,
                       static_cast<unsigned>(buffer.elementType.size)};
    described.shape.assign(buffer.shape, buffer.shape + buffer.rank);
    if (llvm::Error err = checkInput(signature, index, described, "buffer")) {
      report(onError, userData,
             "error: " + llvm::toString(std::move(err)) + "\n");
      return {nullptr};
    }
    // A device buffer is passed as it is, and only where the function
    // expects one: the kernels would fault on a host pointer (CUDA) and
    // the host code on a device one.
    const BoundaryValue &argument = signature.arguments[index];
    const Executable &executable = *function.executable;
    std::optional<uint64_t> deviceBytes =
        executable.getDeviceBufferBytes(buffer.data);
    bool isDeviceBuffer = deviceBytes.has_value();
    if (argument.deviceResident != isDeviceBuffer) {
      report(onError, userData,
             "error: " + argument.name +
                 (argument.deviceResident
                      ? " is device-resident (quant_block.device_resident): "
                        "pass a buffer of mlirQuantBlockExecutableUpload"
                      : " is a host argument but was given a device buffer") +
                 "\n");
      return {nullptr};
    }
    if (isDeviceBuffer) {
      if (*deviceBytes != described.getByteSize() || !isDenseRowMajor(buffer)) {
        report(onError, userData,
               "error: " + argument.name + " takes " +
                   std::to_string(described.getByteSize()) +
                   " dense bytes but its device buffer holds " +
                   std::to_string(*deviceBytes) + "\n");
        return {nullptr};
      }
      call.setDenseArgument(index, buffer.data, described.shape);
      continue;
    }
    if (isDenseRowMajor(buffer)) {
      call.setDenseArgument(index, buffer.data, described.shape);
      continue;
    }
    MemRefView view;
    view.allocated = view.aligned = buffer.data;
    view.sizes.assign(buffer.shape, buffer.shape + buffer.rank);
    view.strides.assign(buffer.strides, buffer.strides + buffer.rank);
    llvm::Expected<AlignedBuffer> storage =
        AlignedBuffer::allocate(std::max<size_t>(described.getByteSize(), 1));
    if (!storage) {
      report(onError, userData,
             "error: " + llvm::toString(storage.takeError()) + "\n");
      return {nullptr};
    }
    described.buffer = std::move(*storage);
    copyToDense(view, described.dtype.size, described.buffer.data());
    denseCopies.push_back(std::move(described));
    call.setArgument(index, denseCopies.back());
  }

  function.wrapper(call.prepare());
  auto results = std::make_unique<Results>();
  for (size_t index = 0; index < signature.results.size(); ++index) {
    llvm::Expected<NpyArray> array = call.copyResult(index);
    if (!array) {
      call.freeResults();
      report(onError, userData,
             "error: " + llvm::toString(array.takeError()) + "\n");
      return {nullptr};
    }
    llvm::SmallVector<int64_t> strides(array->shape.size());
    int64_t stride = 1;
    for (int64_t dim = static_cast<int64_t>(strides.size()) - 1; dim >= 0;
         --dim) {
      strides[dim] = stride;
      stride *= array->shape[dim];
    }
    results->arrays.push_back(std::move(*array));
    results->strides.push_back(std::move(strides));
  }
  call.freeResults();
  // Nothing stays cached between calls: the blocks cached during this one
  // (and its results, copied above) go back to the system.
  if (function.executable->reuseBuffers)
    releaseCachedBlocks();
  return {results.release()};
}

intptr_t mlirQuantBlockResultsGetNum(MlirQuantBlockResults results) {
  return static_cast<Results *>(results.ptr)->arrays.size();
}

MlirQuantBlockBuffer mlirQuantBlockResultsGet(MlirQuantBlockResults cResults,
                                              intptr_t pos) {
  auto &results = *static_cast<Results *>(cResults.ptr);
  NpyArray &array = results.arrays[pos];
  return {array.buffer.data(), static_cast<intptr_t>(array.shape.size()),
          array.shape.data(), results.strides[pos].data(), wrap(array.dtype)};
}

void mlirQuantBlockResultsDestroy(MlirQuantBlockResults results) {
  delete static_cast<Results *>(results.ptr);
}
