/*===- quant-block-capi-test.c - quant_block C API test -----------*- C -*-===*\
|*                                                                            *|
|* Exercises the C API as a C client would: register the dialect, build and   *|
|* parse schemes, read every field back (rounding modes and outer scales      *|
|* included), derive part types, and get a null result (with a diagnostic)    *|
|* for an invalid scheme.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: quant-block-capi-test 2>&1 | FileCheck %s

#include "quant-block-c/QuantBlock.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static void printToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diag, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static void printType(const char *label, MlirType type) {
  printf("%s: ", label);
  if (mlirTypeIsNull(type))
    printf("<null>");
  else
    mlirTypePrint(type, printToStdout, NULL);
  printf("\n");
}

static void testNamedScheme(MlirContext ctx) {
  // CHECK-LABEL: testNamedScheme
  printf("testNamedScheme\n");
  MlirAttribute mxfp4 = mlirQuantBlockSchemeAttrGetNamed(
      ctx, mlirStringRefCreateFromCString("mxfp4"), mlirBF16TypeGet(ctx));
  // CHECK: isa scheme: 1
  printf("isa scheme: %d\n", mlirAttributeIsAQuantBlockScheme(mxfp4));
  // CHECK: #quant_block.scheme<mxfp4 : bf16>
  mlirAttributePrint(mxfp4, printToStdout, NULL);
  printf("\n");
  // CHECK: storage: f4E2M1FN
  printType("storage", mlirQuantBlockSchemeAttrGetStorageType(mxfp4));
  // CHECK: scale: f8E8M0FNU
  printType("scale", mlirQuantBlockSchemeAttrGetScaleType(mxfp4));
  // CHECK: block rank 1, size 32
  printf("block rank %ld, size %ld\n",
         (long)mlirQuantBlockSchemeAttrGetBlockRank(mxfp4),
         (long)mlirQuantBlockSchemeAttrGetBlockSize(mxfp4, 0));
  MlirStringRef name;
  // CHECK: standard name: mxfp4
  if (mlirQuantBlockSchemeAttrGetStandardName(mxfp4, &name))
    printf("standard name: %.*s\n", (int)name.length, name.data);
  // CHECK: unknown name is null: 1
  printf(
      "unknown name is null: %d\n",
      mlirAttributeIsNull(mlirQuantBlockSchemeAttrGetNamed(
          ctx, mlirStringRefCreateFromCString("mxfp5"), mlirF32TypeGet(ctx))));
}

static void testBuiltScheme(MlirContext ctx) {
  // CHECK-LABEL: testBuiltScheme
  printf("testBuiltScheme\n");
  int64_t block[] = {1, 32};
  MlirType ui4 = mlirIntegerTypeUnsignedGet(ctx, 4);
  MlirAttribute scheme = mlirQuantBlockSchemeAttrGet(
      ctx, ui4, mlirF32TypeGet(ctx), 2, block, mlirF16TypeGet(ctx), ui4);
  // CHECK: #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16,
  // zero_point = ui4>
  mlirAttributePrint(scheme, printToStdout, NULL);
  printf("\n");
  // CHECK: domain 1, range [0, 15], saturate 1, outer 0
  printf("domain %d, range [%ld, %ld], saturate %d, outer %d\n",
         (int)mlirQuantBlockSchemeAttrGetZeroPointDomain(scheme),
         (long)mlirQuantBlockSchemeAttrGetQmin(scheme),
         (long)mlirQuantBlockSchemeAttrGetQmax(scheme),
         mlirQuantBlockSchemeAttrGetSaturate(scheme),
         mlirQuantBlockSchemeAttrHasOuter(scheme));

  int64_t shape[] = {7, 70};
  MlirType type = mlirQuantBlockTensorTypeGet(ctx, 2, shape, scheme);
  // CHECK: isa tensor: 1
  printf("isa tensor: %d\n", mlirTypeIsAQuantBlockTensor(type));
  // CHECK: data: tensor<7x70xui4>
  printType("data", mlirQuantBlockTensorTypeGetDataType(type));
  // CHECK: scales: tensor<7x3xf16>
  printType("scales", mlirQuantBlockTensorTypeGetScalesType(type));
  // CHECK: zero points: tensor<7x3xui4>
  printType("zero points", mlirQuantBlockTensorTypeGetZeroPointsType(type));
  // CHECK: scheme matches: 1
  printf("scheme matches: %d\n",
         mlirAttributeEqual(mlirQuantBlockTensorTypeGetScheme(type), scheme));
}

static void testParsedAndInvalid(MlirContext ctx) {
  // CHECK-LABEL: testParsedAndInvalid
  printf("testParsedAndInvalid\n");
  MlirAttribute parsed = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#quant_block.scheme<i4 : f32, range = [-7, 7]>"));
  // CHECK: parsed range [-7, 7], no zero point 1
  printf("parsed range [%ld, %ld], no zero point %d\n",
         (long)mlirQuantBlockSchemeAttrGetQmin(parsed),
         (long)mlirQuantBlockSchemeAttrGetQmax(parsed),
         mlirTypeIsNull(mlirQuantBlockSchemeAttrGetZeroPointType(parsed)));

  int64_t block[] = {16};
  MlirType noZeroPoint = {NULL};
  // CHECK: diagnostic: an f8E8M0FNU (MX) scale needs a block of exactly 32
  // elements along one dimension (OCP MX v1.0), but the block is [16]
  MlirAttribute invalid = mlirQuantBlockSchemeAttrGet(
      ctx, mlirFloat4E2M1FNTypeGet(ctx), mlirF32TypeGet(ctx), 1, block,
      mlirFloat8E8M0FNUTypeGet(ctx), noZeroPoint);
  // CHECK: invalid is null: 1
  printf("invalid is null: %d\n", mlirAttributeIsNull(invalid));
}

static void testRoundingAndOuterScales(MlirContext ctx) {
  // CHECK-LABEL: testRoundingAndOuterScales
  printf("testRoundingAndOuterScales\n");
  MlirAttribute rounded = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#quant_block.scheme<f4E2M1FN : f32, block = [32], "
               "scale = f8E8M0FNU, rounding = half_away_from_zero, "
               "scale_rounding = ceil>"));
  // CHECK: rounding 1, scale rounding 1, outer scale null 1
  printf("rounding %d, scale rounding %d, outer scale null %d\n",
         (int)mlirQuantBlockSchemeAttrGetRounding(rounded),
         (int)mlirQuantBlockSchemeAttrGetScaleRounding(rounded),
         mlirTypeIsNull(mlirQuantBlockSchemeAttrGetOuterScaleType(rounded)));

  MlirAttribute nvfp4 = mlirQuantBlockSchemeAttrGetNamed(
      ctx, mlirStringRefCreateFromCString("nvfp4"), mlirF32TypeGet(ctx));
  // CHECK: nvfp4 outer 1, outer block rank 0, outer min null 1
  printf("nvfp4 outer %d, outer block rank %ld, outer min null %d\n",
         mlirQuantBlockSchemeAttrHasOuter(nvfp4),
         (long)mlirQuantBlockSchemeAttrGetOuterBlockRank(nvfp4),
         mlirTypeIsNull(mlirQuantBlockSchemeAttrGetOuterMinType(nvfp4)));
  // CHECK: nvfp4 outer scale: f32
  printType("nvfp4 outer scale",
            mlirQuantBlockSchemeAttrGetOuterScaleType(nvfp4));

  // GGUF Q4_K: ui6 block scales and mins under f16 super-blocks of 8.
  MlirAttribute q4k = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#quant_block.scheme<ui4 : f32, block = [32], scale = ui6, "
               "zero_point = ui6, outer = <f16, block = [8], min = f16>>"));
  // CHECK: q4k outer block [8]
  printf("q4k outer block [%ld]\n",
         (long)mlirQuantBlockSchemeAttrGetOuterBlockSize(q4k, 0));
  // CHECK: q4k outer min: f16
  printType("q4k outer min", mlirQuantBlockSchemeAttrGetOuterMinType(q4k));
}

static void testRowTiledLayout(MlirContext ctx) {
  // CHECK-LABEL: testRowTiledLayout
  printf("testRowTiledLayout\n");
  MlirAttribute rowMajor = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, "
               "zero_point = ui4>"));
  MlirAttribute tiled = mlirQuantBlockSchemeAttrWithRowTile(rowMajor, 16);
  // CHECK: row tiles: 0 16
  printf("row tiles: %ld %ld\n",
         (long)mlirQuantBlockSchemeAttrGetRowTile(rowMajor),
         (long)mlirQuantBlockSchemeAttrGetRowTile(tiled));
  int64_t shape[] = {32, 64};
  MlirType type = mlirQuantBlockTensorTypeGet(ctx, 2, shape, tiled);
  // The logical parts stay [N, K]; the lowered ones are tiled.
  // CHECK: data: tensor<32x64xui4>
  printType("data", mlirQuantBlockTensorTypeGetDataType(type));
  // CHECK: lowered parts: 3
  intptr_t parts = mlirQuantBlockTensorTypeGetNumLoweredParts(type);
  printf("lowered parts: %ld\n", (long)parts);
  // CHECK: part: tensor<2x8x16x4xi8>
  // CHECK: part: tensor<2x2x16xf16>
  // CHECK: part: tensor<2x2x16xi4>
  for (intptr_t i = 0; i < parts; ++i)
    printType("part", mlirQuantBlockTensorTypeGetLoweredPartType(type, i));
  // CHECK: row-major data part: tensor<32x32xi8>
  printType("row-major data part",
            mlirQuantBlockTensorTypeGetLoweredPartType(
                mlirQuantBlockTensorTypeGet(ctx, 2, shape, rowMajor), 0));
  // CHECK: diagnostic: row_tile = 1 is not a tile
  // CHECK: invalid row tile is null: 1
  printf("invalid row tile is null: %d\n",
         mlirAttributeIsNull(mlirQuantBlockSchemeAttrWithRowTile(rowMajor, 1)));
  // A shape the tile does not divide: no type.
  int64_t ragged[] = {24, 64};
  // CHECK: diagnostic: row_tile = 16 does not divide the 24 rows
  // CHECK: ragged is null: 1
  printf("ragged is null: %d\n",
         mlirTypeIsNull(mlirQuantBlockTensorTypeGet(ctx, 2, ragged, tiled)));
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__quant_block__(), ctx);
  mlirContextGetOrLoadDialect(ctx,
                              mlirStringRefCreateFromCString("quant_block"));
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  testNamedScheme(ctx);
  testBuiltScheme(ctx);
  testParsedAndInvalid(ctx);
  testRoundingAndOuterScales(ctx);
  testRowTiledLayout(ctx);
  mlirContextDestroy(ctx);
  return 0;
}
