//===- Benchmark.cpp - time an entry function and report it ---------------===//
//
// Each call is timed on its own with a monotonic clock, so that freeing the
// results between calls is not counted. The throughput uses the minimum
// time, as STREAM does for the bandwidth it is compared with; the median is
// reported beside it to show how noisy the machine was.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/Benchmark.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <chrono>

using namespace mlir::quant_block::runner;

double BenchmarkReport::getGBps() const {
  return minSeconds > 0 ? bytes / minSeconds / 1e9 : 0;
}

double BenchmarkReport::getRatio() const {
  if (!bandwidth || bandwidth->copyGBps <= 0)
    return 0;
  return getGBps() / bandwidth->copyGBps;
}

double BenchmarkReport::getReadRatio() const {
  if (!cold || cold->readGBps <= 0)
    return 0;
  return getGBps() / cold->readGBps;
}

double mlir::quant_block::runner::getMedian(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle]
                           : (values[middle - 1] + values[middle]) / 2;
}

void mlir::quant_block::runner::timeCalls(
    BenchmarkReport &report, unsigned calls, llvm::function_ref<void()> call,
    llvm::function_ref<void()> afterCall) {
  report.seconds.clear();
  for (unsigned i = 0; i < calls; ++i) {
    auto start = std::chrono::steady_clock::now();
    call();
    auto end = std::chrono::steady_clock::now();
    report.seconds.push_back(
        std::chrono::duration<double>(end - start).count());
    afterCall();
  }
  if (report.seconds.empty())
    return;
  report.minSeconds =
      *std::min_element(report.seconds.begin(), report.seconds.end());
  report.medianSeconds = getMedian(report.seconds);
}

static std::string formatTime(double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (seconds >= 1)
    os << llvm::format("%.3f s", seconds);
  else if (seconds >= 1e-3)
    os << llvm::format("%.3f ms", seconds * 1e3);
  else
    os << llvm::format("%.3f us", seconds * 1e6);
  return text;
}

static std::string formatBytes(uint64_t bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytes >= 1000 * 1000)
    os << llvm::format("%.2f MB", bytes / 1e6);
  else if (bytes >= 1000)
    os << llvm::format("%.2f kB", bytes / 1e3);
  else
    os << bytes << " B";
  return text;
}

void mlir::quant_block::runner::printBenchmarkReport(
    const BenchmarkReport &report, llvm::raw_ostream &os) {
  os << "quant-run benchmark: @" << report.entry << "\n";
  os << "  calls:            " << report.seconds.size()
     << " timed, after 1 warm-up call\n";
  os << "  time per call:    min " << formatTime(report.minSeconds)
     << ", median " << formatTime(report.medianSeconds) << "\n";
  os << "  bytes moved:      " << formatBytes(report.bytes);
  if (report.bytesOverridden)
    os << " (given with --bytes)\n";
  else if (report.cold)
    os << " (the weight arguments: packed data + scales + zero points)\n";
  else
    os << " (inputs " << formatBytes(report.inputBytes) << " + outputs "
       << formatBytes(report.outputBytes) << ")\n";
  if (report.cold)
    os << "  cold weights:     calls rotate over " << report.cold->copies
       << " copies of " << formatBytes(report.cold->setBytes) << " ("
       << formatBytes(report.cold->copies * report.cold->setBytes)
       << ", >= 8 x the " << formatBytes(report.cold->llcBytes)
       << " last-level cache)\n";
  os << "  allocator:        "
     << (report.cachingAllocator
             ? "caching (blocks freed by a call are reused by the next)"
             : "libc malloc/free (fresh pages for large blocks every call)")
     << "\n";
  os << "  throughput:       " << llvm::format("%.2f", report.getGBps())
     << " GB/s (bytes moved / min time)\n";
  if (report.bandwidth) {
    const BandwidthMeasurement &bw = *report.bandwidth;
    os << "  memory bandwidth: " << llvm::format("%.2f", bw.copyGBps)
       << " GB/s (copy, 1 thread, 2 x " << formatBytes(bw.bufferBytes) << " in "
       << formatBytes(bw.pieceBytes) << " pieces, best of " << bw.repetitions
       << " passes just before and after the calls; "
       << "add-scaled " << llvm::format("%.2f", bw.triadGBps) << " GB/s)\n";
    os << "  ratio:            " << llvm::format("%.3f", report.getRatio())
       << " (throughput / copy bandwidth)\n";
  }
  if (report.cold) {
    os << "  read bandwidth:   " << llvm::format("%.2f", report.cold->readGBps)
       << " GB/s (read-only sum over a cold copy of the weights after each "
          "call, "
       << report.cold->readThreads
       << (report.cold->readThreads == 1 ? " thread" : " threads")
       << ", fastest of " << report.cold->readPasses << ")\n";
    os << "  read ratio:       " << llvm::format("%.3f", report.getReadRatio())
       << " (throughput / read bandwidth; median over the calls of each "
          "call's to the next read's: "
       << llvm::format("%.3f", report.cold->pairedReadRatio) << ")\n";
  }
}

llvm::json::Value
mlir::quant_block::runner::toJSON(const BenchmarkReport &report) {
  llvm::json::Object object{
      {"entry", report.entry},
      {"calls", static_cast<int64_t>(report.seconds.size())},
      {"seconds", llvm::json::Array(report.seconds)},
      {"min_seconds", report.minSeconds},
      {"median_seconds", report.medianSeconds},
      {"input_bytes", static_cast<int64_t>(report.inputBytes)},
      {"output_bytes", static_cast<int64_t>(report.outputBytes)},
      {"bytes", static_cast<int64_t>(report.bytes)},
      {"bytes_overridden", report.bytesOverridden},
      {"allocator", report.cachingAllocator ? "caching" : "libc"},
      {"gbps", report.getGBps()},
  };
  if (report.bandwidth) {
    object["bandwidth"] = llvm::json::Object{
        {"copy_gbps", report.bandwidth->copyGBps},
        {"add_scaled_gbps", report.bandwidth->triadGBps},
        {"buffer_bytes", static_cast<int64_t>(report.bandwidth->bufferBytes)},
        {"piece_bytes", static_cast<int64_t>(report.bandwidth->pieceBytes)},
        {"repetitions", static_cast<int64_t>(report.bandwidth->repetitions)},
        {"threads", 1},
    };
    object["ratio"] = report.getRatio();
  }
  if (report.cold) {
    object["cold"] = llvm::json::Object{
        {"llc_bytes", static_cast<int64_t>(report.cold->llcBytes)},
        {"set_bytes", static_cast<int64_t>(report.cold->setBytes)},
        {"copies", static_cast<int64_t>(report.cold->copies)},
        {"read_gbps", report.cold->readGBps},
        {"threads", report.cold->readThreads},
        {"read_passes", static_cast<int64_t>(report.cold->readPasses)},
        {"paired_read_ratio", report.cold->pairedReadRatio},
    };
    object["read_ratio"] = report.getReadRatio();
  }
  return std::move(object);
}
