//===- quant-run.cpp - run a quant-block function on .npy arrays ----------===//
//
// Like mlir-runner, but for functions with arguments and results: reads a
// module, takes the entry function's signature before lowering, reads one
// .npy file per argument and checks it against the signature, lowers the
// module with a pass pipeline (by default --quant-block-cpu-pipeline),
// JIT-compiles it at -O3, calls the entry once and writes one .npy file per
// result (or prints a summary of each). With --benchmark=N it then times N
// more calls and relates them to the memory bandwidth it measures.
//
//   quant-run kernel.mlir -e dequant -i data.npy -i scales.npy -o out.npy
//   quant-run kernel.mlir -e dequant -i data.npy -i scales.npy --benchmark=20
//
// docs/Runner.md describes the calling convention, the dtype mapping, the
// errors and the benchmark method.
//
//===----------------------------------------------------------------------===//

#include "quant-block/InitAll.h"
#include "quant-block/Runner/Bandwidth.h"
#include "quant-block/Runner/Benchmark.h"
#include "quant-block/Runner/DeviceBuffers.h"
#include "quant-block/Runner/EntrySignature.h"
#include "quant-block/Runner/JitCompiler.h"
#include "quant-block/Runner/MemRefMarshaling.h"
#include "quant-block/Runner/Npy.h"
#include "quant-block/Target/GGUF/GGUFFile.h"
#include "quant-block/Target/GGUF/GGUFImporter.h"
#include "quant-block/Target/GGUF/GGUFParts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::quant_block::runner;
using llvm::Error;
using llvm::Twine;

namespace cl = llvm::cl;

static cl::OptionCategory runCategory("quant-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"), cl::cat(runCategory));

static cl::opt<std::string>
    entryName("e",
              cl::desc("The entry function, a func.func (default: main); "
                       "only it and the functions it calls are compiled"),
              cl::value_desc("name"), cl::init("main"), cl::cat(runCategory));
static cl::alias entryNameAlias("entry-point", cl::desc("Alias for -e"),
                                cl::aliasopt(entryName), cl::cat(runCategory));

static cl::list<std::string>
    inputFiles("i",
               cl::desc("A .npy file for the next argument of the entry "
                        "(once per argument, in order)"),
               cl::value_desc("file.npy"), cl::cat(runCategory));

static cl::opt<std::string> ggufFile(
    "gguf",
    cl::desc("A GGUF file for the entry's arguments that carry "
             "{quant_block.gguf_tensor = \"NAME\"} (as quant-import-gguf "
             "writes them): each gets tensor NAME of the file, repacked into "
             "its parts (quantized tensors need --quantized-as-parts); -i "
             "gives the other arguments, in order"),
    cl::value_desc("file.gguf"), cl::cat(runCategory));

static cl::list<std::string> outputFiles(
    "o",
    cl::desc("A .npy file for the next result (once per result, in order; "
             "none prints a summary of each result)"),
    cl::value_desc("file.npy"), cl::cat(runCategory));

static cl::opt<std::string>
    pipeline("pipeline",
             cl::desc("The pass pipeline that lowers the module to the "
                      "LLVM dialect: a registered pipeline (e.g. "
                      "quant-block-spirv-pipeline) or a textual one"),
             cl::init("quant-block-cpu-pipeline"), cl::cat(runCategory));

static cl::opt<bool> printIRAfterPipeline(
    "print-ir-after-pipeline",
    cl::desc("Print the module after the pass pipeline to stdout"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<std::string> targetCPU(
    "target-cpu",
    cl::desc("Generate code for this CPU (an LLVM processor name such as "
             "x86-64-v2, x86-64-v3, x86-64-v4; default: the host). It must "
             "be one the host can execute"),
    cl::value_desc("name"), cl::cat(runCategory));

static cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("LLVM target features to add (+name) or remove (-name), on top "
             "of --target-cpu's (e.g. +avx512bf16)"),
    cl::value_desc("+a,-b"), cl::cat(runCategory));

static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Libraries the compiled code calls (e.g. "
                        "libmlir_runner_utils.so for printMemref*, "
                        "libQuantBlockVulkanRuntime.so for the mgpu* calls "
                        "of a module lowered for Vulkan). A module whose "
                        "lowering has OpenMP ops (the threads of "
                        "--quant-block-cpu-pipeline, parallel=true by "
                        "default) gets the libomp of the LLVM installation "
                        "automatically, unless a libomp* is given here; "
                        "OMP_NUM_THREADS sets the thread count"),
               cl::CommaSeparated, cl::value_desc("a.so,b.so"),
               cl::cat(runCategory));

static cl::opt<bool> quantizedAsParts(
    "quantized-as-parts",
    cl::desc("Pass !quant_block.tensor arguments and results as their "
             "lowered parts (packed data, scales, zero points, ...), one "
             ".npy file each"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<unsigned> benchmarkCalls(
    "benchmark",
    cl::desc("After the first call (the warm-up), time N more calls and "
             "report them against the memory bandwidth"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCategory));

static cl::opt<std::string>
    benchmarkJson("benchmark-json",
                  cl::desc("Also write the benchmark report as JSON to FILE"),
                  cl::value_desc("FILE"), cl::cat(runCategory));

static cl::opt<unsigned long long> bytesOverride(
    "bytes",
    cl::desc("Bytes moved per call, for the throughput (default: the bytes "
             "of all inputs and outputs)"),
    cl::value_desc("n"), cl::init(0), cl::cat(runCategory));

static cl::opt<bool> benchmarkFreshMemory(
    "benchmark-fresh-memory",
    cl::desc("Let the benchmarked code use libc's malloc and free, so that "
             "each call maps fresh pages for large buffers, instead of the "
             "caching allocator that reuses them"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<bool> benchmarkCold(
    "benchmark-cold",
    cl::desc("Keep the weights out of the caches, as a decode step sees "
             "them: rotate the timed calls over copies of the inputs of at "
             "least 64 KiB totalling 8 x the last-level cache, count only "
             "those bytes, and measure the read-only bandwidth over the "
             "copies"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<unsigned> coldLLCMiB(
    "benchmark-cold-llc-mib",
    cl::desc("The last-level cache size for --benchmark-cold, in MiB "
             "(default: /sys/devices/system/cpu/cpu0/cache/index3/size, or "
             "32 MiB)"),
    cl::init(0), cl::cat(runCategory));

static cl::opt<unsigned> bandwidthMiB(
    "bandwidth-mib",
    cl::desc("Size in MiB of each of the two buffers of the memory "
             "bandwidth measurement (0: do not measure)"),
    cl::init(256), cl::cat(runCategory));

static Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Reports `error` as "quant-run: error: ..." and returns the exit code.
static int fail(Error error) {
  llvm::WithColor::error(llvm::errs(), "quant-run")
      << llvm::toString(std::move(error)) << "\n";
  return 1;
}

/// "1 input was" / "2 inputs were".
static std::string countWas(size_t count, StringRef word) {
  return (Twine(count) + " " + word + (count == 1 ? " was" : "s were")).str();
}

static std::string plural(size_t count, StringRef word) {
  return (Twine(count) + " " + word + (count == 1 ? "" : "s")).str();
}

/// Prints one element of `array` at `index` as numpy would show its value.
static void printElement(llvm::raw_ostream &os, const NpyArray &array,
                         int64_t index) {
  const char *at = array.buffer.data() + index * array.dtype.size;
  auto load = [&](auto value) {
    std::memcpy(&value, at, sizeof(value));
    return value;
  };
  switch (array.dtype.kind) {
  case 'b':
    os << (load(uint8_t()) ? "True" : "False");
    return;
  case 'i':
    switch (array.dtype.size) {
    case 1:
      os << static_cast<int>(load(int8_t()));
      return;
    case 2:
      os << load(int16_t());
      return;
    case 4:
      os << load(int32_t());
      return;
    default:
      os << load(int64_t());
      return;
    }
  case 'u':
    switch (array.dtype.size) {
    case 1:
      os << static_cast<unsigned>(load(uint8_t()));
      return;
    case 2:
      os << load(uint16_t());
      return;
    case 4:
      os << load(uint32_t());
      return;
    default:
      os << load(uint64_t());
      return;
    }
  default:
    if (array.dtype.size == 2) {
      llvm::APFloat value(llvm::APFloat::IEEEhalf(),
                          llvm::APInt(16, load(uint16_t())));
      bool losesInfo;
      value.convert(llvm::APFloat::IEEEsingle(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      os << llvm::format("%g", value.convertToFloat());
    } else if (array.dtype.size == 4) {
      os << llvm::format("%g", load(float()));
    } else {
      os << llvm::format("%g", load(double()));
    }
  }
}

/// Prints "result #0 of @main: tensor<?x3xf32> as <f4 (2, 3) = [...]", with
/// at most 16 values.
static void printSummary(llvm::raw_ostream &os, const BoundaryValue &result,
                         const NpyArray &array) {
  os << result.name << ": " << result.type << " as " << array.dtype.str() << " "
     << array.getShapeString() << " = ";
  int64_t count = array.getNumElements();
  if (result.isShaped)
    os << "[";
  constexpr int64_t kShown = 16;
  for (int64_t i = 0; i < std::min(count, kShown); ++i) {
    if (i)
      os << ", ";
    printElement(os, array, i);
  }
  if (count > kShown)
    os << ", ... (" << count << " values)";
  if (result.isShaped)
    os << "]";
  os << "\n";
}

/// The boundary values of the entry's arguments that name a GGUF tensor
/// (`quant_block.gguf_tensor`), loaded from --gguf: index -> array.
static llvm::Expected<std::map<unsigned, NpyArray>>
readGGUFArguments(ModuleOp module, const EntrySignature &signature) {
  std::map<unsigned, NpyArray> loaded;
  auto function = module.lookupSymbol<func::FuncOp>(signature.name);
  auto tensorName = [&](unsigned position) {
    return function.getArgAttrOfType<StringAttr>(
        position, quant_block::gguf::kTensorAttrName);
  };
  bool any = false;
  for (unsigned position = 0; position < function.getNumArguments(); ++position)
    any |= bool(tensorName(position));
  if (ggufFile.empty()) {
    if (any)
      return makeError(
          "@" + signature.name + " has arguments loaded from a GGUF file (" +
          quant_block::gguf::kTensorAttrName + "): give the file with --gguf");
    return std::move(loaded);
  }
  llvm::Expected<std::unique_ptr<quant_block::gguf::GGUFFile>> file =
      quant_block::gguf::GGUFFile::open(ggufFile);
  if (!file)
    return file.takeError();
  for (unsigned position = 0; position < function.getNumArguments();
       ++position) {
    StringAttr name = tensorName(position);
    if (!name)
      continue;
    std::string where =
        ("argument #" + Twine(position) + " of @" + signature.name +
         " (GGUF tensor '" + name.getValue() + "')")
            .str();
    const quant_block::gguf::GGUFTensorInfo *tensor =
        (*file)->lookupTensor(name.getValue());
    if (!tensor)
      return makeError(where + ": " + ggufFile + " has no such tensor");
    llvm::Expected<quant_block::gguf::TensorLayout> layout =
        quant_block::gguf::getTensorLayout(*tensor);
    if (!layout)
      return makeError(where + ": " + llvm::toString(layout.takeError()));
    llvm::SmallVector<unsigned> indices;
    for (auto [index, value] : llvm::enumerate(signature.arguments))
      if (value.position == position)
        indices.push_back(index);
    if (indices.size() != layout->parts.size())
      return makeError(where + ": the argument crosses as " +
                       plural(indices.size(), "value") + " but the tensor (" +
                       layout->type + ") has " +
                       plural(layout->parts.size(), "part"));
    std::vector<llvm::MutableArrayRef<uint8_t>> buffers;
    for (auto [index, part] : llvm::zip(indices, layout->parts)) {
      llvm::Expected<AlignedBuffer> buffer =
          AlignedBuffer::allocate(part.getByteSize());
      if (!buffer)
        return buffer.takeError();
      NpyArray array{
          NpyDType{part.kind, unsigned(part.elementSize)},
          llvm::SmallVector<int64_t>(part.shape.begin(), part.shape.end()),
          std::move(*buffer)};
      if (Error err = checkInput(signature, index, array, ggufFile))
        return std::move(err);
      buffers.emplace_back(reinterpret_cast<uint8_t *>(array.buffer.data()),
                           array.getByteSize());
      loaded.emplace(index, std::move(array));
    }
    if (Error err = quant_block::gguf::repackTensor(**file, *layout, buffers))
      return std::move(err);
  }
  return std::move(loaded);
}

/// Reads the -i files (and the --gguf tensors) and checks them against the
/// signature.
static llvm::Expected<llvm::SmallVector<NpyArray>>
readInputs(ModuleOp module, const EntrySignature &signature) {
  llvm::Expected<std::map<unsigned, NpyArray>> fromGGUF =
      readGGUFArguments(module, signature);
  if (!fromGGUF)
    return fromGGUF.takeError();
  size_t expected = signature.arguments.size() - fromGGUF->size();
  if (inputFiles.size() != expected)
    return makeError(
        "@" + signature.name + " takes " +
        plural(signature.arguments.size(), "argument") +
        (quantizedAsParts ? " (a quantized tensor counts one per part)" : "") +
        (fromGGUF->empty() ? ""
                           : ", " + std::to_string(fromGGUF->size()) +
                                 " of them from " + ggufFile) +
        " but " + countWas(inputFiles.size(), "input") + " given (-i)");
  llvm::SmallVector<NpyArray> inputs;
  unsigned nextFile = 0;
  for (unsigned index = 0; index < signature.arguments.size(); ++index) {
    auto it = fromGGUF->find(index);
    if (it != fromGGUF->end()) {
      inputs.push_back(std::move(it->second));
      continue;
    }
    const std::string &fileName = inputFiles[nextFile++];
    llvm::Expected<NpyArray> array = readNpyFile(fileName);
    if (!array)
      return makeError("input #" + Twine(index) + ": " +
                       llvm::toString(array.takeError()));
    if (Error err = checkInput(signature, index, *array, fileName))
      return std::move(err);
    inputs.push_back(std::move(*array));
  }
  return std::move(inputs);
}

/// Writes the results of the call that just returned to the -o files, or
/// prints a summary of each; adds their sizes to `outputBytes`.
static Error writeResults(const EntrySignature &signature,
                          const PackedCall &call, uint64_t &outputBytes) {
  for (auto [index, result] : llvm::enumerate(signature.results)) {
    llvm::Expected<NpyArray> array = call.copyResult(index);
    if (!array)
      return array.takeError();
    outputBytes += array->getByteSize();
    if (outputFiles.empty())
      printSummary(llvm::outs(), result, *array);
    else if (Error err = writeNpyFile(outputFiles[index], *array))
      return err;
  }
  return Error::success();
}

/// Inputs of at least this size are weights for --benchmark-cold: the
/// activations of a decode step are a few KiB and stay in the caches.
static constexpr uint64_t kColdMinBytes = 64 << 10;

/// The copies of the weight arguments a cold benchmark rotates over: copy c
/// of input i is copies[c][j] for the j-th weight input i = weightInputs[j].
struct ColdCopies {
  llvm::SmallVector<unsigned> weightInputs;
  std::vector<std::vector<NpyArray>> copies;
};

static llvm::Expected<ColdCopies>
makeColdCopies(llvm::ArrayRef<NpyArray> inputs, ColdBenchmark &cold) {
  ColdCopies result;
  for (auto [index, array] : llvm::enumerate(inputs))
    if (array.getByteSize() >= kColdMinBytes) {
      result.weightInputs.push_back(index);
      cold.setBytes += array.getByteSize();
    }
  if (result.weightInputs.empty())
    return makeError("--benchmark-cold: no input of at least 64 KiB to "
                     "rotate over");
  cold.llcBytes = coldLLCMiB ? static_cast<uint64_t>(coldLLCMiB) << 20
                             : getLastLevelCacheBytes();
  // At least 4, so that the copy read after a call (half a rotation on)
  // is neither the next call's nor one a call will read soon.
  cold.copies = std::max<uint64_t>(4, (8 * cold.llcBytes + cold.setBytes - 1) /
                                          cold.setBytes);
  for (unsigned c = 0; c < cold.copies; ++c) {
    std::vector<NpyArray> set;
    for (unsigned index : result.weightInputs) {
      const NpyArray &source = inputs[index];
      llvm::Expected<AlignedBuffer> buffer =
          AlignedBuffer::allocate(source.getByteSize());
      if (!buffer)
        return buffer.takeError();
      std::memcpy(buffer->data(), source.buffer.data(), source.getByteSize());
      set.push_back(NpyArray{source.dtype, source.shape, std::move(*buffer)});
    }
    result.copies.push_back(std::move(set));
  }
  return result;
}

/// The regions of copy `c` of the weights, for a read pass.
static std::vector<std::pair<const char *, size_t>>
getCopyRegions(const ColdCopies &copies, unsigned c) {
  std::vector<std::pair<const char *, size_t>> regions;
  for (const NpyArray &array : copies.copies[c])
    regions.emplace_back(array.buffer.data(), array.getByteSize());
  return regions;
}

namespace {
/// The team of threads that code with OpenMP loops runs on, started through
/// the OpenMP runtime the JIT loaded (libomp exports libgomp's
/// GOMP_parallel): a read pass on it pays the same fork and join as a
/// kernel call, and no other threads compete with the runtime's, which spin
/// for a while after each parallel region.
class OpenMPTeam {
public:
  static llvm::Expected<OpenMPTeam> find() {
    OpenMPTeam team;
    team.parallel = reinterpret_cast<decltype(parallel)>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("GOMP_parallel"));
    team.getThreadNum = reinterpret_cast<decltype(getThreadNum)>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "omp_get_thread_num"));
    team.getNumThreads = reinterpret_cast<decltype(getNumThreads)>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "omp_get_num_threads"));
    if (!team.parallel || !team.getThreadNum || !team.getNumThreads)
      return makeError("--benchmark-cold: the OpenMP runtime the compiled "
                       "code uses has no GOMP_parallel, omp_get_thread_num "
                       "or omp_get_num_threads to time the read passes with");
    return team;
  }

  /// Runs `body(thread, threads)` on each thread of the team (as many as
  /// the compiled code's parallel regions get).
  void run(llvm::function_ref<void(unsigned, unsigned)> body) const {
    struct Context {
      const OpenMPTeam *team;
      llvm::function_ref<void(unsigned, unsigned)> body;
    } context{this, body};
    parallel(
        [](void *opaque) {
          auto *context = static_cast<Context *>(opaque);
          context->body(context->team->getThreadNum(),
                        context->team->getNumThreads());
        },
        &context, /*num_threads=*/0, /*flags=*/0);
  }

private:
  void (*parallel)(void (*)(void *), void *, unsigned, unsigned) = nullptr;
  int (*getThreadNum)() = nullptr;
  int (*getNumThreads)() = nullptr;
};
} // namespace

/// Times --benchmark calls (the first call was the warm-up), measures the
/// memory bandwidth and prints the report.
static Error benchmark(const EntrySignature &signature, PackedCall &call,
                       void (*function)(void **),
                       llvm::ArrayRef<NpyArray> inputs, uint64_t inputBytes,
                       uint64_t outputBytes, bool cachingAllocator,
                       bool threaded) {
  BenchmarkReport report;
  report.entry = signature.name;
  report.inputBytes = inputBytes;
  report.outputBytes = outputBytes;
  report.cachingAllocator = cachingAllocator;
  report.bytes = inputBytes + outputBytes;
  if (bytesOverride.getNumOccurrences()) {
    report.bytes = bytesOverride;
    report.bytesOverridden = true;
  }
  // The bandwidth is measured just before and just after the timed calls,
  // best of both: on a shared machine, the conditions change over seconds.
  uint64_t bandwidthBytes = static_cast<uint64_t>(bandwidthMiB) << 20;
  if (bandwidthMiB > 0) {
    llvm::Expected<BandwidthMeasurement> before =
        measureMemoryBandwidth(bandwidthBytes, /*repetitions=*/5);
    if (!before)
      return before.takeError();
    report.bandwidth = *before;
  }
  if (!benchmarkCold) {
    timeCalls(
        report, benchmarkCalls, [&] { function(call.prepare()); },
        [&] { call.freeResults(); });
  } else {
    ColdBenchmark cold;
    llvm::Expected<ColdCopies> copies = makeColdCopies(inputs, cold);
    if (!copies)
      return copies.takeError();
    std::optional<OpenMPTeam> team;
    if (threaded) {
      llvm::Expected<OpenMPTeam> found = OpenMPTeam::find();
      if (!found)
        return found.takeError();
      team = *found;
    }
    // The report gives the team size the read passes ran on.
    unsigned teamSize = 1;
    auto runOnTeam = [&](llvm::function_ref<void(unsigned, unsigned)> body) {
      if (!team)
        return body(0, 1);
      team->run([&](unsigned thread, unsigned threads) {
        if (thread == 0)
          teamSize = threads;
        body(thread, threads);
      });
    };
    // Evict what makeColdCopies left in the caches: the calls start from
    // copy 0, which the later copies evicted.
    for (unsigned c = cold.copies / 2; c < cold.copies; ++c)
      timeReadPass(getCopyRegions(*copies, c), runOnTeam);
    cold.readThreads = teamSize;
    // After each call, outside the timed region, one read pass over the copy
    // half a rotation on, which no call has read for copies / 2 calls and
    // none will for copies / 2 more: the read bandwidth is measured with
    // the same bytes, threads and statistics as the kernel, at the same
    // moments, so that a shared machine's changing speed affects both alike.
    unsigned next = 0;
    std::vector<double> readSeconds;
    auto useNextCopy = [&] {
      for (auto [j, index] : llvm::enumerate(copies->weightInputs))
        call.setArgument(index, copies->copies[next][j]);
      next = (next + 1) % cold.copies;
    };
    useNextCopy();
    timeCalls(
        report, benchmarkCalls, [&] { function(call.prepare()); },
        [&] {
          call.freeResults();
          unsigned read = (next + cold.copies / 2) % cold.copies;
          readSeconds.push_back(
              timeReadPass(getCopyRegions(*copies, read), runOnTeam).seconds);
          useNextCopy();
        });
    cold.readPasses = readSeconds.size();
    if (!readSeconds.empty()) {
      double fastest =
          *std::min_element(readSeconds.begin(), readSeconds.end());
      cold.readGBps = cold.setBytes / fastest / 1e9;
      // Median over the calls of (the call's throughput / the next read
      // pass's bandwidth).
      std::vector<double> ratios;
      uint64_t bytes = report.bytesOverridden ? report.bytes : cold.setBytes;
      for (auto [callSeconds, passSeconds] :
           llvm::zip(report.seconds, readSeconds))
        ratios.push_back(static_cast<double>(bytes) / cold.setBytes *
                         passSeconds / callSeconds);
      cold.pairedReadRatio = getMedian(std::move(ratios));
    }
    report.cold = cold;
    if (!report.bytesOverridden)
      report.bytes = cold.setBytes;
    // The calls' arguments must not outlive the copies.
    for (unsigned index : copies->weightInputs)
      call.setArgument(index, inputs[index]);
  }
  if (bandwidthMiB > 0) {
    llvm::Expected<BandwidthMeasurement> after =
        measureMemoryBandwidth(bandwidthBytes, /*repetitions=*/5);
    if (!after)
      return after.takeError();
    report.bandwidth->merge(*after);
  }
  printBenchmarkReport(report, llvm::outs());
  if (benchmarkJson.empty())
    return Error::success();
  std::error_code ec;
  llvm::raw_fd_ostream json(benchmarkJson, ec);
  if (ec)
    return makeError("cannot write '" + benchmarkJson + "': " + ec.message());
  json << llvm::formatv("{0:2}", toJSON(report)) << "\n";
  return Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  // Every pass and pipeline quant-opt knows, so that --pipeline accepts any
  // pipeline string quant-opt does.
  registerAllPasses();
  quant_block::registerAllPasses();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  // libLLVM.so registers hundreds of backend options; --help shows ours
  // (--help-hidden shows all, and all of them still work).
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "quant-run: lower a module, JIT-compile it and call a function on "
      ".npy arrays\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  quant_block::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file)
    return fail(
        makeError("cannot open '" + inputFilename + "': " + errorMessage));
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail(makeError("cannot parse '" + inputFilename + "'"));

  // The signature, before lowering, says what the inputs must be.
  llvm::Expected<EntrySignature> signature =
      inspectEntryFunction(*module, entryName, quantizedAsParts);
  if (!signature)
    return fail(signature.takeError());
  if (!outputFiles.empty() && outputFiles.size() != signature->results.size())
    return fail(makeError(
        "@" + signature->name + " returns " +
        plural(signature->results.size(), "result") + " but " +
        countWas(outputFiles.size(), "output file") +
        " given (-o): give one -o per result, or none to print a summary of "
        "each result"));
  llvm::Expected<llvm::SmallVector<NpyArray>> inputs =
      readInputs(*module, *signature);
  if (!inputs)
    return fail(inputs.takeError());

  markTensorArgumentsReadOnly(*module, signature->name);
  eraseFunctionsUnreachedFrom(*module, signature->name);
  JitCompileOptions compileOptions;
  compileOptions.pipeline = pipeline;
  compileOptions.printIRAfterPipeline = printIRAfterPipeline;
  compileOptions.targetCPU = targetCPU;
  compileOptions.targetFeatures = targetFeatures;
  compileOptions.sharedLibPaths.assign(sharedLibs.begin(), sharedLibs.end());
  compileOptions.cachingAllocator = benchmarkCalls > 0 && !benchmarkFreshMemory;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      lowerAndCompile(*module, *signature, compileOptions);
  if (!engine)
    return fail(engine.takeError());
  llvm::Expected<void (*)(void **)> function =
      (*engine)->lookupPacked(signature->name);
  if (!function)
    return fail(makeError(
        "cannot link @" + signature->name + ": " +
        llvm::toString(function.takeError()) +
        " (functions the module only declares must come from a library "
        "given with --shared-libs)"));

  PackedCall call(*signature);
  uint64_t inputBytes = 0;
  std::optional<DeviceBuffers> deviceBuffers;
  for (auto [index, array] : llvm::enumerate(*inputs)) {
    const BoundaryValue &argument = signature->arguments[index];
    // The kernels read a device-resident argument every call too.
    inputBytes += array.getByteSize();
    if (!argument.deviceResident) {
      call.setArgument(index, array);
      continue;
    }
    // Uploaded once, before the first call: every call then finds the
    // argument on the device.
    if (!deviceBuffers) {
      llvm::Expected<GpuRuntime> runtime =
          GpuRuntime::find(compileOptions.sharedLibPaths, argument.name);
      if (!runtime)
        return fail(runtime.takeError());
      if (benchmarkCold)
        return fail(makeError(
            argument.name +
            " is device-resident: --benchmark-cold rotates host copies of "
            "the inputs, which device-resident arguments are not"));
      deviceBuffers.emplace(*runtime);
    }
    call.setDenseArgument(
        index, deviceBuffers->upload(array.buffer.data(), array.getByteSize()),
        array.shape);
  }

  // The first call gives the results (and warms caches up for a benchmark).
  (*function)(call.prepare());
  // What the compiled code printed (printMemref*, through C stdio) comes
  // before the summaries.
  std::fflush(stdout);
  uint64_t outputBytes = 0;
  Error written = writeResults(*signature, call, outputBytes);
  call.freeResults();
  if (written)
    return fail(std::move(written));

  if (benchmarkCalls > 0)
    if (Error err = benchmark(*signature, call, *function, *inputs, inputBytes,
                              outputBytes, compileOptions.cachingAllocator,
                              usesOpenMP(*module)))
      return fail(std::move(err));
  return 0;
}
