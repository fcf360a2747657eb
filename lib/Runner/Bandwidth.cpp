//===- Bandwidth.cpp - the host's memory bandwidth, measured now ----------===//
//
// The copy multiplies by a factor the compiler cannot see (it is read through
// a volatile), so that the loop is not turned into a memcpy call: glibc's
// memcpy uses non-temporal stores for large copies, which compiled kernels do
// not, and the comparison would flatter the machine. Both loops vectorize
// with ordinary loads and stores, like the kernels they are compared with.
// The values stay normal doubles: denormal operands would make the loops
// compute-bound on x86.
//
// Each pass is timed in pieces of a few milliseconds, the time scale of the
// kernels quant-run benchmarks, and the fastest piece counts: on a machine
// shared with other jobs, a 50 ms pass is rarely left alone for its whole
// length while a 5 ms kernel call often is, and comparing the kernel's best
// call with the memory's average would make the kernel look faster than
// the memory.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/Bandwidth.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace mlir::quant_block::runner;

namespace {
struct Free {
  void operator()(void *pointer) const { std::free(pointer); }
};
} // namespace

static volatile double copyFactor = 1.0;
static volatile double triadFactor = 0.5;
static volatile double sink;
static volatile uint64_t readSink;

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void BandwidthMeasurement::merge(const BandwidthMeasurement &other) {
  repetitions += other.repetitions;
  copyGBps = std::max(copyGBps, other.copyGBps);
  triadGBps = std::max(triadGBps, other.triadGBps);
}

llvm::Expected<BandwidthMeasurement>
mlir::quant_block::runner::measureMemoryBandwidth(uint64_t bufferBytes,
                                                  unsigned repetitions,
                                                  uint64_t pieceBytes) {
  // Whole cache lines of doubles.
  size_t count = std::max<uint64_t>(bufferBytes / 64, 1) * 8;
  size_t bytes = count * sizeof(double);
  size_t pieceCount =
      std::min<size_t>(std::max<uint64_t>(pieceBytes / 64, 1) * 8, count);
  std::unique_ptr<double, Free> a(
      static_cast<double *>(std::aligned_alloc(64, bytes)));
  std::unique_ptr<double, Free> b(
      static_cast<double *>(std::aligned_alloc(64, bytes)));
  if (!a || !b)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot allocate 2 x " + llvm::Twine(bytes) +
            " bytes to measure the memory bandwidth");

  // Touch every page first so that the timed loops see no page faults.
  double *src = a.get(), *dst = b.get();
  for (size_t i = 0; i < count; ++i) {
    src[i] = 1.0;
    dst[i] = 2.0;
  }

  BandwidthMeasurement result;
  result.bufferBytes = bytes;
  result.pieceBytes = pieceCount * sizeof(double);
  result.repetitions = std::max(repetitions, 1u);
  // Seconds per byte of the fastest piece. Each pass sweeps the whole
  // buffers, so every piece comes from memory, not from the caches.
  double bestCopy = 1e30, bestTriad = 1e30;
  for (unsigned rep = 0; rep < result.repetitions; ++rep) {
    for (size_t begin = 0; begin < count; begin += pieceCount) {
      size_t end = std::min(begin + pieceCount, count);
      double pieceSize = (end - begin) * sizeof(double);
      double q = copyFactor;
      auto start = std::chrono::steady_clock::now();
      for (size_t i = begin; i < end; ++i)
        dst[i] = q * src[i];
      bestCopy = std::min(bestCopy, secondsSince(start) / pieceSize);
    }
    sink = dst[rep % count];
    for (size_t begin = 0; begin < count; begin += pieceCount) {
      size_t end = std::min(begin + pieceCount, count);
      double pieceSize = (end - begin) * sizeof(double);
      double q = triadFactor;
      auto start = std::chrono::steady_clock::now();
      for (size_t i = begin; i < end; ++i)
        dst[i] = dst[i] + q * src[i];
      bestTriad = std::min(bestTriad, secondsSince(start) / pieceSize);
    }
    sink = dst[rep % count];
  }
  result.copyGBps = 2.0 / bestCopy / 1e9;
  result.triadGBps = 3.0 / bestTriad / 1e9;
  return result;
}

/// Sums [begin, end) as 64-bit words (the tail bytes too): an integer sum has
/// no order to keep, so the compiler vectorizes it with ordinary loads (for
/// the baseline ISA: 16-byte loads on x86-64).
static uint64_t sumWords(const char *begin, const char *end) {
  uint64_t sum = 0;
  const char *words = begin + (end - begin) / 8 * 8;
  for (const char *p = begin; p < words; p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    sum += word;
  }
  for (const char *p = words; p < end; ++p)
    sum += static_cast<unsigned char>(*p);
  return sum;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// The same sum with vector loads and a prefetch into L2 4 KiB ahead;
/// inlined into the functions below, which compile it for AVX2 and AVX-512
/// (picked at run time). One thread's read bandwidth depends on how it
/// reads: measured on an Emerald Rapids VM, the 16-byte loop above streamed
/// 9-10 GB/s, this one with 64-byte loads 14-16 GB/s, and the compiled
/// kernels (64-byte loads, prefetches) 10-11 GB/s, more than the read-only
/// bandwidth they were compared with. The fastest loop is the bandwidth a
/// kernel can be held to.
typedef uint64_t Words4 __attribute__((vector_size(32)));
typedef uint64_t Words8 __attribute__((vector_size(64)));

template <typename Vector>
__attribute__((always_inline)) inline uint64_t sumWordsWide(const char *begin,
                                                            const char *end) {
  constexpr size_t Bytes = sizeof(Vector);
  constexpr size_t kStep = 128, kAhead = 4096;
  Vector low = {}, high = {};
  const char *p = begin;
  for (; p + kStep <= end; p += kStep) {
    __builtin_prefetch(p + kAhead, 0, 2);
    __builtin_prefetch(p + kAhead + 64, 0, 2);
    for (size_t offset = 0; offset < kStep; offset += 2 * Bytes) {
      Vector first, second;
      std::memcpy(&first, p + offset, Bytes);
      std::memcpy(&second, p + offset + Bytes, Bytes);
      low += first;
      high += second;
    }
  }
  uint64_t sum = sumWords(p, end);
  for (size_t lane = 0; lane < Bytes / 8; ++lane)
    sum += low[lane] + high[lane];
  return sum;
}

__attribute__((target("avx2"))) static uint64_t sumWordsAVX2(const char *begin,
                                                             const char *end) {
  return sumWordsWide<Words4>(begin, end);
}

__attribute__((target("avx512f"))) static uint64_t
sumWordsAVX512(const char *begin, const char *end) {
  return sumWordsWide<Words8>(begin, end);
}
#endif

using SumFunction = uint64_t (*)(const char *, const char *);

/// The fastest read loop this host runs: the widest vector one, or the
/// baseline one.
static SumFunction getFastestReadLoop() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f"))
    return sumWordsAVX512;
  if (__builtin_cpu_supports("avx2"))
    return sumWordsAVX2;
#endif
  return sumWords;
}

ReadPass mlir::quant_block::runner::timeReadPass(
    llvm::ArrayRef<std::pair<const char *, size_t>> regions,
    RunOnTeam runOnTeam) {
  SumFunction sum = getFastestReadLoop();
  std::atomic<uint64_t> total{0};
  auto start = std::chrono::steady_clock::now();
  runOnTeam([&](unsigned thread, unsigned threads) {
    uint64_t partial = 0;
    for (auto [data, size] : regions) {
      // Whole cache lines per thread (at least one: a region smaller than
      // the team is read by the first thread), the last share shorter.
      size_t share = ((size + threads - 1) / threads + 63) / 64 * 64;
      size_t begin = std::min<size_t>(size, thread * share);
      size_t end = std::min<size_t>(size, begin + share);
      partial += sum(data + begin, data + end);
    }
    total.fetch_add(partial, std::memory_order_relaxed);
  });
  ReadPass pass;
  pass.seconds = secondsSince(start);
  pass.sum = total.load();
  readSink += pass.sum;
  return pass;
}

uint64_t mlir::quant_block::runner::getLastLevelCacheBytes(uint64_t fallback) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileAsStream(
          "/sys/devices/system/cpu/cpu0/cache/index3/size");
  if (!file)
    return fallback;
  llvm::StringRef text = (*file)->getBuffer().trim();
  uint64_t multiplier = 1;
  if (text.consume_back("K"))
    multiplier = 1ull << 10;
  else if (text.consume_back("M"))
    multiplier = 1ull << 20;
  else if (text.consume_back("G"))
    multiplier = 1ull << 30;
  uint64_t value = 0;
  if (text.getAsInteger(10, value) || value == 0)
    return fallback;
  return value * multiplier;
}
