//===- TargetEnv.h - the SPIR-V target of a gpu.module ----------*- C++ -*-===//
//
// Shared by the SPIR-V passes that adapt kernels to their target.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_SPIRV_TARGETENV_H
#define QUANT_BLOCK_LIB_CODEGEN_SPIRV_TARGETENV_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

namespace mlir::quant_block {

/// The SPIR-V target environment of `module`: the one spirv-attach-target
/// put in its targets, else a spirv.target_env attribute around it (null
/// without one).
inline spirv::TargetEnvAttr getSPIRVTargetEnv(gpu::GPUModuleOp module) {
  if (ArrayAttr targets = module.getTargetsAttr())
    for (Attribute target : targets)
      if (auto env = dyn_cast<spirv::TargetEnvAttr>(target))
        return env;
  return spirv::lookupTargetEnv(module);
}

/// Replaces `module`'s SPIR-V target environment `env` (as
/// getSPIRVTargetEnv found it) by `updated`, in its targets and in its
/// spirv.target_env attribute (or sets that attribute when the module has
/// no targets).
inline void replaceSPIRVTargetEnv(gpu::GPUModuleOp module,
                                  spirv::TargetEnvAttr env,
                                  spirv::TargetEnvAttr updated) {
  if (ArrayAttr targets = module.getTargetsAttr()) {
    SmallVector<Attribute> replaced(targets.begin(), targets.end());
    for (Attribute &attr : replaced)
      if (attr == env)
        attr = updated;
    module.setTargetsAttr(ArrayAttr::get(module.getContext(), replaced));
  }
  if (module->hasAttr(spirv::getTargetEnvAttrName()) ||
      !module.getTargetsAttr())
    module->setAttr(spirv::getTargetEnvAttrName(), updated);
}

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_CODEGEN_SPIRV_TARGETENV_H
