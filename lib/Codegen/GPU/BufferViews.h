//===- BufferViews.h - the buffers memref views alias -----------*- C++ -*-===//
//
// Which ops make a memref that aliases their source, and the buffer a
// value views: what the data movement copies whole and what the loop
// mapping checks for aliasing.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_GPU_BUFFERVIEWS_H
#define QUANT_BLOCK_LIB_CODEGEN_GPU_BUFFERVIEWS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::quant_block {

/// Whether `op` is a view: its result aliases its first operand.
inline bool isBufferView(Operation *op) {
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::SubViewOp,
             memref::CastOp, memref::ReinterpretCastOp, memref::ViewOp>(op);
}

/// The buffer `value` is a view of (itself if it is no view).
inline Value getRootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isBufferView(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_CODEGEN_GPU_BUFFERVIEWS_H
