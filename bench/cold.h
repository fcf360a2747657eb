/*===- cold.h - the cold-weight timing of the C benchmark drivers ---------===//
 *
 * What bench/ggml/ggml_gemv.c (the peer) and bench/aot/aot_call.c (our
 * kernels compiled ahead of time) share with `quant-run --benchmark-cold`:
 * how many copies of the weights make the calls stream them from DRAM
 * (8 x the last-level cache), a monotonic clock, and the read-only
 * bandwidth over the copies (a 64-bit integer sum, one thread, the fastest
 * 16 MiB piece counts). Header-only so that each driver stays one `cc`
 * command; nothing here is part of the build.
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

/* Best read-only GB/s of one thread over `count` regions of `bytes` each. */
static double cold_read_bandwidth(char **regions, int count, size_t bytes) {
  double best = 1e30;
  const size_t piece = 16u << 20;
  for (int rep = 0; rep < 2; ++rep)
    for (int r = 0; r < count; ++r)
      for (size_t begin = 0; begin + 4096 <= bytes; begin += piece) {
        size_t end = begin + piece < bytes ? begin + piece : bytes;
        end -= (end - begin) % 8;
        double start = cold_now();
        uint64_t sum = 0;
        for (size_t i = begin; i < end; i += 8) {
          uint64_t word;
          memcpy(&word, regions[r] + i, 8);
          sum += word;
        }
        cold_sink = sum;
        double seconds = (cold_now() - start) / (end - begin);
        if (seconds < best)
          best = seconds;
      }
  return 1.0 / best / 1e9;
}

#endif /* QUANT_BLOCK_BENCH_COLD_H */
