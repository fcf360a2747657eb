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
 * This is the plain path of ggml_graph_compute_with_ctx (no repacking into
 * 8-row tiles: that needs the CPU backend's extra buffer types).
 *
 * No ggml headers: the few functions and the one struct used are declared
 * here as ggml's ggml.h and ggml-cpu.h declare them. bench/ggml/run.sh
 * fetches the prebuilt libraries (npm package @node-llama-cpp/linux-x64)
 * and builds this file against them; nothing here is part of the build or
 * the test suite.
 *
 * usage: ggml_gemv q4_0|q4_K|mxfp4 N K M CALLS THREADS LLC_BYTES
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

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s q4_0|q4_K|mxfp4 N K M CALLS THREADS LLC_BYTES\n",
            argv[0]);
    return 2;
  }
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
  ggml_cpu_init();

  /* One weight, quantized once, copied. */
  float *w = malloc(sizeof(float) * n * k);
  srand(1);
  for (int64_t i = 0; i < n * k; ++i)
    w[i] = (float)rand() / RAND_MAX - 0.5f;
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
  for (int64_t i = 0; i < k * m; ++i)
    xd[i] = (float)rand() / RAND_MAX - 0.5f;
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

  /* Warm-up on the last copy, then the calls from the first (evicted by
   * cold_evict: the copies were made from it), each followed by a read pass
   * over a cold copy on as many threads (bench/cold.h). */
  ggml_graph_compute_with_ctx(ctx, graphs[copies - 1], threads);
  cold_evict(regions, copies, weightBytes);
  double *callSeconds = malloc(sizeof(double) * 3 * (size_t)calls);
  double *readSeconds = callSeconds + calls, *ratios = readSeconds + calls;
  double best = 1e30, bestRead = 1e30;
  for (int i = 0; i < calls; ++i) {
    double start = cold_now();
    ggml_graph_compute_with_ctx(ctx, graphs[i % copies], threads);
    callSeconds[i] = cold_now() - start;
    readSeconds[i] = cold_read_pass(regions[cold_read_copy(i, copies)],
                                    weightBytes, threads);
    if (callSeconds[i] < best)
      best = callSeconds[i];
    if (readSeconds[i] < bestRead)
      bestRead = readSeconds[i];
  }
  double gbps = weightBytes / best / 1e9, read = weightBytes / bestRead / 1e9;
  printf("ggml %s mul_mat %lldx%lld, M = %lld, %d thread(s), cold (%d "
         "copies of %.2f MB): min %.3f ms, %.2f GB/s, read %.2f GB/s, read "
         "ratio %.3f, paired %.3f\n",
         typeName, (long long)n, (long long)k, (long long)m, threads, copies,
         weightBytes / 1e6, best * 1e3, gbps, read, gbps / read,
         cold_paired_ratio(callSeconds, readSeconds, ratios, calls));
  free(callSeconds);
  ggml_free(ctx);
  return 0;
}
