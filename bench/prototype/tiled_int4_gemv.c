//===- tiled_int4_gemv.c - the int8-activation GEMV over a tiled layout ---===//
//
// A hand-written prototype, not project code: how fast the int4 x int8
// GEMV (4096 x 4096, blocks of 32 with f16 scales, M = 1, one thread,
// AVX512-VNNI) of bench/linear_int4_g32_f16_i8act.mlir could run if the
// weight were stored in the row-tiled layout of docs/Packing.md ("The
// row-tiled layout", since implemented as `row_tile = 16`), measured the way
// `quant-run --benchmark-cold` measures the compiled kernel: calls rotate
// over copies of the weight totalling far more than the last-level cache,
// min of the timed calls, beside a read-only sum over the same copies.
//
// Layout: for each tile of 16 weight rows and each block of 32 codes, one
// 288-byte record: 4 x 64 bytes of packed codes, the 64 bytes at 64 * d
// holding dword d (8 codes) of rows 0..15, then the 16 rows' f16 scales.
// The kernel loads each 64 bytes as the vector it multiplies (no
// transposition, which is what bounds the compiled kernel on the row-major
// layout: docs/Packing.md) and the tile is one contiguous stream.
// The arithmetic is the compiled kernel's (exact i32 block sums with
// vpdpbusd on the codes + 8, minus 8 x the activation block sum, then one
// f32 scaling per block); the codes are random, only the time matters.
//
//   cc -O2 -march=native bench/prototype/tiled_int4_gemv.c -o /tmp/tiled
//   /tmp/tiled [prefetch distance in bytes, default 1152]
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { N = 4096, K = 4096, BLOCK = 32, TILE = 16, COPIES = 24 };
enum { RECORD = 4 * 64 + TILE * 2 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/// y = W x for one weight copy `w`; activations `x` (int8 codes, with
/// their f32 scale and code sum per block).
static void gemv(const uint8_t *w, const int8_t *x, const float *xScales,
                 const int32_t *xSums, float *y, int prefetch) {
  const __m512i nibbles = _mm512_set1_epi32(0x0F0F0F0F);
  const __m512i bias = _mm512_set1_epi32((int)0x88888888u);
  for (int t = 0; t < N / TILE; ++t) {
    __m512 acc = _mm512_setzero_ps();
    const uint8_t *tile = w + (size_t)t * (K / BLOCK) * RECORD;
    for (int c = 0; c < K / BLOCK; ++c) {
      const uint8_t *record = tile + (size_t)c * RECORD;
      if (prefetch)
        for (int line = 0; line < RECORD; line += 64)
          _mm_prefetch((const char *)record + prefetch + line, _MM_HINT_T0);
      const int32_t *xc = (const int32_t *)(x + BLOCK * c);
      __m512i part[4];
      for (int d = 0; d < 4; ++d) {
        // Codes + 8 (unsigned), low nibbles then high nibbles.
        __m512i codes =
            _mm512_xor_si512(_mm512_load_si512(record + 64 * d), bias);
        __m512i low = _mm512_and_si512(codes, nibbles);
        __m512i high = _mm512_and_si512(_mm512_srli_epi32(codes, 4), nibbles);
        part[d] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), low,
                                      _mm512_set1_epi32(xc[d]));
        part[d] =
            _mm512_dpbusd_epi32(part[d], high, _mm512_set1_epi32(xc[4 + d]));
      }
      __m512i sums = _mm512_add_epi32(_mm512_add_epi32(part[0], part[1]),
                                      _mm512_add_epi32(part[2], part[3]));
      sums = _mm512_sub_epi32(sums, _mm512_set1_epi32(8 * xSums[c]));
      __m512 scales = _mm512_cvtph_ps(
          _mm256_load_si256((const __m256i *)(record + 4 * 64)));
      scales = _mm512_mul_ps(scales, _mm512_set1_ps(xScales[c]));
      acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_cvtepi32_ps(sums), scales));
    }
    _mm512_store_ps(y + TILE * t, acc);
  }
}

int main(int argc, char **argv) {
  int prefetch = argc > 1 ? atoi(argv[1]) : 1152;
  size_t bytes = (size_t)(N / TILE) * (K / BLOCK) * RECORD;
  uint8_t *copies = aligned_alloc(64, bytes * COPIES);
  for (size_t i = 0; i < bytes * COPIES; ++i)
    copies[i] = (uint8_t)(i * 2654435761u >> 13);
  for (size_t r = 0; r < (size_t)COPIES * (N / TILE) * (K / BLOCK); ++r) {
    uint16_t *scales = (uint16_t *)(copies + r * RECORD + 4 * 64);
    for (int l = 0; l < TILE; ++l)
      scales[l] = 0x3c00 + (l & 7); // finite halves near 1
  }
  int8_t *x = aligned_alloc(64, K);
  float xScales[K / BLOCK];
  int32_t xSums[K / BLOCK];
  for (int k = 0; k < K; ++k)
    x[k] = (int8_t)(k * 7 % 255 - 127);
  for (int b = 0; b < K / BLOCK; ++b) {
    xScales[b] = 0.01f * (b + 1);
    xSums[b] = 0;
    for (int k = 0; k < BLOCK; ++k)
      xSums[b] += x[BLOCK * b + k];
  }
  float *y = aligned_alloc(64, N * sizeof(float));

  double cold = 1e9, hot = 1e9, read = 1e9;
  for (int call = 0; call < 3 * COPIES; ++call) {
    double start = now();
    gemv(copies + (size_t)(call % COPIES) * bytes, x, xScales, xSums, y,
         prefetch);
    double time = now() - start;
    if (call >= COPIES && time < cold)
      cold = time;
  }
  for (int call = 0; call < 20; ++call) {
    double start = now();
    gemv(copies, x, xScales, xSums, y, prefetch);
    double time = now() - start;
    if (time < hot)
      hot = time;
  }
  __m512i sum = _mm512_setzero_si512();
  for (int pass = 0; pass < 2 * COPIES; ++pass) {
    const uint8_t *w = copies + (size_t)(pass % COPIES) * bytes;
    double start = now();
    for (size_t i = 0; i < bytes; i += 64)
      sum = _mm512_add_epi32(sum, _mm512_load_si512(w + i));
    double time = now() - start;
    if (pass >= COPIES && time < read)
      read = time;
  }
  int32_t lanes[16];
  _mm512_storeu_si512(lanes, sum);
  printf("tiled int4 x int8 GEMV %dx%d, %.2f MB: cold %.3f ms (%.2f GB/s), "
         "hot %.3f ms; read-only %.3f ms (%.2f GB/s); read ratio %.3f "
         "(prefetch %d; checksum %g %d)\n",
         N, K, bytes / 1e6, cold * 1e3, bytes / cold / 1e9, hot * 1e3,
         read * 1e3, bytes / read / 1e9, read / cold, prefetch, y[5],
         lanes[0] & 1);
  return 0;
}
