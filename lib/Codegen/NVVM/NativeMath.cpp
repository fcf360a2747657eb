//===- NativeMath.cpp - libdevice calls to PTX instructions ---------------===//
//
// --quant-block-gpu-native-math: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/NVVM/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUNATIVEMATH
#include "quant-block/Codegen/NVVM/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {
enum class Intrinsic {
  None,
  RoundEven,
  FAbs,
  FMA,
  Floor,
  Ceil,
  Trunc,
  CopySign,
  Sqrt
};
} // namespace

/// The intrinsic that computes libdevice's `name` exactly.
static Intrinsic intrinsicFor(StringRef name) {
  if (!name.consume_front("__nv_"))
    return Intrinsic::None;
  // f32 variants end in 'f' (rintf), f64 ones do not (rint).
  StringRef base =
      name.ends_with("f") && name != "fabs" ? name.drop_back() : name;
  return llvm::StringSwitch<Intrinsic>(base)
      .Case("rint", Intrinsic::RoundEven)
      .Case("fabs", Intrinsic::FAbs)
      .Case("fma", Intrinsic::FMA)
      .Case("floor", Intrinsic::Floor)
      .Case("ceil", Intrinsic::Ceil)
      .Case("trunc", Intrinsic::Trunc)
      .Case("copysign", Intrinsic::CopySign)
      .Case("sqrt", Intrinsic::Sqrt)
      .Default(Intrinsic::None);
}

/// Creates the intrinsic op for `kind` with `call`'s operands.
static Value createIntrinsic(OpBuilder &builder, LLVM::CallOp call,
                             Intrinsic kind) {
  Location loc = call.getLoc();
  Type type = call.getResult().getType();
  ValueRange args = call.getArgOperands();
  switch (kind) {
  case Intrinsic::RoundEven:
    return LLVM::RoundEvenOp::create(builder, loc, type, args);
  case Intrinsic::FAbs:
    return LLVM::FAbsOp::create(builder, loc, type, args);
  case Intrinsic::FMA:
    return LLVM::FMAOp::create(builder, loc, type, args);
  case Intrinsic::Floor:
    return LLVM::FFloorOp::create(builder, loc, type, args);
  case Intrinsic::Ceil:
    return LLVM::FCeilOp::create(builder, loc, type, args);
  case Intrinsic::Trunc:
    return LLVM::FTruncOp::create(builder, loc, type, args);
  case Intrinsic::CopySign:
    return LLVM::CopySignOp::create(builder, loc, type, args);
  case Intrinsic::Sqrt:
    // NVPTX lowers llvm.sqrt without `afn` to the correctly rounded
    // sqrt.rn.f32 / .f64 (its default -nvptx-prec-sqrtf32): IEEE's
    // square root, as the CPU's sqrtf computes it.
    return LLVM::SqrtOp::create(builder, loc, type, args);
  case Intrinsic::None:
    break;
  }
  return {};
}

namespace {
struct GPUNativeMathPass
    : public quant_block::impl::GPUNativeMathBase<GPUNativeMathPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || call.getNumResults() != 1 ||
          intrinsicFor(*callee) == Intrinsic::None)
        return;
      Type type = call.getResult().getType();
      if (type.isF32() || type.isF64())
        calls.push_back(call);
    });
    llvm::SmallSetVector<StringRef, 8> callees;
    for (LLVM::CallOp call : calls) {
      OpBuilder builder(call);
      Value value =
          createIntrinsic(builder, call, intrinsicFor(*call.getCallee()));
      callees.insert(*call.getCallee());
      call.getResult().replaceAllUsesWith(value);
      call.erase();
    }
    // Drop the declarations nothing calls any more.
    for (StringRef name : callees) {
      auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (func && func.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    }
  }
};
} // namespace
