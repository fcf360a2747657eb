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

#include "llvm/Support/Error.h"

#include <cstdint>

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

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_BANDWIDTH_H
