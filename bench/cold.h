/*===- cold.h - the cold-weight timing of the C benchmark drivers ---------===//
 *
 * What bench/ggml/ggml_gemv.c (the peer) and bench/aot/aot_call.c (our
 * kernels compiled ahead of time) share with `quant-run --benchmark-cold`:
 * how many copies of the weights make the calls stream them from DRAM
 * (8 x the last-level cache), a monotonic clock, and the read-only
 * bandwidth over the copies (a 64-bit integer sum, one thread, the fastest
 * 16 MiB piece of the fastest read loop counts). Header-only so that each
 * driver stays one `cc` command; nothing here is part of the build.
 *
 *===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_BENCH_COLD_H
#define QUANT_BLOCK_BENCH_COLD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static double cold_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Copies of `bytes` of weights that total at least 8 x the last-level cache
 * (at least 2), so that each call reads a copy the others evicted. */
static int cold_copies(size_t bytes, double llcBytes) {
  int copies = (int)((8 * llcBytes + bytes - 1) / bytes);
  return copies < 2 ? 2 : copies;
}

static volatile uint64_t cold_sink;

static uint64_t cold_sum_words(const char *begin, const char *end) {
  uint64_t sum = 0;
  for (const char *p = begin; p + 8 <= end; p += 8) {
    uint64_t word;
    memcpy(&word, p, 8);
    sum += word;
  }
  return sum;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The sum with 64-byte loads and a prefetch into L2 4 KiB ahead, as
 * lib/Runner/Bandwidth.cpp measures it: on some hosts one thread reads
 * DRAM 1.5-2x faster so than with 8-byte loads, and the kernels are held to
 * the fastest read loop. */
typedef uint64_t cold_words8 __attribute__((vector_size(64)));
__attribute__((target("avx512f"))) static uint64_t
cold_sum_words_avx512(const char *begin, const char *end) {
  cold_words8 low = {0}, high = {0};
  const char *p = begin;
  for (; p + 128 <= end; p += 128) {
    __builtin_prefetch(p + 4096, 0, 2);
    __builtin_prefetch(p + 4096 + 64, 0, 2);
    cold_words8 first, second;
    memcpy(&first, p, 64);
    memcpy(&second, p + 64, 64);
    low += first;
    high += second;
  }
  uint64_t sum = cold_sum_words(p, end);
  for (int lane = 0; lane < 8; ++lane)
    sum += low[lane] + high[lane];
  return sum;
}
#endif

/* Best read-only GB/s of one thread over `count` regions of `bytes` each:
 * the fastest 16 MiB piece of two passes of each read loop the host runs. */
static double cold_read_bandwidth(char **regions, int count, size_t bytes) {
  uint64_t (*loops[2])(const char *, const char *) = {cold_sum_words, 0};
  int loopCount = 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f"))
    loops[loopCount++] = cold_sum_words_avx512;
#endif
  double best = 1e30;
  const size_t piece = 16u << 20;
  for (int rep = 0; rep < 2; ++rep)
    for (int loop = 0; loop < loopCount; ++loop)
      for (int r = 0; r < count; ++r)
        for (size_t begin = 0; begin + 4096 <= bytes; begin += piece) {
          size_t end = begin + piece < bytes ? begin + piece : bytes;
          end -= (end - begin) % 8;
          double start = cold_now();
          cold_sink = loops[loop](regions[r] + begin, regions[r] + end);
          double seconds = (cold_now() - start) / (end - begin);
          if (seconds < best)
            best = seconds;
        }
  return 1.0 / best / 1e9;
}

#endif /* QUANT_BLOCK_BENCH_COLD_H */
