//===- AdaptPipelineTest.cpp - quant-run's pipeline for the target --------===//
//
// adaptPipelineToTarget gives the CPU pipeline x86-avx512-vnni=true exactly
// when the JIT's target has AVX512-VNNI and AVX512BW, x86-avx512=true when
// it has AVX512F, x86-f16c=true when it has F16C, x86-avx512-vbmi=true when
// it has AVX512-VBMI and the VNNI kernels' features, x86-avx512-bf16=true
// when it has AVX512-BF16, unless the user set them,
// and leaves every other pipeline alone.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/JitCompiler.h"

#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include "gtest/gtest.h"

using namespace mlir::quant_block::runner;

namespace {

/// A target machine for `cpu` + `features`, or null when the host cannot
/// execute its code (createTargetMachine refuses it).
std::unique_ptr<llvm::TargetMachine> makeTarget(const char *cpu,
                                                const char *features) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  JitCompileOptions options;
  options.targetCPU = cpu;
  options.targetFeatures = features;
  auto target = createTargetMachine(options);
  if (!target) {
    llvm::consumeError(target.takeError());
    return nullptr;
  }
  return std::move(*target);
}

TEST(AdaptPipelineToTarget, AddsVnniForTargetsThatHaveIt) {
  std::unique_ptr<llvm::TargetMachine> target =
      makeTarget("x86-64-v4", "+avx512vnni");
  if (!target)
    GTEST_SKIP() << "the host cannot execute x86-64-v4 + avx512vnni code";
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *target),
            "quant-block-cpu-pipeline{x86-avx512-vnni=true x86-avx512=true "
            "x86-f16c=true}");
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline{parallel=false}",
                                  *target),
            "quant-block-cpu-pipeline{x86-avx512-vnni=true x86-avx512=true "
            "x86-f16c=true parallel=false}");
  // The user's own setting wins, and an option's name is matched whole
  // (x86-avx512-vnni=false does not set x86-avx512).
  EXPECT_EQ(adaptPipelineToTarget(
                "quant-block-cpu-pipeline{x86-avx512-vnni=false}", *target),
            "quant-block-cpu-pipeline{x86-avx512=true x86-f16c=true "
            "x86-avx512-vnni=false}");
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline{x86-avx512=false}",
                                  *target),
            "quant-block-cpu-pipeline{x86-avx512-vnni=true x86-f16c=true "
            "x86-avx512=false}");
  // Other pipelines are not touched.
  EXPECT_EQ(adaptPipelineToTarget("quant-block-spirv-pipeline", *target),
            "quant-block-spirv-pipeline");
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline-x", *target),
            "quant-block-cpu-pipeline-x");
}

TEST(AdaptPipelineToTarget, AddsVbmiWithVnni) {
  // x86-avx512-vbmi (6-bit codes spread by vpmultishiftqb) needs the VNNI
  // kernels too: VBMI alone adds nothing.
  std::unique_ptr<llvm::TargetMachine> target =
      makeTarget("x86-64-v4", "+avx512vnni,+avx512vbmi");
  if (!target)
    GTEST_SKIP() << "the host cannot execute x86-64-v4 + avx512vnni + "
                    "avx512vbmi code";
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *target),
            "quant-block-cpu-pipeline{x86-avx512-vnni=true x86-avx512=true "
            "x86-avx512-vbmi=true x86-f16c=true}");
  EXPECT_EQ(adaptPipelineToTarget(
                "quant-block-cpu-pipeline{x86-avx512-vbmi=false}", *target),
            "quant-block-cpu-pipeline{x86-avx512-vnni=true x86-avx512=true "
            "x86-f16c=true x86-avx512-vbmi=false}");
  std::unique_ptr<llvm::TargetMachine> vbmiOnly =
      makeTarget("x86-64-v4", "+avx512vbmi");
  if (vbmiOnly) {
    EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *vbmiOnly),
              "quant-block-cpu-pipeline{x86-avx512=true x86-f16c=true}");
  }
}

TEST(AdaptPipelineToTarget, AddsBF16RoundingWithAvx512BF16) {
  // x86-avx512-bf16: the kernels' weight roundings to bf16 that never see
  // a subnormal are left to vcvtneps2bf16.
  std::unique_ptr<llvm::TargetMachine> target =
      makeTarget("x86-64-v4", "+avx512bf16");
  if (!target)
    GTEST_SKIP() << "the host cannot execute x86-64-v4 + avx512bf16 code";
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *target),
            "quant-block-cpu-pipeline{x86-avx512=true x86-avx512-bf16=true "
            "x86-f16c=true}");
  EXPECT_EQ(adaptPipelineToTarget(
                "quant-block-cpu-pipeline{x86-avx512-bf16=false}", *target),
            "quant-block-cpu-pipeline{x86-avx512=true x86-f16c=true "
            "x86-avx512-bf16=false}");
}

TEST(AdaptPipelineToTarget, LeavesTargetsWithoutVnniAlone) {
  std::unique_ptr<llvm::TargetMachine> target = makeTarget("x86-64-v3", "");
  if (!target)
    GTEST_SKIP() << "the host cannot execute x86-64-v3 code";
  EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *target),
            "quant-block-cpu-pipeline{x86-f16c=true}");
  // AVX-512 without VNNI: vpermps, not vpdpbusd.
  std::unique_ptr<llvm::TargetMachine> v4 = makeTarget("x86-64-v4", "");
  if (v4) {
    EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *v4),
              "quant-block-cpu-pipeline{x86-avx512=true x86-f16c=true}");
  }
  // x86-64-v2 has neither.
  std::unique_ptr<llvm::TargetMachine> v2 = makeTarget("x86-64-v2", "");
  if (v2) {
    EXPECT_EQ(adaptPipelineToTarget("quant-block-cpu-pipeline", *v2),
              "quant-block-cpu-pipeline");
  }
}

} // namespace
