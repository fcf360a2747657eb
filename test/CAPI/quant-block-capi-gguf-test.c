/*===- quant-block-capi-gguf-test.c - GGUF files from C -----------*- C -*-===*\
|*                                                                            *|
|* What a C host does with a GGUF file: open it, read metadata and tensor     *|
|* infos, ask for a tensor's quant_block type and parts, repack it into its   *|
|* own buffers, import the file as a module and call the compiled function    *|
|* on the parts; and read the reason when a file or a tensor is refused.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: rm -rf %t && %python %S/../Target/GGUF/Inputs/make-gguf.py %t
// RUN: quant-block-capi-gguf-test %t 2>&1 | FileCheck %s

#include "quant-block-c/GGUF.h"
#include "quant-block-c/Passes.h"
#include "quant-block-c/Runner.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

static MlirStringRef str(const char *text) {
  return mlirStringRefCreateFromCString(text);
}

static void printRef(const char *label, MlirStringRef ref) {
  printf("%s: %.*s\n", label, (int)ref.length, ref.data);
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  char path[4096];

  // CHECK-LABEL: hostile
  printf("hostile\n");
  snprintf(path, sizeof(path), "%s/overlap.gguf", argv[1]);
  MlirQuantBlockGGUFFile bad =
      mlirQuantBlockGGUFFileOpen(str(path), printToStdout, NULL);
  // CHECK: overlap.gguf: tensor 'v': data [32, +18) overlaps tensor 'w'
  printf("\nnull: %d\n", mlirQuantBlockGGUFFileIsNull(bad));
  // CHECK: null: 1

  // CHECK-LABEL: metadata
  printf("metadata\n");
  snprintf(path, sizeof(path), "%s/valid.gguf", argv[1]);
  MlirQuantBlockGGUFFile f =
      mlirQuantBlockGGUFFileOpen(str(path), printToStdout, NULL);
  if (mlirQuantBlockGGUFFileIsNull(f))
    return 1;
  printf("version %u, alignment %llu\n", mlirQuantBlockGGUFFileGetVersion(f),
         (unsigned long long)mlirQuantBlockGGUFFileGetAlignment(f));
  // CHECK: version 3, alignment 32
  intptr_t arch =
      mlirQuantBlockGGUFFileFindMetadata(f, str("general.architecture"));
  printRef("architecture", mlirQuantBlockGGUFFileGetMetadataString(f, arch));
  // CHECK: architecture: llama
  int64_t blocks = 0;
  intptr_t count =
      mlirQuantBlockGGUFFileFindMetadata(f, str("llama.block_count"));
  bool isInteger = mlirQuantBlockGGUFFileGetMetadataInteger(f, count, &blocks);
  printf("block_count: %d %lld (type %u)\n", isInteger, (long long)blocks,
         mlirQuantBlockGGUFFileGetMetadataType(f, count));
  // CHECK: block_count: 1 1 (type 4)

  // CHECK-LABEL: tensors
  printf("tensors\n");
  for (intptr_t t = 0; t < mlirQuantBlockGGUFFileGetNumTensors(f); ++t) {
    MlirStringRef name = mlirQuantBlockGGUFTensorGetName(f, t);
    MlirStringRef type = mlirQuantBlockGGUFTensorGetTypeName(f, t);
    printf("%.*s %.*s:", (int)name.length, name.data, (int)type.length,
           type.data);
    if (!mlirQuantBlockGGUFTensorIsSupported(f, t, printToStdout, NULL)) {
      printf("\n");
      continue;
    }
    for (intptr_t p = 0; p < mlirQuantBlockGGUFTensorGetNumParts(f, t); ++p) {
      MlirStringRef role = mlirQuantBlockGGUFTensorGetPartRole(f, t, p);
      MlirQuantBlockElementType e =
          mlirQuantBlockGGUFTensorGetPartElementType(f, t, p);
      printf(" %.*s %c%d [", (int)role.length, role.data, e.kind, e.size);
      for (intptr_t d = 0; d < mlirQuantBlockGGUFTensorGetPartRank(f, t, p);
           ++d)
        printf("%s%lld", d ? "x" : "",
               (long long)mlirQuantBlockGGUFTensorGetPartDim(f, t, p, d));
      printf("]");
    }
    printf("\n");
  }
  // CHECK: blk.0.attn_norm.weight F32: data f4 [64]
  // CHECK: blk.0.attn_q.weight Q4_0: data i1 [2x32] scales f2 [2x2]
  // CHECK: output.weight Q6_K: data i1 [2x192] scales i1 [2x16] outer_scales f2
  // [2x1] CHECK: blk.0.ffn_up.weight IQ2_XXS:tensor 'blk.0.ffn_up.weight': type
  // IQ2_XXS is a lattice codebook type

  // CHECK-LABEL: repack
  printf("repack\n");
  intptr_t q = mlirQuantBlockGGUFFileFindTensor(f, str("blk.0.attn_q.weight"));
  int8_t data[2][32];
  uint16_t scales[2][2];
  int64_t dataShape[] = {2, 32}, scaleShape[] = {2, 2};
  MlirQuantBlockBuffer parts[] = {
      {data, 2, dataShape, NULL, {'i', 1}},
      {scales, 2, scaleShape, NULL, {'f', 2}},
  };
  printf("repacked: %d\n", mlirQuantBlockGGUFTensorRepack(f, q, 2, parts, 1,
                                                          printToStdout, NULL));
  // CHECK: repacked: 1
  // Byte j of the block = j: element 0 (nibble 0) and 1 (nibble 1) as
  // two's complement n - 8: 0x8 | 0x9 << 4 = 0x98.
  printf("first byte 0x%02x, scale 0x%04x\n", (uint8_t)data[0][0],
         scales[0][0]);
  // CHECK: first byte 0x98, scale 0x3c00
  MlirQuantBlockBuffer wrong[] = {parts[1], parts[0]};
  printf("\nswapped: %d\n", mlirQuantBlockGGUFTensorRepack(
                                f, q, 2, wrong, 1, printToStdout, NULL));
  // CHECK: tensor 'blk.0.attn_q.weight': buffer 0 does not have the data part's
  // dense shape and element type CHECK: swapped: 0

  // CHECK-LABEL: import and call
  printf("import and call\n");
  mlirRegisterQuantBlockPasses();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirQuantBlockRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  MlirStringRef names[] = {str("blk.0.attn_q.weight")};
  MlirModule module = mlirQuantBlockGGUFImport(ctx, f, 1, names, false);
  if (mlirModuleIsNull(module))
    return 1;
  MlirQuantBlockExecutable exe = mlirQuantBlockExecutableCreate(
      module, str("quant-block-cpu-pipeline"), true, printToStdout, NULL);
  MlirQuantBlockFunction fn = mlirQuantBlockExecutableLookup(
      exe, str("blk.0.attn_q.weight"), printToStdout, NULL);
  MlirQuantBlockResults results =
      mlirQuantBlockFunctionCall(fn, 2, parts, printToStdout, NULL);
  MlirQuantBlockBuffer values = mlirQuantBlockResultsGet(results, 0);
  const float *w = (const float *)values.data;
  printf("w[0][0..3] = %g %g %g %g, w[1][16] = %g\n", w[0], w[1], w[2], w[3],
         w[64 + 16]);
  // CHECK: w[0][0..3] = -8 -7 -6 -5, w[1][16] = -8
  mlirQuantBlockResultsDestroy(results);
  mlirQuantBlockExecutableDestroy(exe);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  mlirQuantBlockGGUFFileClose(f);
  return 0;
}
