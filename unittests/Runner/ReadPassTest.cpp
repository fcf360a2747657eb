//===- ReadPassTest.cpp - the cold benchmark's read pass ------------------===//
//
// timeReadPass splits each region between the threads of a team in whole
// cache lines: whatever the thread count and the region sizes (odd ones, and
// ones smaller than a line per thread), every byte is read exactly once, so
// the sum it returns is the sum of the regions' 64-bit words plus their tail
// bytes, on the widest read loop the host runs.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/Bandwidth.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>
#include <thread>
#include <vector>

using namespace mlir::quant_block::runner;

namespace {

/// The sum timeReadPass must return: each region's whole 64-bit words, then
/// its last size % 8 bytes one by one.
uint64_t expectedSum(const std::vector<std::vector<char>> &regions) {
  uint64_t sum = 0;
  for (const std::vector<char> &region : regions) {
    size_t words = region.size() / 8;
    for (size_t i = 0; i < words; ++i) {
      uint64_t word;
      std::memcpy(&word, region.data() + 8 * i, 8);
      sum += word;
    }
    for (size_t i = 8 * words; i < region.size(); ++i)
      sum += static_cast<unsigned char>(region[i]);
  }
  return sum;
}

TEST(ReadPass, ReadsEveryByteOnceOnAnyTeam) {
  std::mt19937_64 random(7);
  std::vector<std::vector<char>> regions;
  for (size_t size : {size_t(1) << 20, (size_t(1) << 16) + 5, size_t(4096),
                      size_t(200), size_t(3)}) {
    std::vector<char> region(size);
    for (char &byte : region)
      byte = static_cast<char>(random());
    regions.push_back(std::move(region));
  }
  std::vector<std::pair<const char *, size_t>> pointers;
  for (const std::vector<char> &region : regions)
    pointers.emplace_back(region.data(), region.size());
  uint64_t expected = expectedSum(regions);

  for (unsigned threads : {1u, 2u, 3u, 5u}) {
    std::vector<unsigned> calls(threads, 0);
    ReadPass pass = timeReadPass(
        pointers, [&](llvm::function_ref<void(unsigned, unsigned)> body) {
          std::vector<std::thread> team;
          for (unsigned thread = 0; thread < threads; ++thread)
            team.emplace_back([&, thread] {
              ++calls[thread];
              body(thread, threads);
            });
          for (std::thread &member : team)
            member.join();
        });
    EXPECT_EQ(pass.sum, expected) << threads << " threads";
    EXPECT_GT(pass.seconds, 0) << threads << " threads";
    EXPECT_EQ(calls, std::vector<unsigned>(threads, 1u));
  }
}

} // namespace
