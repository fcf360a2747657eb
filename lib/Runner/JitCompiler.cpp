//===- JitCompiler.cpp - lower a module and JIT-compile it ----------------===//
//
// mlir::ExecutionEngine::create builds a default TargetMachine when it is not
// given one, and that one ignores ExecutionEngineOptions::jitCodeGenOptLevel;
// so the TargetMachine is built here, for the host CPU and its features at
// CodeGenOptLevel::Aggressive (or for the CPU and features the options
// name, so that tests can check that no result depends on the host), and also
// handed to the -O3 LLVM optimization pipeline (makeOptimizingTransformer) so
// that its cost models know the target.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/JitCompiler.h"

#include "quant-block/Codegen/CPU/CPUTarget.h"
#include "quant-block/Runner/CachingAllocator.h"
#include "quant-block/Runner/RuntimeBuiltins.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace mlir;
using namespace mlir::quant_block::runner;
using llvm::Error;
using llvm::Expected;
using llvm::Twine;

void mlir::quant_block::runner::markTensorArgumentsReadOnly(ModuleOp module,
                                                            StringRef entry) {
  auto function = module.lookupSymbol<func::FuncOp>(entry);
  if (!function)
    return;
  auto readOnly = BoolAttr::get(module.getContext(), false);
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    if (isa<TensorType>(type))
      function.setArgAttr(
          index, bufferization::BufferizationDialect::kWritableAttrName,
          readOnly);
}

void mlir::quant_block::runner::eraseFunctionsUnreachedFrom(ModuleOp module,
                                                            StringRef entry) {
  SymbolTable symbols(module);
  Operation *root = symbols.lookup(entry);
  if (!root)
    return;
  llvm::SmallPtrSet<Operation *, 16> reached = {root};
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(worklist.pop_back_val());
    if (!uses)
      return;
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *symbol = symbols.lookup(use.getSymbolRef().getRootReference());
      if (symbol && reached.insert(symbol).second)
        worklist.push_back(symbol);
    }
  }
  for (func::FuncOp function :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!function.isDeclaration() && !reached.contains(function))
      function.erase();
}

/// Parses `pipeline` into `pm`, accepting "a,b(c)" as well as the anchored
/// "builtin.module(a,b(c))" that --mlir-print-ir and mlir-opt
/// --pass-pipeline use.
static Error parsePipeline(StringRef pipeline, PassManager &pm) {
  StringRef elements = pipeline.trim();
  if (elements.consume_front("builtin.module(")) {
    if (!elements.consume_back(")"))
      return llvm::createStringError("cannot parse the pass pipeline '" +
                                     pipeline + "': unbalanced parentheses");
  }
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(parsePassPipeline(elements, pm, errors)))
    return llvm::createStringError("cannot parse the pass pipeline '" +
                                   pipeline +
                                   "': " + StringRef(message).trim());
  return Error::success();
}

/// The lowered entry must take the arguments PackedCall builds and return
/// one value (a descriptor, scalar or struct of them) or nothing.
static Error checkLoweredEntry(ModuleOp module, const EntrySignature &signature,
                               StringRef pipeline) {
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(signature.name);
  if (!function || function.isExternal())
    return llvm::createStringError(
        "after the pass pipeline '" + pipeline +
        "' the module has no llvm.func @" + signature.name +
        " with a body: the pipeline must lower the module to "
        "the LLVM dialect");
  LLVM::LLVMFunctionType type = function.getFunctionType();
  unsigned expected = signature.getNumLLVMArguments();
  if (type.getNumParams() != expected)
    return llvm::createStringError(
        "after the pass pipeline '" + pipeline + "' llvm.func @" +
        signature.name + " takes " + Twine(type.getNumParams()) +
        " arguments, but quant-run passes " + Twine(expected) +
        " (each memref as an expanded descriptor: allocated pointer, aligned "
        "pointer, offset, sizes, strides; pipelines that use bare pointers "
        "are not supported)");
  bool returnsVoid = isa<LLVM::LLVMVoidType>(type.getReturnType());
  if (returnsVoid != signature.results.empty()) {
    std::string returned;
    llvm::raw_string_ostream os(returned);
    os << type.getReturnType();
    return llvm::createStringError(
        "after the pass pipeline '" + pipeline + "' llvm.func @" +
        signature.name + " returns " + returned +
        ", which does not match the " + Twine(signature.results.size()) +
        " results of the func.func");
  }
  if (signature.results.size() > 1) {
    auto structType = dyn_cast<LLVM::LLVMStructType>(type.getReturnType());
    if (!structType || structType.getBody().size() != signature.results.size())
      return llvm::createStringError(
          "after the pass pipeline '" + pipeline + "' llvm.func @" +
          signature.name + " does not return a struct of its " +
          Twine(signature.results.size()) + " results");
  }
  return Error::success();
}

/// The comma-separated `features` as `+name` / `-name` entries.
static std::vector<std::string> splitFeatures(StringRef features) {
  SmallVector<StringRef> entries;
  features.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> result;
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (!entry.starts_with("+") && !entry.starts_with("-"))
      result.push_back(("+" + entry).str());
    else
      result.push_back(entry.str());
  }
  return result;
}

/// Checks the CPU and feature names against the target's tables (LLVM only
/// warns about unknown ones and goes on), and that the host can execute
/// the code: every ISA feature the target enables, the host must have.
static Error checkTarget(const llvm::TargetMachine &targetMachine,
                         const JitCompileOptions &options,
                         ArrayRef<std::string> features) {
  const llvm::MCSubtargetInfo *subtarget = targetMachine.getMCSubtargetInfo();
  if (Error err = quant_block::checkTargetNames(
          *subtarget, targetMachine.getTargetTriple(),
          targetMachine.getTargetCPU(), features,
          /*optionPrefix=*/"--"))
    return err;
  ArrayRef<llvm::SubtargetFeatureKV> known =
      subtarget->getAllProcessorFeatures();
  // The host's map names ISA features only (tuning flags are not in it).
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::string missing;
  for (const llvm::SubtargetFeatureKV &kv : known) {
    auto it = host.find(kv.Key);
    if (it == host.end() || it->second ||
        !subtarget->getFeatureBits().test(kv.Value))
      continue;
    missing += (missing.empty() ? "" : ", ") + std::string(kv.Key);
  }
  if (!missing.empty())
    return llvm::createStringError(
        "the host CPU cannot execute code for --target-cpu=" +
        (options.targetCPU.empty() ? "host" : options.targetCPU) +
        (options.targetFeatures.empty()
             ? std::string()
             : " --target-features=" + options.targetFeatures) +
        ": it lacks " + missing);
  return Error::success();
}

Expected<std::unique_ptr<llvm::TargetMachine>>
mlir::quant_block::runner::createTargetMachine(
    const JitCompileOptions &options) {
  Expected<llvm::orc::JITTargetMachineBuilder> builder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  if (!options.targetCPU.empty() && options.targetCPU != "host") {
    // The named CPU brings its own features; the host's must not leak in.
    builder->setCPU(options.targetCPU);
    builder->getFeatures() = llvm::SubtargetFeatures();
  }
  std::vector<std::string> features = splitFeatures(options.targetFeatures);
  builder->addFeatures(features);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      builder->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  if (Error err = checkTarget(**targetMachine, options, features))
    return std::move(err);
  return targetMachine;
}

StringRef mlir::quant_block::runner::getDefaultOpenMPLibrary() {
#ifdef QUANT_BLOCK_LIBOMP
  return QUANT_BLOCK_LIBOMP;
#else
  return "";
#endif
}

bool mlir::quant_block::runner::usesOpenMP(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    return op->getName().getDialectNamespace() == "omp"
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Adds the OpenMP runtime to `libraries` where the module needs it and the
/// caller did not give one.
static Error addOpenMPLibrary(ModuleOp module, const JitCompileOptions &options,
                              llvm::SmallVectorImpl<StringRef> &libraries) {
  bool given = llvm::any_of(libraries, [](StringRef library) {
    return llvm::sys::path::filename(library).starts_with("libomp");
  });
  if (given || !usesOpenMP(module))
    return Error::success();
  if (options.openMPLibrary.empty())
    return llvm::createStringError(
        "the lowered module uses OpenMP, and no libomp was found when "
        "quant-block was configured: give one with --shared-libs (or lower "
        "without threads, e.g. quant-block-cpu-pipeline{parallel=false})");
  libraries.push_back(options.openMPLibrary);
  return Error::success();
}

Expected<std::unique_ptr<ExecutionEngine>>
mlir::quant_block::runner::lowerAndCompile(ModuleOp module,
                                           const EntrySignature &signature,
                                           const JitCompileOptions &options) {
  return lowerAndCompile(module, llvm::ArrayRef(signature), options);
}

bool mlir::quant_block::runner::requestAmxTileData() {
  static bool granted = [] {
#if defined(__linux__) && defined(__x86_64__)
    // Linux 5.16+: AMX's tile data (8 KiB of state per thread) is off
    // until the process asks; a tile instruction before that is SIGILL.
    constexpr long archReqXcompPerm = 0x1023, xfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, archReqXcompPerm, xfeatureXtiledata) == 0;
#else
    return false;
#endif
  }();
  return granted;
}

/// Whether the lowered `module` uses AMX tiles (the llvm.x86.tile* and
/// tdp* intrinsics of the amx dialect's lowering).
static bool usesAmxTiles(ModuleOp module) {
  bool uses = false;
  module.walk([&](LLVM::CallIntrinsicOp call) {
    StringRef name = call.getIntrin();
    if (name.starts_with("llvm.x86.tile") || name.starts_with("llvm.x86.tdp")) {
      uses = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return uses;
}

/// Whether the pipeline options `given` ("a=1 b c=x") set `option` (a whole
/// name: x86-avx512 is not set by x86-avx512-vnni=false).
static bool setsOption(StringRef given, StringRef option) {
  SmallVector<StringRef> words;
  given.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  return llvm::any_of(
      words, [&](StringRef word) { return word.split('=').first == option; });
}

std::string mlir::quant_block::runner::adaptPipelineToTarget(
    StringRef pipeline, const llvm::TargetMachine &targetMachine) {
  StringRef cpuPipeline = "quant-block-cpu-pipeline";
  StringRef trimmed = pipeline.trim();
  if (!trimmed.starts_with(cpuPipeline))
    return pipeline.str();
  StringRef rest = trimmed.drop_front(cpuPipeline.size());
  if (!rest.empty() && (!rest.starts_with("{") || !rest.ends_with("}")))
    return pipeline.str();
  StringRef given = rest.empty() ? rest : rest.drop_front().drop_back();
  const llvm::MCSubtargetInfo *subtarget = targetMachine.getMCSubtargetInfo();
  // (option, the target features it needs); options the user set win.
  std::pair<StringRef, StringRef> targetOptions[] = {
      {"x86-avx512-vnni", "+avx512vnni,+avx512bw"},
      {"x86-amx", "+avx512vnni,+avx512bw,+amx-tile,+amx-int8"},
      {"x86-avx512", "+avx512f"},
      {"x86-avx512-vbmi", "+avx512vnni,+avx512bw,+avx512vbmi"},
      {"x86-avx512-bf16", "+avx512f,+avx512bf16"},
      {"x86-f16c", "+f16c"},
  };
  std::string added;
  for (auto [option, features] : targetOptions)
    if (!setsOption(given, option) && subtarget->checkFeatures(features) &&
        (option != "x86-amx" || requestAmxTileData()))
      added += (option + "=true ").str();
  if (added.empty())
    return pipeline.str();
  if (given.empty())
    added.pop_back();
  return (cpuPipeline + "{" + added + given + "}").str();
}

/// Refuses a lowered module whose functions record a target CPU or features
/// (quant-block-cpu-pipeline{target-cpu=...}) that `targetMachine` lacks:
/// the JIT would generate their instructions anyway.
static Error checkRecordedTarget(ModuleOp module,
                                 const llvm::TargetMachine &targetMachine) {
  std::string failure;
  std::vector<std::string> targetFeatures;
  {
    SmallVector<StringRef> parts;
    targetMachine.getTargetFeatureString().split(parts, ',', -1, false);
    for (StringRef part : parts)
      targetFeatures.push_back(part.str());
  }
  module.walk([&](LLVM::LLVMFuncOp func) {
    StringAttr cpu = func.getTargetCpuAttr();
    LLVM::TargetFeaturesAttr features = func.getTargetFeaturesAttr();
    if (!cpu && !features)
      return WalkResult::advance();
    std::vector<std::string> recorded;
    if (features)
      for (StringAttr feature : features.getFeatures())
        recorded.push_back(feature.str());
    Expected<std::vector<std::string>> missing =
        quant_block::getMissingFeatures(cpu ? cpu.getValue() : "", recorded,
                                        targetMachine.getTargetCPU(),
                                        targetFeatures);
    if (!missing) {
      failure = "@" + func.getName().str() + ": " +
                llvm::toString(missing.takeError());
      return WalkResult::interrupt();
    }
    if (missing->empty())
      return WalkResult::advance();
    failure = "@" + func.getName().str() + " was compiled for target-cpu=" +
              (cpu ? cpu.getValue().str() : std::string("(none)")) +
              ", and the JIT's target (" + targetMachine.getTargetCPU().str() +
              ") lacks " + llvm::join(*missing, ", ");
    return WalkResult::interrupt();
  });
  if (failure.empty())
    return Error::success();
  return llvm::createStringError(
      "the lowered module cannot run on this target: " + failure);
}

Expected<std::unique_ptr<ExecutionEngine>>
mlir::quant_block::runner::lowerAndCompile(
    ModuleOp module, llvm::ArrayRef<EntrySignature> signatures,
    const JitCompileOptions &options) {
  // The CPU pipeline gets the target's instructions that generic vector
  // code does not reach (AVX512-VNNI) before it runs.
  std::string pipeline = options.pipeline;
  {
    Expected<std::unique_ptr<llvm::TargetMachine>> target =
        createTargetMachine(options);
    if (!target)
      return target.takeError();
    pipeline = adaptPipelineToTarget(pipeline, **target);
  }
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return llvm::createStringError("invalid pass manager options");
  if (Error err = parsePipeline(pipeline, pm))
    return std::move(err);
  // The pipeline as the user gave it: the messages do not depend on the host.
  if (failed(pm.run(module)))
    return llvm::createStringError("the pass pipeline '" + options.pipeline +
                                   "' failed (see the diagnostics above)");
  if (options.printIRAfterPipeline) {
    module.print(llvm::outs());
    // Before the compiled code writes to stdout through its own buffers.
    llvm::outs() << "\n";
    llvm::outs().flush();
  }
  for (const EntrySignature &signature : signatures)
    if (Error err = checkLoweredEntry(module, signature, options.pipeline))
      return std::move(err);

  Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      createTargetMachine(options);
  if (!targetMachine)
    return targetMachine.takeError();
  if (Error err = checkRecordedTarget(module, **targetMachine))
    return std::move(err);
  if (usesAmxTiles(module) && !requestAmxTileData())
    return llvm::createStringError(
        "the lowered module uses AMX tiles (x86-amx), and the kernel did not "
        "grant this process the tile data state (arch_prctl "
        "ARCH_REQ_XCOMP_PERM: Linux 5.16 or later on a CPU with AMX)");

  // The transformer runs inside create(), while the TargetMachine (moved into
  // the JIT's compiler) is alive.
  std::function<Error(llvm::Module *)> optimize = makeOptimizingTransformer(
      /*optLevel=*/3, /*sizeLevel=*/0, targetMachine->get());
  llvm::SmallVector<StringRef> libraries(options.sharedLibPaths.begin(),
                                         options.sharedLibPaths.end());
  if (Error err = addOpenMPLibrary(module, options, libraries))
    return std::move(err);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.sharedLibPaths = libraries;
  Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!engine)
    return llvm::createStringError("cannot JIT-compile the lowered module: " +
                                   llvm::toString(engine.takeError()));
  // Symbols defined in the main JITDylib take precedence over the process's,
  // and nothing has been materialized yet.
  (*engine)->registerSymbols(getRuntimeBuiltinSymbols);
  if (options.cachingAllocator)
    (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
      return getCachingAllocatorSymbols(interner, options.cacheLargeBlocksOnly);
    });
  (*engine)->initialize();
  return std::move(*engine);
}
