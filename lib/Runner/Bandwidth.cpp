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
#include <thread>
#include <vector>

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

/// The read loops to measure: the baseline one, and the widest this host
/// runs.
static llvm::SmallVector<SumFunction, 2> getReadLoops() {
  llvm::SmallVector<SumFunction, 2> loops = {sumWords};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f"))
    loops.push_back(sumWordsAVX512);
  else if (__builtin_cpu_supports("avx2"))
    loops.push_back(sumWordsAVX2);
#endif
  return loops;
}

namespace {
/// Lets `threads` threads start each piece together: a generation counter
/// that the last thread to arrive advances (they spin; the pieces last
/// milliseconds).
class SpinBarrier {
public:
  explicit SpinBarrier(unsigned threads) : threads(threads) {}
  void wait() {
    unsigned generation = this->generation.load();
    if (arrived.fetch_add(1) + 1 == threads) {
      arrived.store(0);
      this->generation.fetch_add(1);
      return;
    }
    while (this->generation.load() == generation)
      std::this_thread::yield();
  }

private:
  const unsigned threads;
  std::atomic<unsigned> arrived{0};
  std::atomic<unsigned> generation{0};
};
} // namespace

double mlir::quant_block::runner::measureReadBandwidth(
    llvm::ArrayRef<std::pair<const char *, size_t>> regions,
    unsigned repetitions, uint64_t pieceBytes, unsigned threads) {
  pieceBytes = std::max<uint64_t>(pieceBytes, 64);
  threads = std::max(threads, 1u);
  // Every piece, in order: each thread sums its share of it, and the piece
  // is timed from the barrier all threads leave to the one they all reach.
  // Each loop in passes of its own: a pass over all regions evicts the
  // caches for the next.
  struct Piece {
    const char *data;
    size_t size;
    SumFunction sum;
  };
  std::vector<Piece> pieces;
  llvm::SmallVector<SumFunction, 2> loops = getReadLoops();
  for (unsigned rep = 0; rep < std::max(repetitions, 1u); ++rep)
    for (SumFunction sum : loops)
      for (auto [data, size] : regions)
        for (size_t begin = 0; begin < size; begin += pieceBytes)
          pieces.push_back(
              {data + begin, std::min<size_t>(pieceBytes, size - begin), sum});
  SpinBarrier barrier(threads);
  std::vector<uint64_t> sums(threads);
  // Thread `thread`'s share of a piece: whole cache lines, the last share
  // shorter.
  auto sumShare = [&](unsigned thread, const Piece &piece) {
    size_t share = (piece.size / threads + 63) / 64 * 64;
    size_t begin = std::min<size_t>(piece.size, thread * share);
    size_t end = std::min<size_t>(piece.size, begin + share);
    sums[thread] += piece.sum(piece.data + begin, piece.data + end);
  };
  auto work = [&](unsigned thread) {
    for (const Piece &piece : pieces) {
      barrier.wait();
      sumShare(thread, piece);
      barrier.wait();
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned thread = 1; thread < threads; ++thread)
    helpers.emplace_back(work, thread);
  double best = 1e30;
  for (const Piece &piece : pieces) {
    barrier.wait();
    auto start = std::chrono::steady_clock::now();
    sumShare(0, piece);
    barrier.wait();
    double seconds = secondsSince(start);
    // Pieces too small to time say nothing about the memory.
    if (piece.size >= 4096)
      best = std::min(best, seconds / piece.size);
  }
  for (std::thread &helper : helpers)
    helper.join();
  for (uint64_t sum : sums)
    readSink += sum;
  return best < 1e30 ? 1.0 / best / 1e9 : 0;
}

unsigned mlir::quant_block::runner::getOpenMPThreadCount() {
  if (const char *value = std::getenv("OMP_NUM_THREADS")) {
    unsigned count = 0;
    if (!llvm::StringRef(value).split(',').first.trim().getAsInteger(10,
                                                                     count) &&
        count > 0)
      return count;
  }
  return std::max(std::thread::hardware_concurrency(), 1u);
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
