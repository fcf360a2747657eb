//===- CPUTarget.cpp - the CPU a module is compiled for -------------------===//
//
// Resolves the CPU pipeline's target options with LLVM's MC tables, as
// quant-run's JIT resolves its --target-cpu: the same names, the same
// checks.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/CPUTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace mlir::quant_block;
using llvm::StringRef;

namespace {
/// The subtarget of `cpu` + `features` for this process's triple, with the
/// names checked against its tables.
struct Subtarget {
  llvm::Triple triple;
  std::unique_ptr<llvm::MCSubtargetInfo> info;
};
} // namespace

llvm::Error
mlir::quant_block::checkTargetNames(const llvm::MCSubtargetInfo &tables,
                                    const llvm::Triple &triple, StringRef cpu,
                                    llvm::ArrayRef<std::string> features,
                                    StringRef optionPrefix) {
  if (!cpu.empty() && !tables.isCPUStringValid(cpu))
    return llvm::createStringError(optionPrefix + "target-cpu: '" + cpu +
                                   "' is not a processor LLVM knows for " +
                                   triple.str());
  llvm::ArrayRef<llvm::SubtargetFeatureKV> known =
      tables.getAllProcessorFeatures();
  for (StringRef feature : features) {
    StringRef name = feature.drop_front();
    if (llvm::none_of(known, [&](const llvm::SubtargetFeatureKV &kv) {
          return name == kv.Key;
        }))
      return llvm::createStringError(
          optionPrefix + "target-features: '" + name +
          "' is not a feature LLVM knows for " + triple.str());
  }
  return llvm::Error::success();
}

static llvm::Expected<Subtarget>
createSubtarget(StringRef cpu, llvm::ArrayRef<std::string> features,
                bool checkNames = true) {
  // Idempotent; registers the native target's MC layer.
  llvm::InitializeNativeTarget();
  Subtarget subtarget;
  subtarget.triple = llvm::Triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(subtarget.triple, error);
  if (!target)
    return llvm::createStringError(error);
  if (checkNames) {
    // The names first, on the generic CPU: LLVM prints a warning for an
    // unknown name and goes on.
    std::unique_ptr<llvm::MCSubtargetInfo> generic(
        target->createMCSubtargetInfo(subtarget.triple, "", ""));
    if (!generic)
      return llvm::createStringError("no subtarget for " +
                                     subtarget.triple.str());
    if (llvm::Error err =
            checkTargetNames(*generic, subtarget.triple, cpu, features))
      return std::move(err);
  }
  llvm::SubtargetFeatures featureString;
  for (const std::string &feature : features)
    featureString.AddFeature(feature);
  subtarget.info.reset(target->createMCSubtargetInfo(
      subtarget.triple, cpu, featureString.getString()));
  if (!subtarget.info)
    return llvm::createStringError("no subtarget for " +
                                   subtarget.triple.str());
  return subtarget;
}

/// `features` ("+a,-b") as a list; each must start with '+' or '-'.
static llvm::Expected<std::vector<std::string>>
splitFeatures(StringRef features) {
  llvm::SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> result;
  for (StringRef part : parts) {
    part = part.trim();
    if (part.size() < 2 || (part[0] != '+' && part[0] != '-'))
      return llvm::createStringError(
          "target-features: '" + part +
          "' must be a feature name after '+' or '-'");
    result.push_back(part.str());
  }
  return result;
}

llvm::Expected<CPUTarget>
mlir::quant_block::resolveCPUTarget(StringRef cpu, StringRef features) {
  llvm::Expected<std::vector<std::string>> given = splitFeatures(features);
  if (!given)
    return given.takeError();
  CPUTarget result;
  if (cpu == "host") {
    result.cpu = llvm::sys::getHostCPUName().str();
    // The host's own flags first (sorted: the recorded string does not
    // depend on a hash order), then what the user added.
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    std::vector<std::string> hostFeatures;
    for (const auto &entry : host)
      hostFeatures.push_back((entry.second ? "+" : "-") + entry.first().str());
    llvm::sort(hostFeatures);
    result.features = std::move(hostFeatures);
  } else {
    result.cpu = cpu.str();
  }
  result.features.insert(result.features.end(), given->begin(), given->end());
  llvm::Expected<Subtarget> subtarget =
      createSubtarget(result.cpu, result.features);
  if (!subtarget)
    return subtarget.takeError();
  const llvm::MCSubtargetInfo &info = *subtarget->info;
  if (subtarget->triple.isX86()) {
    result.avx512f = info.checkFeatures("+avx512f");
    result.avx512Vnni = info.checkFeatures("+avx512vnni,+avx512bw");
    result.amxInt8 =
        result.avx512Vnni && info.checkFeatures("+amx-tile,+amx-int8");
    result.amxBF16 = info.checkFeatures("+amx-tile,+amx-bf16");
    result.f16c = info.checkFeatures("+f16c");
    result.avx512Vbmi = result.avx512Vnni && info.checkFeatures("+avx512vbmi");
    result.avx512BF16 = result.avx512f && info.checkFeatures("+avx512bf16");
    result.vectorBits = result.avx512f               ? 512
                        : info.checkFeatures("+avx") ? 256
                                                     : 128;
  }
  return result;
}

llvm::Expected<std::vector<std::string>> mlir::quant_block::getMissingFeatures(
    StringRef cpu, llvm::ArrayRef<std::string> features, StringRef targetCPU,
    llvm::ArrayRef<std::string> targetFeatures) {
  llvm::Expected<Subtarget> compiled = createSubtarget(cpu, features);
  if (!compiled)
    return compiled.takeError();
  // The target's names come from LLVM itself (a TargetMachine).
  llvm::Expected<Subtarget> target =
      createSubtarget(targetCPU, targetFeatures, /*checkNames=*/false);
  if (!target)
    return target.takeError();
  // ISA features only: the host's map has no tuning flags.
  llvm::StringMap<bool> isa = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> missing;
  for (const llvm::SubtargetFeatureKV &kv :
       compiled->info->getAllProcessorFeatures()) {
    if (!isa.count(kv.Key))
      continue;
    if (compiled->info->getFeatureBits().test(kv.Value) &&
        !target->info->getFeatureBits().test(kv.Value))
      missing.push_back(kv.Key);
  }
  return missing;
}
