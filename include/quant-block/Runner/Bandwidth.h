//===- Bandwidth.h - the host's memory bandwidth, measured now --*- C++ -*-===//
//
// A benchmark of a memory-bound kernel means little without the speed of the
// memory it ran on, measured on the same machine in the same run (other jobs,
// frequency scaling and NUMA placement change it). This is a STREAM-like
// measurement on one thread, because the code quant-run executes runs on one
// thread: copy (b[i] = q * a[i], STREAM's Scale kernel, which moves what
// Copy moves: 2 x bytes) and add-scaled (b[i] = b[i] + q * a[i], 3 x bytes)
// over two buffers of doubles far larger than the last-level cache, timed in
// pieces of a few milliseconds, best of several passes, as STREAM reports.
// quant-run measures just before and just after the timed calls and keeps the
// best of both, so that a machine shared with other jobs is measured in the
// same conditions as the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_BANDWIDTH_H
#define QUANT_BLOCK_RUNNER_BANDWIDTH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>

namespace mlir::quant_block::runner {

struct BandwidthMeasurement {
  /// Size of each of the two buffers.
  uint64_t bufferBytes = 0;
  /// Size of the pieces each pass is timed in.
  uint64_t pieceBytes = 0;
  unsigned repetitions = 0;
  /// Best copy bandwidth, counting bytes read plus bytes written, in GB/s
  /// (10^9 bytes per second).
  double copyGBps = 0;
  /// Best add-scaled ("triad" on two arrays) bandwidth, in GB/s.
  double triadGBps = 0;

  /// Adds the repetitions of `other` (taken with buffers of the same size):
  /// the best figures of both.
  void merge(const BandwidthMeasurement &other);
};

/// Measures the single-thread memory bandwidth with two buffers of
/// `bufferBytes` each, `repetitions` passes over them, each timed in pieces
/// of `pieceBytes`; the fastest piece gives the figures. Fails only when the
/// buffers cannot be allocated.
llvm::Expected<BandwidthMeasurement>
measureMemoryBandwidth(uint64_t bufferBytes, unsigned repetitions,
                       uint64_t pieceBytes = 16 << 20);

/// Runs `body(thread, threads)` once on each of the `threads` threads of a
/// team and returns when all have finished.
using RunOnTeam = llvm::function_ref<void(
    llvm::function_ref<void(unsigned thread, unsigned threads)> body)>;

/// What one read pass took, and what it summed (the 64-bit words of each
/// region, in two's complement, plus its tail bytes one by one).
struct ReadPass {
  double seconds = 0;
  uint64_t sum = 0;
};

/// Times one read-only pass over `regions` (pointer, size) on the
/// team `runOnTeam` starts: each region split between the threads in whole
/// cache lines, as the kernels split their output rows, and summed with the
/// fastest read loop the host runs (64-byte loads and a prefetch into L2
/// 4 KiB ahead on AVX-512 hosts, 32-byte loads on AVX2 ones). The time
/// includes starting and joining the team, as a kernel call's does. The cold
/// benchmark times one pass over a cold copy of the weights after each call.
ReadPass timeReadPass(llvm::ArrayRef<std::pair<const char *, size_t>> regions,
                      RunOnTeam runOnTeam);

/// The size of the last-level cache as Linux reports it
/// (/sys/devices/system/cpu/cpu0/cache/index3/size, e.g. "32768K"), or
/// `fallback` when that file is absent or unreadable.
uint64_t getLastLevelCacheBytes(uint64_t fallback = 32ull << 20);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_BANDWIDTH_H
