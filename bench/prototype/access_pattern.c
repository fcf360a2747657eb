//===- access_pattern.c - the tiled GEMV's reads without its arithmetic --===//
//
// A measurement, not project code: how close to the read-only bandwidth the
// memory accesses of `linear_int4_g32_f16_i8act_tiled` (4096 x 4096 int4,
// f16 scales per 32, the row-tiled layout of docs/Packing.md) can get
// without any of the kernel's arithmetic, measured the way `quant-run
// --benchmark-cold` measures the compiled kernel: calls rotate over copies
// of the weight far larger than the last-level cache, and after each call a
// read pass over a copy half a rotation on, on the same threads; each
// figure is the fastest of the timed calls.
//
// - read pass: each thread sums its half of the packed data, then its half
//   of the scales (one stream at a time, 64-byte loads, a prefetch into L2
//   4 KiB ahead): lib/Runner/Bandwidth.cpp's loop.
// - kernel pattern: the compiled kernel's order. Threads take contiguous
//   tiles of 16 rows (OpenMP static schedule, as scf.forall lowers to); a
//   K step reads 4 blocks: 1 KiB of the tile's data (32 KiB per tile) and
//   128 bytes of its scales (4 KiB per tile, a second stream), and
//   prefetches into L2 the same bytes of the tile DIST tiles ahead
//   (MatmulKernels.cpp, `prefetchNextTile`); also without the prefetches.
// - WORK adds that many dependent vpdpbusd + vpternlogd pairs per 64-byte
//   line (0: loads only), to see what arithmetic between the loads costs.
//
//   cc -O2 -march=native -fopenmp bench/prototype/access_pattern.c -o /tmp/ap
//   OMP_NUM_THREADS=2 /tmp/ap [WORK, default 0] [DIST, default 1]
//
// Needs AVX512-VNNI (as the kernel it imitates).
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 4096, K = 4096, TILES = N / 16 };
enum { DATA = N * K / 2, SCALES = N * (K / 32) * 2 };
enum { TILE_DATA = DATA / TILES, TILE_SCALES = SCALES / TILES };
enum { STEP_DATA = 16 * 4 * 16, STEP_SCALES = 16 * 4 * 2 };
enum { STEPS = TILE_DATA / STEP_DATA, CALLS = 100 };

static int work, distance = 1;
static volatile long long sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static __m512i sumRange(const char *p, const char *end, __m512i acc) {
  for (; p < end; p += 128) {
    _mm_prefetch(p + 4096, _MM_HINT_T1);
    _mm_prefetch(p + 4096 + 64, _MM_HINT_T1);
    acc = _mm512_add_epi64(acc, _mm512_load_si512(p));
    acc = _mm512_add_epi64(acc, _mm512_load_si512(p + 64));
  }
  return acc;
}

static void readPass(const char *data, const char *scales) {
#pragma omp parallel
  {
    size_t t = omp_get_thread_num(), n = omp_get_num_threads();
    __m512i acc = _mm512_setzero_si512();
    acc = sumRange(data + DATA / n * t, data + DATA / n * (t + 1), acc);
    acc = sumRange(scales + SCALES / n * t, scales + SCALES / n * (t + 1), acc);
    sink += _mm512_reduce_add_epi64(acc);
  }
}

static void kernelPattern(const char *data, const char *scales, int prefetch) {
#pragma omp parallel for schedule(static)
  for (int tile = 0; tile < TILES; ++tile) {
    __m512i acc = _mm512_setzero_si512();
    int ahead = tile + distance < TILES ? tile + distance : TILES - 1;
    for (int step = 0; step < STEPS; ++step) {
      const char *d = data + (size_t)tile * TILE_DATA + step * STEP_DATA;
      const char *s = scales + (size_t)tile * TILE_SCALES + step * STEP_SCALES;
      if (prefetch) {
        const char *nd = data + (size_t)ahead * TILE_DATA + step * STEP_DATA;
        const char *ns =
            scales + (size_t)ahead * TILE_SCALES + step * STEP_SCALES;
        for (int line = 0; line < STEP_DATA; line += 64)
          _mm_prefetch(nd + line, _MM_HINT_T1);
        _mm_prefetch(ns, _MM_HINT_T1);
        _mm_prefetch(ns + 64, _MM_HINT_T1);
      }
      for (int line = 0; line < STEP_DATA; line += 64) {
        __m512i v = _mm512_load_si512(d + line), a = v, c = v;
        for (int w = 0; w < work; ++w) {
          a = _mm512_dpbusd_epi32(a, v, c);
          c = _mm512_ternarylogic_epi64(c, v, a, 0x96);
        }
        acc = _mm512_add_epi64(acc, _mm512_add_epi64(a, c));
      }
      acc = _mm512_add_epi64(acc, _mm512_load_si512(s));
      acc = _mm512_add_epi64(acc, _mm512_load_si512(s + 64));
    }
    sink += _mm512_reduce_add_epi64(acc);
  }
}

int main(int argc, char **argv) {
  work = argc > 1 ? atoi(argv[1]) : 0;
  distance = argc > 2 ? atoi(argv[2]) : 1;
  // 8 x a 300 MiB last-level cache, as quant-run picks on a host with one.
  size_t copies = (8 * (300ull << 20) + DATA + SCALES - 1) / (DATA + SCALES);
  char **data = malloc(copies * sizeof(char *));
  char **scales = malloc(copies * sizeof(char *));
  for (size_t c = 0; c < copies; ++c) {
    data[c] = aligned_alloc(64, DATA);
    scales[c] = aligned_alloc(64, SCALES);
    if (!data[c] || !scales[c])
      return 1;
    memset(data[c], (int)c, DATA);
    memset(scales[c], (int)c, SCALES);
  }
  for (size_t c = 0; c < copies; ++c)
    readPass(data[c], scales[c]);
  double read = 1e9, withPrefetch = 1e9, without = 1e9, hot = 1e9;
  size_t next = 0;
  for (int call = 0; call < CALLS; ++call) {
    double start = now();
    kernelPattern(data[next], scales[next], 1);
    double t = now() - start;
    withPrefetch = t < withPrefetch ? t : withPrefetch;
    next = (next + 1) % copies;
    start = now();
    kernelPattern(data[next], scales[next], 0);
    t = now() - start;
    without = t < without ? t : without;
    next = (next + 1) % copies;
    size_t r = (next + copies / 2) % copies;
    start = now();
    readPass(data[r], scales[r]);
    t = now() - start;
    read = t < read ? t : read;
  }
  for (int call = 0; call < CALLS; ++call) {
    double start = now();
    kernelPattern(data[0], scales[0], 1);
    double t = now() - start;
    hot = t < hot ? t : hot;
  }
  double bytes = DATA + SCALES;
  printf("threads %d, work %d, distance %d: read pass %.1f us (%.2f GB/s); "
         "kernel pattern %.1f us (ratio %.3f), without prefetches %.1f us "
         "(ratio %.3f); hot %.1f us\n",
         omp_get_max_threads(), work, distance, read * 1e6, bytes / read / 1e9,
         withPrefetch * 1e6, read / withPrefetch, without * 1e6, read / without,
         hot * 1e6);
  return 0;
}
