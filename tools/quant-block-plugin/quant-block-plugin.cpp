//===- quant-block-plugin.cpp - dialect and pass plugin for mlir-opt ------===//
//
// Lets an unmodified mlir-opt (or any MlirOptMain tool linked against the
// same shared libMLIR.so) use quant-block:
//
//   mlir-opt --load-dialect-plugin=lib/QuantBlockPlugin.so \
//            --load-pass-plugin=lib/QuantBlockPlugin.so input.mlir
//
//===----------------------------------------------------------------------===//

#include "quant-block/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

/// Dialect plugin entry point: registers the quant_block dialect.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QuantBlock", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            quant_block::registerAllDialects(*registry);
          }};
}

/// Pass plugin entry point: registers every quant-block pass and pipeline.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QuantBlockPasses", LLVM_VERSION_STRING,
          []() { quant_block::registerAllPasses(); }};
}
