// A hand-written CUDA prototype of the int4 (block 32, f16 scales) GEMV with
// f32 activations, written to find out what --quant-block-gpu-matmul-kernels
// should generate: not project code, and not built by CMake.
//
// The variants with 4-word chunks keep the warp kernels' documented order
// (docs/Numerics.md, "The GPU kernels' order"): lane l of a row's warp sums,
// from +0.0, the products fl(x * fl(q * s)) of its chunks l, l + 32, ... (a
// chunk is 4 words, 32 codes, one block), each product and sum rounded; then
// the xor butterfly, so variants with the same chunk width print the same
// checksum bits. What varies: ROWS weight rows per warp (each activation chunk
// loaded once for all of them), WARPS per block, how a nibble becomes a float
// (CONV 0: cvt; 1: the exponent trick, an integer op and an add), and in
// `gemvv` the chunk width V (1, 2 or 4 words: a different order, so other
// bits), activations staged in shared memory (SMEM) and U chunks' weights
// loaded before any is summed.
//
//   nvcc -O3 -arch=sm_90 -o gemv_int4 gemv_int4.cu && ./gemv_int4
//
// Times: the median of 5 runs of 100 back-to-back launches (cudaEvents),
// "cold" rotating over copies of the weight totalling > 2x the L2 cache,
// "hot" on one copy; GB/s = (packed data + scales) / time, against a
// device-to-device copy (2 x bytes / time) of 1 GiB.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

template <int CONV>
__device__ __forceinline__ float nibble(uint32_t word, int i) {
  if (CONV == 0) {
    int q = (int)(word << (28 - 4 * i)) >> 28;
    return (float)q;
  }
  // 2^23 + (nibble ^ 8) - (2^23 + 8): exact.
  uint32_t u = ((word >> (4 * i)) & 0xF) ^ 0x8;
  return __fsub_rn(__uint_as_float(0x4B000000u | u), 8388616.0f);
}

/// Adds the products of the 8 codes of `word` (scale `s`) and the activations
/// `lo`, `hi` to `acc`, each product and sum rounded, codes in order.
template <int CONV>
__device__ __forceinline__ float sumWord(float acc, uint32_t word, float s,
                                         float4 lo, float4 hi) {
  float xs[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
  for (int i = 0; i < 8; ++i)
    acc = __fadd_rn(acc, __fmul_rn(xs[i], __fmul_rn(nibble<CONV>(word, i), s)));
  return acc;
}

/// The xor butterfly of each row's 32 lane sums; lane 0 stores the rows in
/// range.
template <int ROWS>
__device__ __forceinline__ void storeRows(float (&acc)[ROWS], int lane,
                                          int row0, int n, float *y) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    float v = acc[r];
    for (int o = 16; o > 0; o >>= 1)
      v = __fadd_rn(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0 && row0 + r < n)
      y[row0 + r] = v;
  }
}

template <int ROWS, int WARPS, int CONV>
__global__ void __launch_bounds__(WARPS * 32)
    gemv(const uint4 *__restrict__ data, const __half *__restrict__ scales,
         const float4 *__restrict__ x, float *__restrict__ y, int n, int k) {
  int lane = threadIdx.x & 31;
  int row0 = (blockIdx.x * WARPS + (threadIdx.x >> 5)) * ROWS;
  int chunks = k / 32; // one chunk = 4 words = 32 codes = one block
  float acc[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    acc[r] = 0.0f;
  for (int c = lane; c < chunks; c += 32) {
    uint4 w[ROWS];
    float s[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      int row = min(row0 + r, n - 1);
      w[r] = data[(size_t)row * chunks + c];
      s[r] = __half2float(scales[(size_t)row * chunks + c]);
    }
    float4 xv[8];
#pragma unroll
    for (int j = 0; j < 8; ++j)
      xv[j] = x[c * 8 + j];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      uint32_t words[4] = {w[r].x, w[r].y, w[r].z, w[r].w};
#pragma unroll
      for (int j = 0; j < 4; ++j)
        acc[r] =
            sumWord<CONV>(acc[r], words[j], s[r], xv[2 * j], xv[2 * j + 1]);
    }
  }
  storeRows(acc, lane, row0, n, y);
}

// Chunks of V words (V = 1, 2 or 4): lane l reads chunks l, l + 32, ...
// With V = 1 or 2 a warp's activation loads are contiguous (coalesced);
// with V = 4 each lane reads its own 128 bytes, lanes 128 bytes apart.
template <int V> struct Words;
template <> struct Words<1> { using T = uint32_t; };
template <> struct Words<2> { using T = uint2; };
template <> struct Words<4> { using T = uint4; };
__device__ __forceinline__ uint32_t word(uint32_t w, int) { return w; }
__device__ __forceinline__ uint32_t word(uint2 w, int j) {
  return j ? w.y : w.x;
}
__device__ __forceinline__ uint32_t word(uint4 w, int j) {
  return j == 0 ? w.x : j == 1 ? w.y : j == 2 ? w.z : w.w;
}

template <int ROWS, int WARPS, int V, bool SMEM, int U = 1>
__global__ void __launch_bounds__(WARPS * 32)
    gemvv(const uint32_t *__restrict__ data, const __half *__restrict__ scales,
          const float4 *__restrict__ x, float *__restrict__ y, int n, int k) {
  using W = typename Words<V>::T;
  extern __shared__ float4 xsh[];
  int lane = threadIdx.x & 31;
  int wordsPerRow = k / 8;
  int chunks = wordsPerRow / V;
  if (SMEM) {
    // Chunk c's 2V float4 at c * (2V + 1): lanes of a quarter warp hit
    // different banks.
    for (int i = threadIdx.x; i < k / 4; i += blockDim.x)
      xsh[(i / (2 * V)) * (2 * V + 1) + i % (2 * V)] = x[i];
    __syncthreads();
  }
  int groups = (n + ROWS * WARPS - 1) / (ROWS * WARPS);
  for (int g = blockIdx.x; g < groups; g += gridDim.x) {
    int row0 = (g * WARPS + (threadIdx.x >> 5)) * ROWS;
    float acc[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      acc[r] = 0.0f;
    // U chunks per step: all their weights and scales are loaded first
    // (more bytes in flight per warp), then summed in chunk order.
    for (int c0 = lane; c0 < chunks; c0 += 32 * U) {
      W w[U][ROWS];
      float s[U][ROWS];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        int c = min(c0 + 32 * u, chunks - 1);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
          int row = min(row0 + r, n - 1);
          w[u][r] =
              reinterpret_cast<const W *>(data + (size_t)row * wordsPerRow)[c];
          s[u][r] = __half2float(scales[(size_t)row * (k / 32) + c * V / 4]);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        int c = c0 + 32 * u;
        if (c >= chunks)
          break;
        float4 xv[2 * V];
#pragma unroll
        for (int j = 0; j < 2 * V; ++j)
          xv[j] = SMEM ? xsh[c * (2 * V + 1) + j] : x[c * 2 * V + j];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
#pragma unroll
          for (int j = 0; j < V; ++j)
            acc[r] = sumWord<1>(acc[r], word(w[u][r], j), s[u][r], xv[2 * j],
                                xv[2 * j + 1]);
        }
      }
    }
    storeRows(acc, lane, row0, n, y);
  }
}

struct Case {
  int n, k;
};

template <typename Launch>
void time(const char *name, Case cs, std::vector<uint4 *> &data,
          std::vector<__half *> &scales, float4 *x, float *y, double copyGBs,
          Launch launch) {
  double bytes = (double)cs.n * cs.k / 2 + (double)cs.n * cs.k / 32 * 2;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float times[2];
  for (int cold = 0; cold < 2; ++cold) {
    std::vector<float> runs;
    for (int rep = 0; rep < 6; ++rep) {
      CHECK(cudaEventRecord(a));
      for (int i = 0; i < 100; ++i) {
        size_t copy = cold ? (size_t)(rep * 100 + i) % data.size() : 0;
        launch(data[copy], scales[copy]);
      }
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      if (rep > 0)
        runs.push_back(ms * 10.0f); // us per call
    }
    std::sort(runs.begin(), runs.end());
    times[cold] = runs[runs.size() / 2];
  }
  CHECK(cudaGetLastError());
  std::vector<float> host(cs.n);
  CHECK(cudaMemcpy(host.data(), y, cs.n * 4, cudaMemcpyDeviceToHost));
  uint32_t sum = 0;
  for (int i = 0; i < cs.n; ++i) {
    uint32_t u;
    std::memcpy(&u, &host[i], 4);
    sum = sum * 31 + u;
  }
  double coldGBs = bytes / (times[1] * 1e3);
  std::printf("%-22s %5dx%d  hot %7.2f us  cold %7.2f us  %6.0f GB/s  "
              "ratio %.3f  bits %08x\n",
              name, cs.n, cs.k, times[0], times[1], coldGBs, coldGBs / copyGBs,
              sum);
}

template <int ROWS, int WARPS, int CONV>
void run(const char *name, Case cs, std::vector<uint4 *> &data,
         std::vector<__half *> &scales, float4 *x, float *y, double copyGBs) {
  int grid = (cs.n + ROWS * WARPS - 1) / (ROWS * WARPS);
  time(name, cs, data, scales, x, y, copyGBs, [&](uint4 *d, __half *s) {
    gemv<ROWS, WARPS, CONV><<<grid, WARPS * 32>>>(d, s, x, y, cs.n, cs.k);
  });
}

template <int ROWS, int WARPS, int V, bool SMEM, int U = 1>
void runv(const char *name, Case cs, std::vector<uint4 *> &data,
          std::vector<__half *> &scales, float4 *x, float *y, double copyGBs,
          int maxGrid = 1 << 30) {
  int grid = std::min((cs.n + ROWS * WARPS - 1) / (ROWS * WARPS), maxGrid);
  size_t smem = SMEM ? (size_t)(cs.k / (8 * V)) * (2 * V + 1) * 16 : 0;
  if (smem > 48 * 1024)
    CHECK(cudaFuncSetAttribute(gemvv<ROWS, WARPS, V, SMEM, U>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)smem));
  time(name, cs, data, scales, x, y, copyGBs, [&](uint4 *d, __half *s) {
    gemvv<ROWS, WARPS, V, SMEM, U>
        <<<grid, WARPS * 32, smem>>>((const uint32_t *)d, s, x, y, cs.n, cs.k);
  });
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  size_t copyBytes = 1ull << 30;
  void *src, *dst;
  CHECK(cudaMalloc(&src, copyBytes));
  CHECK(cudaMalloc(&dst, copyBytes));
  CHECK(cudaMemset(src, 1, copyBytes));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float best = 1e9;
  for (int i = 0; i < 10; ++i) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpy(dst, src, copyBytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms);
  }
  double copyGBs = 2.0 * copyBytes / (best * 1e6);
  std::printf("copy: %.0f GB/s (read + write)\n", copyGBs);
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));

  for (Case cs : {Case{4096, 4096}, Case{11008, 4096}}) {
    size_t dataBytes = (size_t)cs.n * cs.k / 2;
    size_t scaleCount = (size_t)cs.n * cs.k / 32;
    int copies = (int)std::max<size_t>(
        2, (2 * (size_t)prop.l2CacheSize) / dataBytes + 2);
    std::vector<uint4 *> data(copies);
    std::vector<__half *> scales(copies);
    std::vector<uint8_t> hostData(dataBytes);
    std::vector<__half> hostScales(scaleCount);
    uint32_t seed = 12345;
    for (auto &v : hostData)
      v = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    for (auto &v : hostScales)
      v = __float2half(((seed = seed * 1664525u + 1013904223u) >> 28) / 64.0f +
                       0.01f);
    for (int i = 0; i < copies; ++i) {
      CHECK(cudaMalloc(&data[i], dataBytes));
      CHECK(cudaMalloc(&scales[i], scaleCount * 2));
      CHECK(cudaMemcpy(data[i], hostData.data(), dataBytes,
                       cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(scales[i], hostScales.data(), scaleCount * 2,
                       cudaMemcpyHostToDevice));
    }
    std::vector<float> hostX(cs.k);
    for (auto &v : hostX)
      v = (int)((seed = seed * 1664525u + 1013904223u) >> 20) / 4096.0f -
          512.0f;
    float4 *x;
    float *y;
    CHECK(cudaMalloc(&x, cs.k * 4));
    CHECK(cudaMalloc(&y, cs.n * 4));
    CHECK(cudaMemcpy(x, hostX.data(), cs.k * 4, cudaMemcpyHostToDevice));
    std::printf("weights: %d copies of %.2f MB\n", copies,
                (dataBytes + scaleCount * 2) / 1e6);
    run<1, 2, 0>("today: r1 w2 V4", cs, data, scales, x, y, copyGBs);
    run<4, 2, 1>("r4 w2 V4", cs, data, scales, x, y, copyGBs);
    runv<1, 2, 1, false>("r1 w2 V1", cs, data, scales, x, y, copyGBs);
    runv<1, 2, 1, false, 4>("r1 w2 V1 U4", cs, data, scales, x, y, copyGBs);
    runv<1, 2, 1, false, 8>("r1 w2 V1 U8", cs, data, scales, x, y, copyGBs);
    runv<1, 4, 1, false, 4>("r1 w4 V1 U4", cs, data, scales, x, y, copyGBs);
    runv<2, 2, 1, false, 4>("r2 w2 V1 U4", cs, data, scales, x, y, copyGBs);
    runv<2, 2, 2, false>("r2 w2 V2", cs, data, scales, x, y, copyGBs);
    runv<1, 2, 2, false, 4>("r1 w2 V2 U4", cs, data, scales, x, y, copyGBs);
    runv<2, 2, 2, false, 4>("r2 w2 V2 U4", cs, data, scales, x, y, copyGBs);
    runv<1, 2, 4, false, 4>("r1 w2 V4 U4", cs, data, scales, x, y, copyGBs);
    runv<2, 8, 4, true>("smem r2 w8 V4", cs, data, scales, x, y, copyGBs, 264);
    runv<1, 8, 4, true, 4>("smem r1 w8 V4 U4", cs, data, scales, x, y, copyGBs,
                           264);
    runv<2, 8, 4, true, 4>("smem r2 w8 V4 U4", cs, data, scales, x, y, copyGBs,
                           264);
    runv<1, 4, 4, true, 4>("smem r1 w4 V4 U4", cs, data, scales, x, y, copyGBs,
                           528);
    runv<1, 8, 4, true, 2>("smem r1 w8 V4 U2", cs, data, scales, x, y, copyGBs,
                           264);
    runv<1, 8, 4, true, 4>("smem r1 w8 V4 U4 g1k", cs, data, scales, x, y,
                           copyGBs, 1056);
    runv<1, 16, 4, true, 4>("smem r1 w16 V4 U4", cs, data, scales, x, y,
                            copyGBs, 132);
    for (int i = 0; i < copies; ++i) {
      CHECK(cudaFree(data[i]));
      CHECK(cudaFree(scales[i]));
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  return 0;
}
