/*===- resident_driver.c - GEMV calls with device-resident weights --------===*\
|*                                                                            *|
|* The host side of bench/gpu/resident.py's modules, as a model runtime would *|
|* be: the weight's parts are uploaded once per copy through the GPU          *|
|* runtime's quantBlockGpu* entry points (quant-block-c/GpuRuntime.h) and     *|
|* passed to @gemv as device pointers; x is a host array. It times whole      *|
|* calls (wall clock, including launches, the x upload and the y download):  *|
|*   hot   the same weight copy every call (it may stay in the GPU's L2)      *|
|*   cold  rotating over COPIES copies of the weight (more than 4x the L2)    *|
|* and prints `RESULT <name> <value>` lines: wall_hot_s and wall_cold_s (per  *|
|* call, the median), h2d_bytes_per_call and d2h_bytes_per_call (the         *|
|* runtime's copies during the timed calls), max_rel_error of y against a     *|
|* float64 reference of the same weights (computed here). A SCHEME with the   *|
|* suffix +i8 (resident.py --int8) quantizes x to int8 in the module: then    *|
|* also max_error_over_bound, the error over what rounding x to 8 bits per    *|
|* block of 32 may cost (sum |w| absmax / 127, plus 1e-5 of the magnitude).   *|
|* A SCHEME with the suffix +f16 or +bf16 (resident.py --half-prefill) takes *|
|* x and returns y in that type (x's values are exact in it): then also      *|
|* max_error_over_bound, the error over one rounding of y to that type       *|
|* (2^-11 or 2^-8 of |y|, plus 1e-5 of the magnitude).                       *|
|*                                                                            *|
|*   driver SCHEME N K [WARMUP ITERS COPIES [ROWS]]                           *|
|*                                                                            *|
|* ROWS (M, 1 by default: a GEMV) rows of x: the prefill products of         *|
|* resident.py --prefill; three of the M rows of y are checked.              *|
|*                                                                            *|
|* Run with QUANT_BLOCK_CUDA_PROFILE=1, the runtime also reports every       *|
|* kernel's time; bench/gpu/resident_table.py reads both.                     *|
\*===----------------------------------------------------------------------===*/

#include "quant-block-c/GpuRuntime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} Memref2D;

void _mlir_ciface_gemv(Memref2D *result, Memref2D *x, Memref2D *data,
                       Memref2D *scales);

static Memref2D dense(void *pointer, int64_t rows, int64_t columns) {
  Memref2D m = {pointer, pointer, 0, {rows, columns}, {columns, 1}};
  return m;
}

static uint64_t state = 0x2545F4914F6CDD1DULL;
static uint32_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (uint32_t)(state >> 16);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double half(uint16_t bits) {
  int exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  double value =
      exponent ? ldexp(1024 + mantissa, exponent - 25) : ldexp(mantissa, -24);
  return bits & 0x8000 ? -value : value;
}

static double bfloat16(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &wide, sizeof value);
  return value;
}
/// `value`'s f16 or bf16 bits (values exact in both: multiples of 1/8 in
/// [-1, 1]).
static uint16_t toHalfBits(float value, int bf16) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  if (bf16)
    return (uint16_t)(bits >> 16);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  if (value == 0)
    return sign;
  int exponent = (int)((bits >> 23) & 255) - 127 + 15;
  return (uint16_t)(sign | (exponent << 10) | ((bits >> 13) & 1023));
}
static double e2m1(int code) {
  static const double magnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return code & 8 ? -magnitudes[code & 7] : magnitudes[code & 7];
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 7 && argc != 8) {
    fprintf(stderr, "usage: %s SCHEME N K [WARMUP ITERS COPIES [ROWS]]\n",
            argv[0]);
    return 2;
  }
  char scheme[64];
  snprintf(scheme, sizeof scheme, "%s", argv[1]);
  // Activations quantized to int8 in the module (accumulate(i32)).
  char *suffix = strstr(scheme, "+i8");
  int int8Activations = suffix && suffix[3] == 0;
  if (int8Activations)
    *suffix = 0;
  // f16 or bf16 activations and results (halfKind 1 or 2).
  int halfKind = 0;
  if ((suffix = strstr(scheme, "+f16")) && suffix[4] == 0)
    halfKind = 1;
  else if ((suffix = strstr(scheme, "+bf16")) && suffix[5] == 0)
    halfKind = 2;
  if (halfKind)
    *suffix = 0;
  int64_t n = atoll(argv[2]), k = atoll(argv[3]);
  int warmup = argc >= 7 ? atoi(argv[4]) : 10;
  int iters = argc >= 7 ? atoi(argv[5]) : 100;
  int copies = argc >= 7 ? atoi(argv[6]) : 32;
  int64_t rows = argc == 8 ? atoll(argv[7]) : 1;
  if (rows < 1) {
    fprintf(stderr, "ROWS must be positive\n");
    return 2;
  }
  int int4 = strcmp(scheme, "int4_g32_f16") == 0;
  if (!int4 && strcmp(scheme, "mxfp4") != 0) {
    fprintf(stderr, "unknown scheme %s\n", scheme);
    return 2;
  }
  int64_t blocks = k / 32, scaleBytes = int4 ? 2 : 1;
  size_t dataBytes = (size_t)n * k / 2, scalesBytes = n * blocks * scaleBytes;

  // Codes and scales: int4 codes anywhere in [-8, 7], f16 scales 2^-(4..7);
  // MXFP4 codes anywhere, E8M0 scales 2^(-4..-1).
  uint8_t *data = malloc(dataBytes);
  uint8_t *scales = malloc(scalesBytes);
  float *x = malloc(rows * k * sizeof(float));
  for (size_t i = 0; i < dataBytes; ++i)
    data[i] = (uint8_t)next();
  for (int64_t i = 0; i < n * blocks; ++i) {
    int e = next() % 4;
    if (int4)
      ((uint16_t *)scales)[i] = (uint16_t)((15 - 4 - e) << 10);
    else
      scales[i] = (uint8_t)(127 - 1 - e);
  }
  for (int64_t i = 0; i < rows * k; ++i)
    x[i] = (float)((int)(next() % 17) - 8) / 8.0f;
  // Each block of 32 activations' largest magnitude (the int8 bound).
  double *absmax = calloc(rows * blocks, sizeof(double));
  for (int64_t i = 0; i < rows * k; ++i)
    absmax[i / 32] = fmax(absmax[i / 32], fabs(x[i]));

  void *deviceData[256], *deviceScales[256];
  if (copies < 1 || copies > 256) {
    fprintf(stderr, "COPIES must be in [1, 256]\n");
    return 2;
  }
  for (int c = 0; c < copies; ++c) {
    deviceData[c] = quantBlockGpuAlloc(dataBytes);
    deviceScales[c] = quantBlockGpuAlloc(scalesBytes);
    quantBlockGpuUpload(deviceData[c], data, dataBytes);
    quantBlockGpuUpload(deviceScales[c], scales, scalesBytes);
  }

  uint16_t *xHalf = NULL;
  if (halfKind) {
    xHalf = malloc(rows * k * sizeof(uint16_t));
    for (int64_t i = 0; i < rows * k; ++i)
      xHalf[i] = toHalfBits(x[i], halfKind == 2);
  }
  Memref2D xArg = halfKind ? dense(xHalf, rows, k) : dense(x, rows, k);
  // The rows of y checked: the first, a middle and the last one.
  int64_t checkedRows[3] = {0, rows / 2, rows - 1};
  Memref2D result;
  double *times = malloc(sizeof(double) * iters);
  double worst = 0, worstOverBound = 0;
  QuantBlockGpuCopyStats before, after;
  for (int mode = 0; mode < 2; ++mode) {
    int rotate = mode == 1 ? copies : 1;
    for (int call = 0; call < warmup + iters; ++call) {
      if (call == warmup)
        quantBlockGpuGetCopyStats(&before);
      int c = call % rotate;
      Memref2D dataArg = dense(deviceData[c], n, k / 2);
      Memref2D scalesArg = dense(deviceScales[c], n, blocks);
      double start = now();
      _mlir_ciface_gemv(&result, &xArg, &dataArg, &scalesArg);
      double elapsed = now() - start;
      if (call >= warmup)
        times[call - warmup] = elapsed;
      if (call == warmup + iters - 1) {
        quantBlockGpuGetCopyStats(&after);
        // Every column of the checked rows against float64 sums of the
        // same products.
        const float *y = (const float *)result.aligned + result.offset;
        const uint16_t *yHalf =
            (const uint16_t *)result.aligned + result.offset;
        for (int r = 0; r < 3; ++r)
          for (int64_t row = 0; row < n; ++row) {
            int64_t m = checkedRows[r];
            double sum = 0, magnitude = 0, bound = 0;
            for (int64_t j = 0; j < k; ++j) {
              uint8_t byte = data[row * (k / 2) + j / 2];
              int code = j % 2 ? byte >> 4 : byte & 15;
              int64_t b = row * blocks + j / 32;
              double w = int4 ? (code >= 8 ? code - 16 : code) *
                                    half(((uint16_t *)scales)[b])
                              : e2m1(code) * ldexp(1, scales[b] - 127);
              double xj = x[m * k + j];
              sum += w * xj;
              magnitude += fabs(w * xj);
              bound += fabs(w) * absmax[(m * k + j) / 32] / 127;
            }
            double yv = halfKind == 1   ? half(yHalf[m * n + row])
                        : halfKind == 2 ? bfloat16(yHalf[m * n + row])
                                        : y[m * n + row];
            // One rounding of y to f16 or bf16.
            if (halfKind)
              bound = fabs(sum) * (halfKind == 1 ? 0x1p-11 : 0x1p-8);
            double error = fabs(yv - sum) / (magnitude > 0 ? magnitude : 1);
            if (error > worst)
              worst = error;
            bound += 1e-5 * magnitude;
            double overBound = fabs(yv - sum) / (bound > 0 ? bound : 1);
            if (overBound > worstOverBound)
              worstOverBound = overBound;
          }
      }
      free(result.allocated);
    }
    qsort(times, iters, sizeof(double), compareDoubles);
    printf("RESULT %s %.9g\n", mode ? "wall_cold_s" : "wall_hot_s",
           times[iters / 2]);
    printf("RESULT %s %.9g\n",
           mode ? "h2d_bytes_per_call_cold" : "h2d_bytes_per_call",
           (double)(after.hostToDeviceBytes - before.hostToDeviceBytes) /
               iters);
    printf("RESULT %s %.9g\n",
           mode ? "d2h_bytes_per_call_cold" : "d2h_bytes_per_call",
           (double)(after.deviceToHostBytes - before.deviceToHostBytes) /
               iters);
  }
  printf("RESULT max_rel_error %.9g\n", worst);
  if (int8Activations || halfKind)
    printf("RESULT max_error_over_bound %.9g\n", worstOverBound);
  printf("RESULT weight_copies %d\n", copies);
  for (int c = 0; c < copies; ++c) {
    quantBlockGpuFree(deviceData[c]);
    quantBlockGpuFree(deviceScales[c]);
  }
  free(times);
  free(absmax);
  free(x);
  free(xHalf);
  free(scales);
  free(data);
  if (int8Activations || halfKind)
    return worstOverBound <= 1 ? 0 : 1;
  return worst <= 1e-5 ? 0 : 1;
}
