/*===- quant-block-capi-runner-test.c - passes and runner from C --*- C -*-===*\
|*                                                                            *|
|* What a C host does with quant-block: register the passes, run              *|
|* --quant-block-raise through mlirParsePassPipeline / mlirPassManagerRunOnOp,*|
|* compile a module with --quant-block-cpu-pipeline through the runner API,   *|
|* call a kernel on a strided buffer and on quantized parts, and read the     *|
|* diagnostics of each failure as text; with the Vulkan runtime's path as    *|
|* argument, keep a quantized argument on the device across calls.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: quant-block-capi-runner-test 2>&1 | FileCheck %s
// With the Vulkan runtime, device-resident arguments too:
// RUN: %if vulkan %{ quant-block-capi-runner-test %vulkan_runtime 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,VULKAN %}

#include "quant-block-c/Passes.h"
#include "quant-block-c/QuantBlock.h"
#include "quant-block-c/Runner.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void printToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

static MlirStringRef str(const char *text) {
  return mlirStringRefCreateFromCString(text);
}

static const char *kDcast =
    "func.func @dcast(%q: tensor<2x4xi8>) -> tensor<2x4xf32> {\n"
    "  %0 = quant.scast %q : tensor<2x4xi8> to "
    "tensor<2x4x!quant.uniform<i8:f32, 0.5:-3>>\n"
    "  %1 = quant.dcast %0 : tensor<2x4x!quant.uniform<i8:f32, 0.5:-3>> to "
    "tensor<2x4xf32>\n"
    "  return %1 : tensor<2x4xf32>\n"
    "}\n";

/// Runs --quant-block-raise with the pass manager of the core C API.
static void testRaise(MlirContext ctx) {
  // CHECK-LABEL: testRaise
  printf("testRaise\n");
  MlirModule module = mlirModuleCreateParse(ctx, str(kDcast));
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm, str("builtin.module(quant-block-raise)"), printToStdout, NULL);
  // CHECK: parsed: 1
  printf("parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  MlirLogicalResult ran =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  // CHECK: ran: 1
  printf("ran: %d\n", mlirLogicalResultIsSuccess(ran));
  // CHECK: quant_block.pack
  // CHECK: quant_block.dequantize
  // CHECK-NOT: quant.dcast
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  mlirPassManagerDestroy(pm);

  // A generated pass constructor, added by hand.
  pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm,
                              mlirCreateQuantBlockTransformsQuantBlockRaise());
  // CHECK: created pass ran: 1
  printf("created pass ran: %d\n",
         mlirLogicalResultIsSuccess(
             mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

static void printBuffer(MlirQuantBlockBuffer buffer) {
  int64_t count = 1;
  for (intptr_t dim = 0; dim < buffer.rank; ++dim)
    count *= buffer.shape[dim];
  printf("%c%d [", buffer.elementType.kind, (int)buffer.elementType.size);
  for (int64_t i = 0; i < count; ++i)
    printf("%s%g", i ? " " : "", (double)((float *)buffer.data)[i]);
  printf("]\n");
}

/// Compiles the raised dcast and calls it on a strided (transposed) view.
static void testCompileAndCall(MlirContext ctx) {
  // CHECK-LABEL: testCompileAndCall
  printf("testCompileAndCall\n");
  MlirModule module = mlirModuleCreateParse(ctx, str(kDcast));
  MlirQuantBlockExecutable executable = mlirQuantBlockExecutableCreate(
      module, str("quant-block-cpu-pipeline"), false, printToStdout, NULL);
  // CHECK: compiled: 1
  printf("compiled: %d\n", !mlirQuantBlockExecutableIsNull(executable));
  MlirQuantBlockFunction dcast = mlirQuantBlockExecutableLookup(
      executable, str("dcast"), printToStdout, NULL);
  // CHECK: arguments 1, results 1, argument i1 rank 2 [2, 4]
  MlirQuantBlockElementType type =
      mlirQuantBlockFunctionGetArgumentElementType(dcast, 0);
  printf("arguments %ld, results %ld, argument %c%d rank %ld [%ld, %ld]\n",
         (long)mlirQuantBlockFunctionGetNumArguments(dcast),
         (long)mlirQuantBlockFunctionGetNumResults(dcast), type.kind,
         (int)type.size, (long)mlirQuantBlockFunctionGetArgumentRank(dcast, 0),
         (long)mlirQuantBlockFunctionGetArgumentDim(dcast, 0, 0),
         (long)mlirQuantBlockFunctionGetArgumentDim(dcast, 0, 1));

  // The compiler's memory handed back before the first call: compiled code
  // runs without it (the call below checks the results). Linux 5.4 and
  // later take the advice for some of libMLIR's and libLLVM's mappings.
  // CHECK: released compiler memory: 1
  printf("released compiler memory: %d\n",
         mlirQuantBlockReleaseCompilerMemory() > 0);

  // The transpose of a 4x2 array: element [i][j] at storage[j * 2 + i].
  int8_t storage[8] = {-3, 1, -1, 3, 0, 5, 2, 7};
  int64_t shape[2] = {2, 4};
  int64_t strides[2] = {1, 2};
  MlirQuantBlockBuffer argument = {storage, 2, shape, strides, {'i', 1}};
  MlirQuantBlockResults results =
      mlirQuantBlockFunctionCall(dcast, 1, &argument, printToStdout, NULL);
  // CHECK: results: 1
  printf("results: %ld\n", (long)mlirQuantBlockResultsGetNum(results));
  // (q + 3) * 0.5 of [[-3, -1, 0, 2], [1, 3, 5, 7]]:
  // CHECK: f4 [0 1 1.5 2.5 2 3 4 5]
  printBuffer(mlirQuantBlockResultsGet(results, 0));
  mlirQuantBlockResultsDestroy(results);

  // CHECK: error: input #0 'buffer' has dtype <f4 but argument #0 of @dcast
  // expects i8
  MlirQuantBlockBuffer wrongType = {storage, 2, shape, NULL, {'f', 4}};
  results =
      mlirQuantBlockFunctionCall(dcast, 1, &wrongType, printToStdout, NULL);
  // CHECK: null results: 1
  printf("null results: %d\n", mlirQuantBlockResultsIsNull(results));

  // CHECK: error: the module defines no func.func @missing
  MlirQuantBlockFunction missing = mlirQuantBlockExecutableLookup(
      executable, str("missing"), printToStdout, NULL);
  // CHECK: null function: 1
  printf("null function: %d\n", mlirQuantBlockFunctionIsNull(missing));
  mlirQuantBlockExecutableDestroy(executable);
  mlirModuleDestroy(module);
}

/// Dequantizes a quantized argument (passed as its parts).
static const char *kDequant =
    "!q = !quant_block.tensor<2x4, #quant_block.scheme<i8 : f32, "
    "block = [2]>>\n"
    "func.func @dequant(%q: !q) -> tensor<2x4xf32> {\n"
    "  %x = quant_block.dequantize %q : !q -> tensor<2x4xf32>\n"
    "  return %x : tensor<2x4xf32>\n"
    "}\n";

/// A quantized argument passed as its parts (data, scales).
static void testQuantizedParts(MlirContext ctx) {
  // CHECK-LABEL: testQuantizedParts
  printf("testQuantizedParts\n");
  MlirModule module = mlirModuleCreateParse(ctx, str(kDequant));
  MlirQuantBlockExecutable executable = mlirQuantBlockExecutableCreate(
      module, str("quant-block-cpu-pipeline"), true, printToStdout, NULL);
  MlirQuantBlockFunction dequant = mlirQuantBlockExecutableLookup(
      executable, str("dequant"), printToStdout, NULL);
  // CHECK: parts: 2
  printf("parts: %ld\n", (long)mlirQuantBlockFunctionGetNumArguments(dequant));
  // CHECK: argument #0 of @dequant (the scales of
  printToStdout(mlirQuantBlockFunctionGetArgumentName(dequant, 1), NULL);
  printf("\n");
  int8_t data[8] = {1, 2, 3, 4, -1, -2, -3, -4};
  float scales[4] = {1.0f, 0.5f, 2.0f, 0.25f};
  int64_t dataShape[2] = {2, 4};
  int64_t scalesShape[2] = {2, 2};
  MlirQuantBlockBuffer arguments[2] = {
      {data, 2, dataShape, NULL, {'i', 1}},
      {scales, 2, scalesShape, NULL, {'f', 4}}};
  MlirQuantBlockResults results =
      mlirQuantBlockFunctionCall(dequant, 2, arguments, printToStdout, NULL);
  // CHECK: f4 [1 2 1.5 2 -2 -4 -0.75 -1]
  printBuffer(mlirQuantBlockResultsGet(results, 0));
  mlirQuantBlockResultsDestroy(results);
  mlirQuantBlockExecutableDestroy(executable);
  mlirModuleDestroy(module);
}

/// Failures come back as text with the diagnostics and their locations.
static void testDiagnostics(MlirContext ctx) {
  // CHECK-LABEL: testDiagnostics
  printf("testDiagnostics\n");
  MlirModule module = mlirModuleCreateParse(ctx, str(kDcast));
  MlirQuantBlockExecutable executable = mlirQuantBlockExecutableCreate(
      module, str("no-such-pass"), false, printToStdout, NULL);
  // CHECK: error: cannot parse the pass pipeline 'no-such-pass'
  // CHECK: null executable: 1
  printf("null executable: %d\n", mlirQuantBlockExecutableIsNull(executable));
  mlirModuleDestroy(module);

  // A pass that fails reports at the op: here the lowering of an
  // unsupported 12-bit storage type.
  module = mlirModuleCreateParse(
      ctx, str("!q = !quant_block.tensor<4, #quant_block.scheme<i12 : f32>>\n"
               "func.func @f(%q: !q) -> tensor<4xf32> {\n"
               "  %x = quant_block.dequantize %q : !q -> tensor<4xf32>\n"
               "  return %x : tensor<4xf32>\n"
               "}\n"));
  executable = mlirQuantBlockExecutableCreate(
      module, str("quant-block-cpu-pipeline"), true, printToStdout, NULL);
  // CHECK: loc("-":3:8): error:
  // CHECK: error: the pass pipeline 'quant-block-cpu-pipeline' failed
  printf("null executable: %d\n", mlirQuantBlockExecutableIsNull(executable));
  mlirModuleDestroy(module);
}

/// What the CPU pipeline's kernels may use on a named CPU, from LLVM's
/// tables; an unknown name is an error that says which.
static void testCPUTarget(void) {
  // CHECK-LABEL: testCPUTarget
  printf("testCPUTarget\n");
  MlirQuantBlockCPUTarget target;
  bool resolved = mlirQuantBlockResolveCPUTarget(str("x86-64-v2"), str(""),
                                                 &target, printToStdout, NULL);
  // CHECK: x86-64-v2: 1 avx512f 0 vnni 0 amx 0 amx-bf16 0 f16c 0 vector bits
  // 128
  printf("x86-64-v2: %d avx512f %d vnni %d amx %d amx-bf16 %d f16c %d vector "
         "bits %d\n",
         resolved, target.avx512f, target.avx512Vnni, target.amxInt8,
         target.amxBF16, target.f16c, (int)target.vectorBits);
  resolved = mlirQuantBlockResolveCPUTarget(
      str("x86-64-v4"), str("+avx512vnni,+amx-tile,+amx-int8,+amx-bf16"),
      &target, printToStdout, NULL);
  // CHECK: x86-64-v4 with AMX: 1 avx512f 1 vnni 1 amx 1 amx-bf16 1 f16c 1
  // vector bits 512
  printf("x86-64-v4 with AMX: %d avx512f %d vnni %d amx %d amx-bf16 %d f16c "
         "%d vector bits %d\n",
         resolved, target.avx512f, target.avx512Vnni, target.amxInt8,
         target.amxBF16, target.f16c, (int)target.vectorBits);
  // CHECK: 'bogus' is not a processor
  // CHECK: bogus resolved: 0
  resolved = mlirQuantBlockResolveCPUTarget(str("bogus"), str(""), &target,
                                            printToStdout, NULL);
  printf("\nbogus resolved: %d\n", resolved);
}

static const char *kResidentDequant =
    "!q = !quant_block.tensor<2x4, #quant_block.scheme<i8 : f32, "
    "block = [2]>>\n"
    "func.func @dequant(%q: !q {quant_block.device_resident}) -> "
    "tensor<2x4xf32> {\n"
    "  %x = quant_block.dequantize %q : !q -> tensor<2x4xf32>\n"
    "  return %x : tensor<2x4xf32>\n"
    "}\n";

/// Host-to-device bytes the GPU runtime copied since `before`.
static uint64_t copiedToDevice(MlirQuantBlockExecutable executable,
                               const uint64_t before[6]) {
  uint64_t now[6];
  mlirQuantBlockExecutableGetCopyStats(executable, now);
  return now[1] - before[1];
}

/// Calls @dequant three times on `arguments` and returns the bytes copied
/// to the device meanwhile; prints the last result.
static uint64_t callThrice(MlirQuantBlockExecutable executable,
                           MlirQuantBlockBuffer *arguments) {
  MlirQuantBlockFunction dequant = mlirQuantBlockExecutableLookup(
      executable, str("dequant"), printToStdout, NULL);
  uint64_t before[6];
  mlirQuantBlockExecutableGetCopyStats(executable, before);
  MlirQuantBlockResults results = {NULL};
  for (int call = 0; call < 3; ++call) {
    if (results.ptr)
      mlirQuantBlockResultsDestroy(results);
    results =
        mlirQuantBlockFunctionCall(dequant, 2, arguments, printToStdout, NULL);
  }
  printBuffer(mlirQuantBlockResultsGet(results, 0));
  mlirQuantBlockResultsDestroy(results);
  return copiedToDevice(executable, before);
}

/// A device-resident quantized argument on Vulkan: its parts are uploaded
/// once and every call passes them to the kernels without a copy.
static void testDeviceResident(MlirContext ctx, const char *vulkanRuntime) {
  // VULKAN-LABEL: testDeviceResident
  printf("testDeviceResident\n");
  int8_t data[8] = {1, 2, 3, 4, -1, -2, -3, -4};
  float scales[4] = {1.0f, 0.5f, 2.0f, 0.25f};
  int64_t dataShape[2] = {2, 4};
  int64_t scalesShape[2] = {2, 2};
  MlirQuantBlockBuffer host[2] = {{data, 2, dataShape, NULL, {'i', 1}},
                                  {scales, 2, scalesShape, NULL, {'f', 4}}};
  MlirStringRef libraries[1] = {str(vulkanRuntime)};

  // Without a GPU runtime there is nothing to upload to.
  MlirModule module = mlirModuleCreateParse(ctx, str(kResidentDequant));
  MlirQuantBlockExecutable cpu = mlirQuantBlockExecutableCreate(
      module, str("quant-block-cpu-pipeline"), true, printToStdout, NULL);
  // VULKAN: launch counts without a runtime: 0
  uint64_t noCounts[2];
  printf("launch counts without a runtime: %d\n",
         mlirQuantBlockExecutableGetLaunchStats(cpu, noCounts));
  // VULKAN: error: the executable loaded no GPU runtime
  // VULKAN: upload without a runtime: 0
  printf("upload without a runtime: %d\n",
         mlirQuantBlockExecutableUpload(cpu, &host[0], printToStdout, NULL) !=
             NULL);
  mlirQuantBlockExecutableDestroy(cpu);

  MlirQuantBlockExecutable gpu = mlirQuantBlockExecutableCreateWithLibraries(
      module, str("quant-block-spirv-pipeline"), true, 1, libraries,
      printToStdout, NULL);
  MlirQuantBlockFunction dequant =
      mlirQuantBlockExecutableLookup(gpu, str("dequant"), printToStdout, NULL);
  // VULKAN: resident: 1 1
  printf("resident: %d %d\n",
         mlirQuantBlockFunctionIsArgumentDeviceResident(dequant, 0),
         mlirQuantBlockFunctionIsArgumentDeviceResident(dequant, 1));
  // VULKAN: error: argument #0 of @dequant (the data of {{.*}}) is
  // VULKAN-SAME: device-resident (quant_block.device_resident): pass a buffer
  // VULKAN-SAME: of mlirQuantBlockExecutableUpload
  MlirQuantBlockResults refused =
      mlirQuantBlockFunctionCall(dequant, 2, host, printToStdout, NULL);
  printf("refused: %d\n", mlirQuantBlockResultsIsNull(refused));

  uint64_t before[6];
  mlirQuantBlockExecutableGetCopyStats(gpu, before);
  MlirQuantBlockBuffer device[2] = {host[0], host[1]};
  device[0].data =
      mlirQuantBlockExecutableUpload(gpu, &host[0], printToStdout, NULL);
  device[1].data =
      mlirQuantBlockExecutableUpload(gpu, &host[1], printToStdout, NULL);
  // 8 bytes of codes and 16 of scales.
  // VULKAN: uploaded: 24 bytes
  printf("uploaded: %llu bytes\n",
         (unsigned long long)copiedToDevice(gpu, before));
  uint64_t launchesBefore[2];
  mlirQuantBlockExecutableGetLaunchStats(gpu, launchesBefore);
  // VULKAN: f4 [1 2 1.5 2 -2 -4 -0.75 -1]
  uint64_t resident = callThrice(gpu, device);
  // Each call launches the dequantization's one kernel and waits once.
  // VULKAN: three calls: 3 launches, 3 waits
  uint64_t launchesAfter[2];
  mlirQuantBlockExecutableGetLaunchStats(gpu, launchesAfter);
  printf("three calls: %llu launches, %llu waits\n",
         (unsigned long long)(launchesAfter[0] - launchesBefore[0]),
         (unsigned long long)(launchesAfter[1] - launchesBefore[1]));

  // The same calls with the parts as host arguments copy them every call.
  MlirModule plainModule = mlirModuleCreateParse(ctx, str(kDequant));
  MlirQuantBlockExecutable plain = mlirQuantBlockExecutableCreateWithLibraries(
      plainModule, str("quant-block-spirv-pipeline"), true, 1, libraries,
      printToStdout, NULL);
  // A device buffer where a host argument is expected is refused.
  // VULKAN: error: argument #0 of @dequant (the data of {{.*}}) is a host
  // VULKAN-SAME: argument but was given a device buffer
  void *stray =
      mlirQuantBlockExecutableUpload(plain, &host[0], printToStdout, NULL);
  MlirQuantBlockBuffer mixed[2] = {host[0], host[1]};
  mixed[0].data = stray;
  MlirQuantBlockFunction plainDequant = mlirQuantBlockExecutableLookup(
      plain, str("dequant"), printToStdout, NULL);
  refused =
      mlirQuantBlockFunctionCall(plainDequant, 2, mixed, printToStdout, NULL);
  mlirQuantBlockExecutableFreeDevice(plain, stray);
  // VULKAN: f4 [1 2 1.5 2 -2 -4 -0.75 -1]
  uint64_t copied = callThrice(plain, host);
  // Three calls copy the 24 bytes three times; resident, never.
  // VULKAN: host arguments copied 72 more bytes to the device
  printf("host arguments copied %llu more bytes to the device\n",
         (unsigned long long)(copied - resident));
  mlirQuantBlockExecutableDestroy(plain);
  mlirModuleDestroy(plainModule);
  mlirQuantBlockExecutableFreeDevice(gpu, device[0].data);
  mlirQuantBlockExecutableFreeDevice(gpu, device[1].data);
  mlirQuantBlockExecutableDestroy(gpu);
  mlirModuleDestroy(module);
}

int main(int argc, char **argv) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirQuantBlockRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterQuantBlockPasses();
  // Registering twice is harmless.
  mlirRegisterQuantBlockPasses();
  testRaise(ctx);
  testCompileAndCall(ctx);
  testQuantizedParts(ctx);
  testDiagnostics(ctx);
  testCPUTarget();
  if (argc > 1)
    testDeviceResident(ctx, argv[1]);
  mlirContextDestroy(ctx);
  return 0;
}
