/*===- cold.h - the cold-weight timing of the C benchmark drivers ---------===//
 *
 * What bench/ggml/ggml_gemv.c (the peer) and bench/aot/aot_call.c (our
 * kernels compiled ahead of time) share with `quant-run --benchmark-cold`:
 * how many copies of the weights make the calls stream them from DRAM
 * (8 x the last-level cache), a monotonic clock, and the read pass that
 * follows each call: a read-only sum (64-bit words, the fastest read loop
 * the host runs) over a copy of the weights half a rotation away, each
 * thread of the team reading a contiguous share of whole cache lines; the
 * fastest pass is the read bandwidth, and the median over the calls of each
 * call's ratio to the pass after it the paired read ratio. Header-only so
 * that each driver stays one `cc` command; nothing here is part of the
 * build.
 *
 *===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_BENCH_COLD_H
#define QUANT_BLOCK_BENCH_COLD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cold_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Copies of `bytes` of weights that total at least 8 x the last-level cache
 * (at least 4), so that each call reads a copy the others evicted, and the
 * copy read after a call (cold_read_copy) is neither the next call's nor
 * one a call will read soon. */
static int cold_copies(size_t bytes, double llcBytes) {
  int copies = (int)((8 * llcBytes + bytes - 1) / bytes);
  return copies < 4 ? 4 : copies;
}

/* The copy to read after call `call` (which read copy call % copies). */
static int cold_read_copy(int call, int copies) {
  return (call + 1 + copies / 2) % copies;
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

typedef uint64_t (*cold_sum_function)(const char *, const char *);

/* The fastest read loop this host runs. */
static cold_sum_function cold_read_loop(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f"))
    return cold_sum_words_avx512;
#endif
  return cold_sum_words;
}

/* Before the calls: reads the second half of the copies, so that the first
 * calls' copies are out of the caches whatever the setup touched last (the
 * ggml driver copies its first copy into every other). */
static void cold_evict(char **regions, int copies, size_t bytes) {
  for (int c = copies / 2; c < copies; ++c)
    cold_sink += cold_read_loop()(regions[c], regions[c] + bytes);
}

/* Thread `thread` of `threads`' share of `bytes` at `region`: whole cache
 * lines, at least one, the last share shorter. */
static uint64_t cold_sum_share(const char *region, size_t bytes, int thread,
                               int threads) {
  size_t share = ((bytes + threads - 1) / threads + 63) / 64 * 64;
  size_t begin =
      (size_t)thread * share < bytes ? (size_t)thread * share : bytes;
  size_t end = begin + share < bytes ? begin + share : bytes;
  return cold_read_loop()(region + begin, region + end);
}

struct cold_pass {
  const char *region;
  size_t bytes;
  int threads;
  atomic_int arrived, started, finished;
  _Atomic uint64_t sum;
  double start, seconds;
};

static void *cold_pass_thread(void *opaque) {
  struct cold_pass *pass = opaque;
  int thread = atomic_fetch_add(&pass->arrived, 1);
  /* Start together: the last to arrive starts the clock. */
  if (thread == pass->threads - 1) {
    pass->start = cold_now();
    atomic_store(&pass->started, 1);
  }
  while (!atomic_load(&pass->started))
    ;
  atomic_fetch_add(&pass->sum, cold_sum_share(pass->region, pass->bytes, thread,
                                              pass->threads));
  if (atomic_fetch_add(&pass->finished, 1) == pass->threads - 1)
    pass->seconds = cold_now() - pass->start;
  return NULL;
}

/* Seconds one read pass over `bytes` at `region` takes on `threads`
 * threads, started before the clock starts and joined after it stops (for
 * peers with threads of their own: the AOT driver reads on the kernels'
 * OpenMP team instead). */
static double cold_read_pass(const char *region, size_t bytes, int threads) {
  if (threads <= 1) {
    double start = cold_now();
    cold_sink += cold_read_loop()(region, region + bytes);
    return cold_now() - start;
  }
  struct cold_pass pass = {region, bytes, threads, 0, 0, 0, 0, 0, 0};
  pthread_t *team = malloc(sizeof(pthread_t) * (size_t)threads);
  for (int t = 0; t < threads; ++t)
    pthread_create(&team[t], NULL, cold_pass_thread, &pass);
  for (int t = 0; t < threads; ++t)
    pthread_join(team[t], NULL);
  free(team);
  cold_sink += atomic_load(&pass.sum);
  return pass.seconds;
}

static int cold_compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The calls' paired read ratio: the median over i of
 * readSeconds[i] / callSeconds[i] (sorts `ratios`, `count` entries). */
static double cold_paired_ratio(const double *callSeconds,
                                const double *readSeconds, double *ratios,
                                int count) {
  if (count <= 0)
    return 0;
  for (int i = 0; i < count; ++i)
    ratios[i] = readSeconds[i] / callSeconds[i];
  qsort(ratios, (size_t)count, sizeof(double), cold_compare);
  return count % 2 ? ratios[count / 2]
                   : (ratios[count / 2 - 1] + ratios[count / 2]) / 2;
}

#endif /* QUANT_BLOCK_BENCH_COLD_H */
