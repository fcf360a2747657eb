/*===- ggml_gemv.c - ggml's quantized mul_mat (Q4_0, Q4_K, MXFP4), cold -===//
 *
 * The peer of bench/linear_int4_g32_f16*.mlir and bench/linear_mxfp4_fast.mlir:
 * ggml_mul_mat of a Q4_0 weight [N, K] (blocks of 32 along K, one f16 scale
 * each: the same 9.44 MB as our int4 group-32 layer with f16 scales at
 * 4096 x 4096) or an MXFP4 weight (E2M1 codes, one E8M0 scale per 32: the
 * same bytes as our MXFP4) or a Q4_K weight (super-blocks of 256: f16 d and
 * dmin, 6-bit scales and mins per 32; bench/linear_q4_k_fast.mlir holds the
 * same values in 9.70 MB against ggml's 9.44) and an f32 activation [M, K],
 * timed
 * the way `quant-run --benchmark-cold` times ours: the calls rotate over
 * copies of the weight totalling 8 x the last-level cache, and after each
 * call a read pass over a cold copy on as many threads measures the read
 * bandwidth (bench/cold.h). The minimum time over the calls counts. ggml
 *quantizes the activation to Q8_0 (Q8_K for Q4_K) inside the call (its Q4_0
 *x Q8_0, Q4_K x Q8_K and MXFP4 x Q8_0 dot products), which is timed too. The
 *type is checked by name (ggml_type_name) against the library, as the enum
 *values are declared here, not included.
 *
 * BUFFER (optional) picks where the weight lives: `plain` (default:
 * ggml_graph_compute_with_ctx on a plain context), or one of the CPU
 * backend's extra buffer types by name, `CPU_REPACK` (the weight repacked
 * into 8-row tiles at load, ggml's repack.cpp) or `AMX` (ggml's AMX layout
 * and kernels, which llama.cpp uses by default on AMX hosts): the weight
 * copies are allocated in that buffer type, filled through
 * ggml_backend_tensor_set (which converts them), and the products run
 * through the CPU backend (ggml_backend_graph_compute). The first product's
 * result is compared with the plain path's, and the largest difference
 * relative to the largest plain output printed, so that a buffer type that
 * silently did not apply shows.
 *
 * No ggml headers: the few functions and the one struct used are declared
 * here as ggml's ggml.h and ggml-cpu.h declare them. bench/ggml/run.sh
 * fetches the prebuilt libraries (npm package @node-llama-cpp/linux-x64)
 * and builds this file against them; nothing here is part of the build or
 * the test suite.
 *
 * usage: ggml_gemv q4_0|q4_K|mxfp4 N K M CALLS THREADS LLC_BYTES [BUFFER]
 *
 *===----------------------------------------------------------------------===*/

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cold.h"

struct ggml_context;
struct ggml_tensor;
struct ggml_cgraph;
struct ggml_init_params {
  size_t mem_size;
  void *mem_buffer;
  bool no_alloc;
};
enum {
  GGML_TYPE_F32 = 0,
  GGML_TYPE_Q4_0 = 2,
  GGML_TYPE_Q4_K = 12,
  GGML_TYPE_MXFP4 = 39
};

struct ggml_context *ggml_init(struct ggml_init_params params);
void ggml_free(struct ggml_context *ctx);
struct ggml_tensor *ggml_new_tensor_2d(struct ggml_context *ctx, int type,
                                       int64_t ne0, int64_t ne1);
struct ggml_tensor *ggml_mul_mat(struct ggml_context *ctx,
                                 struct ggml_tensor *a, struct ggml_tensor *b);
struct ggml_cgraph *ggml_new_graph(struct ggml_context *ctx);
void ggml_build_forward_expand(struct ggml_cgraph *graph,
                               struct ggml_tensor *tensor);
void *ggml_get_data(const struct ggml_tensor *tensor);
size_t ggml_nbytes(const struct ggml_tensor *tensor);
size_t ggml_quantize_chunk(int type, const float *src, void *dst, int64_t start,
                           int64_t nrows, int64_t n_per_row,
                           const float *imatrix);
const char *ggml_type_name(int type);
size_t ggml_row_size(int type, int64_t ne);
void ggml_cpu_init(void);
int ggml_graph_compute_with_ctx(struct ggml_context *ctx,
                                struct ggml_cgraph *graph, int n_threads);

/* The backend API (ggml-backend.h, ggml-cpu.h, ggml-alloc.h). */
typedef struct ggml_backend *ggml_backend_t;
typedef struct ggml_backend_buffer *ggml_backend_buffer_t;
typedef struct ggml_backend_buffer_type *ggml_backend_buffer_type_t;
typedef struct ggml_backend_device *ggml_backend_dev_t;
typedef struct ggml_backend_reg *ggml_backend_reg_t;
typedef ggml_backend_buffer_type_t *(*get_extra_bufts_t)(ggml_backend_dev_t);
ggml_backend_reg_t ggml_backend_cpu_reg(void);
ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg,
                                            size_t index);
void *ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg,
                                        const char *name);
const char *ggml_backend_buft_name(ggml_backend_buffer_type_t buft);
ggml_backend_buffer_t
ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context *ctx,
                                         ggml_backend_buffer_type_t buft);
ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);
void ggml_backend_tensor_set(struct ggml_tensor *tensor, const void *data,
                             size_t offset, size_t size);
void ggml_backend_tensor_get(const struct ggml_tensor *tensor, void *data,
                             size_t offset, size_t size);
ggml_backend_t ggml_backend_cpu_init(void);
void ggml_backend_cpu_set_n_threads(ggml_backend_t backend, int n_threads);
int ggml_backend_graph_compute(ggml_backend_t backend,
                               struct ggml_cgraph *cgraph);
void ggml_backend_free(ggml_backend_t backend);
size_t ggml_tensor_overhead(void);
size_t ggml_graph_overhead(void);
typedef void (*ggml_log_callback)(int level, const char *text, void *user);
void ggml_log_set(ggml_log_callback callback, void *user);

/* ggml's warnings and errors only (its buffer types log every tensor they
 * convert). */
enum { GGML_LOG_LEVEL_WARN = 3, GGML_LOG_LEVEL_ERROR = 4 };
static void log_warnings(int level, const char *text, void *user) {
  (void)user;
  if (level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR)
    fputs(text, stderr);
}

/* The CPU backend's extra buffer type called `name`, or NULL. */
static ggml_backend_buffer_type_t find_extra_buffer_type(const char *name) {
  ggml_backend_reg_t reg = ggml_backend_cpu_reg();
  get_extra_bufts_t get = (get_extra_bufts_t)ggml_backend_reg_get_proc_address(
      reg, "ggml_backend_dev_get_extra_bufts");
  if (!get)
    return NULL;
  for (ggml_backend_buffer_type_t *buft = get(ggml_backend_reg_dev_get(reg, 0));
       buft && *buft; ++buft)
    if (strcmp(ggml_backend_buft_name(*buft), name) == 0)
      return *buft;
  return NULL;
}

/* Where the products run: the CPU backend (a weight in an extra buffer
 * type) or, without one, ggml_graph_compute_with_ctx on `ctx`. */
struct products {
  struct ggml_context *ctx;
  ggml_backend_t backend;
  struct ggml_cgraph **graphs;
  int copies, threads;
};

static void compute_product(const struct products *p, int copy) {
  if (p->backend)
    ggml_backend_graph_compute(p->backend, p->graphs[copy]);
  else
    ggml_graph_compute_with_ctx(p->ctx, p->graphs[copy], p->threads);
}

struct cold_timing {
  double best, gbps, read, paired;
};

/* Warm-up on the last copy, then `calls` products from the first (evicted
 * by cold_evict: the copies were made from it), each followed by a read
 * pass over a cold copy on as many threads (bench/cold.h). `regions` are
 * the copies' first `weightBytes` bytes. */
static struct cold_timing time_cold(const struct products *p, char **regions,
                                    size_t weightBytes, int calls) {
  compute_product(p, p->copies - 1);
  cold_evict(regions, p->copies, weightBytes);
  double *callSeconds = malloc(sizeof(double) * 3 * (size_t)calls);
  double *readSeconds = callSeconds + calls, *ratios = readSeconds + calls;
  double best = 1e30, bestRead = 1e30;
  for (int i = 0; i < calls; ++i) {
    double start = cold_now();
    compute_product(p, i % p->copies);
    callSeconds[i] = cold_now() - start;
    readSeconds[i] = cold_read_pass(regions[cold_read_copy(i, p->copies)],
                                    weightBytes, p->threads);
    if (callSeconds[i] < best)
      best = callSeconds[i];
    if (readSeconds[i] < bestRead)
      bestRead = readSeconds[i];
  }
  struct cold_timing timing = {
      best, weightBytes / best / 1e9, weightBytes / bestRead / 1e9,
      cold_paired_ratio(callSeconds, readSeconds, ratios, calls)};
  free(callSeconds);
  return timing;
}

/* Random weights [n, k] and activations [m, k] (the same for every path). */
static float *random_values(int64_t count, unsigned seed) {
  float *values = malloc(sizeof(float) * count);
  srand(seed);
  for (int64_t i = 0; i < count; ++i)
    values[i] = (float)rand() / RAND_MAX - 0.5f;
  return values;
}

/* The product in the plain path, once, for the check. */
static float *plain_product(int type, const void *weight, size_t weightBytes,
                            const float *x, int64_t n, int64_t k, int64_t m,
                            int threads) {
  struct ggml_init_params params = {
      weightBytes + 4 * (size_t)(k * m + n * m) + (16u << 20), NULL, false};
  struct ggml_context *ctx = ggml_init(params);
  struct ggml_tensor *wq = ggml_new_tensor_2d(ctx, type, k, n);
  memcpy(ggml_get_data(wq), weight, weightBytes);
  struct ggml_tensor *xt = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, m);
  memcpy(ggml_get_data(xt), x, sizeof(float) * k * m);
  struct ggml_tensor *y = ggml_mul_mat(ctx, wq, xt);
  struct ggml_cgraph *graph = ggml_new_graph(ctx);
  ggml_build_forward_expand(graph, y);
  ggml_graph_compute_with_ctx(ctx, graph, threads);
  float *result = malloc(sizeof(float) * n * m);
  memcpy(result, ggml_get_data(y), sizeof(float) * n * m);
  ggml_free(ctx);
  return result;
}

/* The cold timing loop of main, with the weight copies in the CPU backend's
 * extra buffer type `bufferName`. */
static int run_in_buffer_type(const char *bufferName, int type,
                              const char *typeName, int64_t n, int64_t k,
                              int64_t m, int calls, int threads, double llc) {
  ggml_backend_buffer_type_t buft = find_extra_buffer_type(bufferName);
  if (!buft) {
    fprintf(stderr,
            "ggml's CPU backend has no extra buffer type '%s' on this host\n",
            bufferName);
    return 3;
  }
  float *w = random_values(n * k, 1);
  float *xv = random_values(k * m, 2);
  size_t weightBytes = (size_t)n * ggml_row_size(type, k);
  void *quantized = malloc(weightBytes);
  ggml_quantize_chunk(type, w, quantized, 0, n, k, NULL);
  int copies = cold_copies(weightBytes, llc);
  /* Tensors only: the weights in the extra buffer type, the activations and
   * results in a plain CPU buffer, the graphs in a context of their own. */
  size_t overhead = ggml_tensor_overhead() * (size_t)(2 * copies + 4);
  struct ggml_init_params meta = {overhead, NULL, true};
  struct ggml_context *weights = ggml_init(meta);
  struct ggml_context *activations = ggml_init(meta);
  struct ggml_init_params graphParams = {
      (ggml_graph_overhead() + ggml_tensor_overhead()) * (size_t)copies +
          (1u << 20),
      NULL, true};
  struct ggml_context *graphContext = ggml_init(graphParams);
  struct ggml_tensor *x = ggml_new_tensor_2d(activations, GGML_TYPE_F32, k, m);
  struct ggml_tensor **wq = malloc(sizeof(*wq) * copies);
  struct ggml_tensor **ys = malloc(sizeof(*ys) * copies);
  struct ggml_cgraph **graphs = malloc(sizeof(*graphs) * copies);
  char **regions = malloc(sizeof(*regions) * copies);
  for (int c = 0; c < copies; ++c) {
    wq[c] = ggml_new_tensor_2d(weights, type, k, n);
    ys[c] = ggml_mul_mat(activations, wq[c], x);
    graphs[c] = ggml_new_graph(graphContext);
    ggml_build_forward_expand(graphs[c], ys[c]);
  }
  if (!ggml_backend_alloc_ctx_tensors_from_buft(weights, buft) ||
      !ggml_backend_alloc_ctx_tensors_from_buft(
          activations, ggml_backend_cpu_buffer_type())) {
    fprintf(stderr, "could not allocate the %s buffers\n", bufferName);
    return 1;
  }
  for (int c = 0; c < copies; ++c) {
    ggml_backend_tensor_set(wq[c], quantized, 0, weightBytes);
    regions[c] = ggml_get_data(wq[c]);
  }
  ggml_backend_tensor_set(x, xv, 0, sizeof(float) * k * m);
  ggml_backend_t backend = ggml_backend_cpu_init();
  ggml_backend_cpu_set_n_threads(backend, threads);

  /* The check: the first copy's product against the plain path's. */
  ggml_backend_graph_compute(backend, graphs[0]);
  float *got = malloc(sizeof(float) * n * m);
  ggml_backend_tensor_get(ys[0], got, 0, sizeof(float) * n * m);
  float *want =
      plain_product(type, quantized, weightBytes, xv, n, k, m, threads);
  double largest = 0, difference = 0;
  for (int64_t i = 0; i < n * m; ++i) {
    double a = want[i] < 0 ? -want[i] : want[i];
    double d = got[i] - want[i];
    if (a > largest)
      largest = a;
    if ((d < 0 ? -d : d) > difference || d != d)
      difference = d != d ? 1e30 : (d < 0 ? -d : d);
  }

  if (!(difference <= 1e-2 * largest)) {
    fprintf(stderr,
            "ggml %s mul_mat in the %s buffer differs from the plain path "
            "by %.3g (largest |output| %.3g): not timed\n",
            typeName, bufferName, difference, largest);
    return 1;
  }

  /* The same timing as main's (the regions are the converted weights' first
   * bytes, as many as the plain weight has: the read pass and the eviction
   * touch as much memory as a call reads). */
  struct products products = {NULL, backend, graphs, copies, threads};
  struct cold_timing t = time_cold(&products, regions, weightBytes, calls);
  printf("ggml %s mul_mat %lldx%lld, M = %lld, %d thread(s), %s buffer, cold "
         "(%d copies of %.2f MB): min %.3f ms, %.2f GB/s, read %.2f GB/s, read "
         "ratio %.3f, paired %.3f; max |difference| to the plain path %.3g "
         "(largest |output| %.3g)\n",
         typeName, (long long)n, (long long)k, (long long)m, threads,
         bufferName, copies, weightBytes / 1e6, t.best * 1e3, t.gbps, t.read,
         t.gbps / t.read, t.paired, difference, largest);
  ggml_backend_free(backend);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 8 && argc != 9) {
    fprintf(stderr,
            "usage: %s q4_0|q4_K|mxfp4 N K M CALLS THREADS LLC_BYTES "
            "[plain|CPU_REPACK|AMX]\n",
            argv[0]);
    return 2;
  }
  const char *bufferName = argc == 9 ? argv[8] : "plain";
  const char *typeName = argv[1];
  int type = strcmp(typeName, "q4_0") == 0    ? GGML_TYPE_Q4_0
             : strcmp(typeName, "q4_K") == 0  ? GGML_TYPE_Q4_K
             : strcmp(typeName, "mxfp4") == 0 ? GGML_TYPE_MXFP4
                                              : -1;
  if (type < 0) {
    fprintf(stderr, "unknown type '%s' (q4_0, q4_K or mxfp4)\n", typeName);
    return 2;
  }
  /* The enum values are declared above, not included: check them against
   * the library (ggml renumbered nothing so far, but MXFP4 is recent). */
  if (strcmp(ggml_type_name(type), typeName) != 0) {
    fprintf(stderr, "ggml type %d is '%s' in this library, not '%s'\n", type,
            ggml_type_name(type), typeName);
    return 1;
  }
  int64_t n = atoll(argv[2]), k = atoll(argv[3]), m = atoll(argv[4]);
  int calls = atoi(argv[5]), threads = atoi(argv[6]);
  double llc = atof(argv[7]);
  ggml_log_set(log_warnings, NULL);
  ggml_cpu_init();

  if (strcmp(bufferName, "plain") != 0)
    return run_in_buffer_type(bufferName, type, typeName, n, k, m, calls,
                              threads, llc);

  /* One weight, quantized once, copied. */
  float *w = random_values(n * k, 1);
  size_t weightBytes = (size_t)n * ggml_row_size(type, k);
  int copies = cold_copies(weightBytes, llc);
  size_t perCopy = weightBytes + 4 * (size_t)(n * m) + (2u << 20);
  struct ggml_init_params params = {perCopy * (size_t)copies + (64u << 20),
                                    NULL, false};
  struct ggml_context *ctx = ggml_init(params);
  if (!ctx) {
    fprintf(stderr, "ggml_init failed\n");
    return 1;
  }
  struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, m);
  float *xd = ggml_get_data(x);
  float *xv = random_values(k * m, 2);
  memcpy(xd, xv, sizeof(float) * k * m);
  struct ggml_cgraph **graphs = malloc(sizeof(*graphs) * copies);
  char **regions = malloc(sizeof(*regions) * copies);
  for (int c = 0; c < copies; ++c) {
    struct ggml_tensor *wq = ggml_new_tensor_2d(ctx, type, k, n);
    if (ggml_nbytes(wq) != weightBytes) {
      fprintf(stderr, "unexpected %s size %zu\n", typeName, ggml_nbytes(wq));
      return 1;
    }
    regions[c] = ggml_get_data(wq);
    if (c == 0)
      ggml_quantize_chunk(type, w, regions[0], 0, n, k, NULL);
    else
      memcpy(regions[c], regions[0], weightBytes);
    graphs[c] = ggml_new_graph(ctx);
    ggml_build_forward_expand(graphs[c], ggml_mul_mat(ctx, wq, x));
  }

  struct products products = {ctx, NULL, graphs, copies, threads};
  struct cold_timing t = time_cold(&products, regions, weightBytes, calls);
  printf("ggml %s mul_mat %lldx%lld, M = %lld, %d thread(s), cold (%d "
         "copies of %.2f MB): min %.3f ms, %.2f GB/s, read %.2f GB/s, read "
         "ratio %.3f, paired %.3f\n",
         typeName, (long long)n, (long long)k, (long long)m, threads, copies,
         weightBytes / 1e6, t.best * 1e3, t.gbps, t.read, t.gbps / t.read,
         t.paired);
  ggml_free(ctx);
  return 0;
}
