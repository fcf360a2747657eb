//===- Benchmark.h - time an entry function and report it -------*- C++ -*-===//
//
// Times repeated calls of a compiled entry function and relates the result
// to the machine: bytes moved per call (inputs read plus outputs written,
// each once) over the best time, against the memory bandwidth measured in
// the same run. A memory-bound kernel (dequantization, matrix-vector
// products with quantized weights) is as fast as it can be when that ratio
// approaches 1.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_BENCHMARK_H
#define QUANT_BLOCK_RUNNER_BENCHMARK_H

#include "quant-block/Runner/Bandwidth.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::quant_block::runner {

/// How a cold benchmark (--benchmark-cold) kept the weights out of the
/// caches: calls rotate over `copies` copies of the weight arguments,
/// `copies * setBytes >= 8 * llcBytes`, and after each call a read-only pass
/// over a cold copy measured the read bandwidth.
struct ColdBenchmark {
  uint64_t llcBytes = 0;
  /// Bytes of one copy of the weight arguments (packed data + scales + zero
  /// points).
  uint64_t setBytes = 0;
  unsigned copies = 0;
  /// Read-only bandwidth of the fastest of the `readPasses` passes (one
  /// after each call, each over a whole copy), in GB/s, measured with
  /// `readThreads` threads (the compiled code's: OMP_NUM_THREADS on the
  /// OpenMP team for code with OpenMP loops, else 1).
  double readGBps = 0;
  unsigned readThreads = 1;
  unsigned readPasses = 0;
  /// The median over the calls of the call's throughput over the bandwidth
  /// of the read pass that followed it.
  double pairedReadRatio = 0;
};

struct BenchmarkReport {
  std::string entry;
  /// Seconds per timed call, in call order.
  std::vector<double> seconds;
  double minSeconds = 0;
  double medianSeconds = 0;
  uint64_t inputBytes = 0;
  uint64_t outputBytes = 0;
  /// Bytes moved per call: inputBytes + outputBytes, or the user's --bytes.
  uint64_t bytes = 0;
  bool bytesOverridden = false;
  /// Whether the compiled code allocated through the caching allocator.
  bool cachingAllocator = false;
  std::optional<BandwidthMeasurement> bandwidth;
  std::optional<ColdBenchmark> cold;

  /// bytes / minSeconds, in GB/s (10^9 bytes per second).
  double getGBps() const;
  /// getGBps() / the measured copy bandwidth; 0 when it was not measured.
  double getRatio() const;
  /// getGBps() / the read-only bandwidth of a cold benchmark; 0 otherwise.
  double getReadRatio() const;
};

/// The median of `values` (the mean of the middle two for an even count; 0
/// for none).
double getMedian(std::vector<double> values);

/// Calls `call` `calls` times, timing each call alone, and `afterCall` after
/// each one outside the timed region (to free its results). The caller has
/// made a warm-up call. Fills `report.seconds`, `minSeconds` and
/// `medianSeconds`.
void timeCalls(BenchmarkReport &report, unsigned calls,
               llvm::function_ref<void()> call,
               llvm::function_ref<void()> afterCall);

/// Prints the report as one block of lines, starting with
/// "quant-run benchmark: @entry".
void printBenchmarkReport(const BenchmarkReport &report, llvm::raw_ostream &os);

/// The report as JSON (times in seconds, sizes in bytes, rates in GB/s).
llvm::json::Value toJSON(const BenchmarkReport &report);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_BENCHMARK_H
