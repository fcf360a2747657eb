//===- MLIRHeaders.h - the MLIR headers nearly every file parses ---------===//
//
// The precompiled header of the project's MLIR code (CMake option
// QUANT_BLOCK_PRECOMPILED_HEADERS). Parsing these headers took about half of
// every file's compile time (14.9 s of Codegen/CPU/Vectorize.cpp with GCC,
// 6.3 s with this header precompiled), and CI builds the project twice on
// two cores. Only installed MLIR / LLVM headers belong here: they never
// change in a build tree, so the header is compiled once per build directory
// and editing the project's own headers rebuilds no more than before. Every
// file still includes what it uses; this header only makes it cheaper.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

// Clang loads a precompiled header lazily, so a larger one costs the files
// that use little of it almost nothing; GCC maps all of it into every
// compiler process (666 MB for the set above; these would double it).
#if defined(__clang__)
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Transforms/DialectConversion.h"
#endif
