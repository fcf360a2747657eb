//===- Passes.cpp - quant-block passes and pipelines in the C API ---------===//
//
// The generated mlirCreate... / mlirRegister... functions of the four pass
// families (compiled here, in the namespace the passes live in, as upstream's
// lib/CAPI/Dialect/Linalg.cpp does), plus registration of the pipelines and
// of the dialects a C host needs to run them.
//
//===----------------------------------------------------------------------===//

#include "quant-block-c/Passes.h"
#include "quant-block/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;
using namespace mlir::quant_block;

extern "C" {
#include "quant-block/Codegen/CPU/Passes.capi.cpp.inc"
#include "quant-block/Codegen/Common/Passes.capi.cpp.inc"
#include "quant-block/Codegen/GPU/Passes.capi.cpp.inc"
#include "quant-block/Codegen/NVVM/Passes.capi.cpp.inc"
#include "quant-block/Codegen/SPIRV/Passes.capi.cpp.inc"
#include "quant-block/Conversion/Passes.capi.cpp.inc"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.capi.cpp.inc"
}

void mlirRegisterQuantBlockPasses(void) {
  mlirRegisterQuantBlockTransformsPasses();
  mlirRegisterQuantBlockConversionPasses();
  mlirRegisterQuantBlockCodegenCommonPasses();
  mlirRegisterQuantBlockCodegenCPUPasses();
  mlirRegisterQuantBlockCodegenGPUPasses();
  mlirRegisterQuantBlockCodegenNVVMPasses();
  mlirRegisterQuantBlockCodegenSPIRVPasses();
  mlirRegisterQuantBlockPipelines();
}

void mlirRegisterQuantBlockPipelines(void) {
  // The pass registry refuses a second registration of the same name.
  static bool registered = [] {
    registerPipelines();
    return true;
  }();
  (void)registered;
}

void mlirQuantBlockRegisterUpstreamPasses(void) {
  static bool registered = [] {
    mlir::registerAllPasses();
    return true;
  }();
  (void)registered;
}

void mlirQuantBlockRegisterAllDialects(MlirDialectRegistry registry) {
  DialectRegistry &dialects = *unwrap(registry);
  mlir::registerAllDialects(dialects);
  mlir::registerAllExtensions(dialects);
  mlir::registerAllToLLVMIRTranslations(dialects);
  quant_block::registerAllDialects(dialects);
}
