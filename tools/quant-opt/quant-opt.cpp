//===- quant-opt.cpp - the quant-block optimizer driver -------------------===//
//
// An mlir-opt style driver with every upstream dialect, pass and extension
// registered plus the quant_block dialect and its passes, so that quant_block
// IR can be mixed with any upstream IR around it.
//
//===----------------------------------------------------------------------===//

#include "quant-block/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::quant_block::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::quant_block::registerAllDialects(registry);
  // gpu-module-to-binary translates NVVM kernels to LLVM IR (as mlir-opt).
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "quant-block optimizer driver\n", registry));
}
