//===- embed-quant-block.cpp - a client of the installed package ----------===//
//
// Registers the dialect, parses a quantized tensor type and prints the
// contracted scale type it implies.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"
#include "quant-block/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  mlir::quant_block::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::Type type = mlir::parseType(
      "!quant_block.tensor<4096x11008, #quant_block.scheme<i4 : f16, "
      "block = [128], scale = f16>>",
      &context);
  auto quantized =
      llvm::dyn_cast_or_null<mlir::quant_block::QuantizedTensorType>(type);
  if (!quantized)
    return 1;
  llvm::outs() << "scales: " << quantized.getScalesType() << "\n";
  return 0;
}
