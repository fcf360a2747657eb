//===- DotProducts.cpp - 4-way byte dot products as SPIR-V SDot -----------===//
//
// --quant-block-spirv-dot-products: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "TargetEnv.h"

#include "quant-block/Codegen/GPU/ByteDotProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_SPIRVDOTPRODUCTS
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {

struct ReductionToDot : ByteDotProductPattern {
  using ByteDotProductPattern::ByteDotProductPattern;

protected:
  Value build(PatternRewriter &rewriter, Location loc,
              const ByteDotProduct &dot) const override {
    ByteDotFactor first = dot.lhs, second = dot.rhs;
    // SUDot takes the signed factor first.
    if (!first.isSigned && second.isSigned)
      std::swap(first, second);
    Value a = first.materialize(rewriter, loc);
    Value b = second.materialize(rewriter, loc);
    Type i32 = rewriter.getI32Type();
    Value sum;
    if (first.isSigned && second.isSigned)
      sum = spirv::SDotOp::create(rewriter, loc, i32, a, b,
                                  spirv::PackedVectorFormatAttr());
    else if (first.isSigned)
      sum = spirv::SUDotOp::create(rewriter, loc, i32, a, b,
                                   spirv::PackedVectorFormatAttr());
    else
      sum = spirv::UDotOp::create(rewriter, loc, i32, a, b,
                                  spirv::PackedVectorFormatAttr());
    if (dot.acc)
      sum = arith::AddIOp::create(rewriter, loc, dot.acc, sum);
    return sum;
  }
};

/// `env` with SPIR-V version 1.6 at least: MLIR's availability rules take
/// the dot products' capabilities from that version on.
spirv::TargetEnvAttr withVersion16(spirv::TargetEnvAttr env) {
  spirv::VerCapExtAttr triple = env.getTripleAttr();
  if (triple.getVersion() >= spirv::Version::V_1_6)
    return env;
  auto raised = spirv::VerCapExtAttr::get(
      spirv::Version::V_1_6, llvm::to_vector(triple.getCapabilities()),
      llvm::to_vector(triple.getExtensions()), env.getContext());
  return spirv::TargetEnvAttr::get(raised, env.getResourceLimits(),
                                   env.getClientAPI(), env.getVendorID(),
                                   env.getDeviceType(), env.getDeviceID());
}

struct SPIRVDotProductsPass
    : public quant_block::impl::SPIRVDotProductsBase<SPIRVDotProductsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    spirv::TargetEnvAttr env = getSPIRVTargetEnv(module);
    if (!env)
      return;
    spirv::TargetEnv target(env);
    if (!target.allows(spirv::Capability::DotProduct) ||
        !target.allows(spirv::Capability::DotProductInput4x8Bit))
      return;
    bool changed = false;
    RewritePatternSet patterns(&getContext());
    patterns.add<ReductionToDot>(&getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns),
                                     GreedyRewriteConfig(), &changed)))
      return signalPassFailure();
    if (!changed)
      return;
    // A kernel module with dot products is a SPIR-V 1.6 module; the others
    // keep their version (the entry points' interfaces depend on it).
    spirv::TargetEnvAttr raised = withVersion16(env);
    if (raised == env)
      return;
    replaceSPIRVTargetEnv(module, env, raised);
  }
};

} // namespace
