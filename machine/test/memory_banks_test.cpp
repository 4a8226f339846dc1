// Memory banks and write rounds (docs/machine.md §5.3): a step commits its memory writes in
// as many positions as the most-loaded bank needs, and the token stream must say so.
#include <gtest/gtest.h>

#include <filesystem>

#include "memory.h"  // machine/src
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine {
namespace {

std::vector<ByteWrite> lanes(uint64_t base, uint64_t stride, uint32_t size) {
  std::vector<ByteWrite> w;
  for (uint32_t l = 0; l < kLanes; ++l) w.push_back({base + l * stride, size, l});
  return w;
}

TEST(MachineBanks, WriteRoundsCountTheBusiestBank) {
  EXPECT_EQ(writeRounds({}), 1u);
  EXPECT_EQ(writeRounds(lanes(0x200, 4, 4)), 1u);    // consecutive words
  EXPECT_EQ(writeRounds(lanes(0x200, 8, 8)), 1u);    // consecutive 64-bit words
  EXPECT_EQ(writeRounds(lanes(0x200, 1, 1)), 1u);    // the four bytes of one word
  EXPECT_EQ(writeRounds(lanes(0x200, 0, 4)), 1u);    // one word from every lane: the last lane's
  EXPECT_EQ(writeRounds(lanes(0x200, 64, 4)), 4u);   // a column: every lane in the same banks
  EXPECT_EQ(writeRounds(lanes(0x200, 128, 2)), 4u);
  EXPECT_EQ(writeRounds(lanes(0x200, 32, 4)), 2u);   // lanes 0 and 2, 1 and 3 collide
  std::vector<ByteWrite> mixed = {{0x200, 4, 0}, {0x240, 4, 1}, {0x204, 4, 2}, {0x200, 4, 3}};
  EXPECT_EQ(writeRounds(mixed), 2u);                 // 0x200 twice is one byte set
}

TEST(MachineBanks, LocalMemoryIsSkewedByLane) {
  // Every thread's private copy of one variable: same address, different bytes.
  EXPECT_EQ(writeRounds(lanes(kLocalWindow + 8, 0, 8)), 1u);
  EXPECT_EQ(writeRounds(lanes(kLocalWindow, 0, 4)), 1u);
  // Lane 1's skew (16) puts local offset 48 into lane 0's banks of offset 0.
  EXPECT_EQ(writeRounds({{kLocalWindow, 4, 0}, {kLocalWindow + 48, 4, 1}}), 2u);
  // The same pattern in shared memory is one set of bytes.
  EXPECT_EQ(writeRounds(lanes(kSharedWindow, 0, 4)), 1u);
}

TEST(MachineBanks, ReplayNeedsOneTokenPerRound) {
  const std::filesystem::path kSource = QGPU_SOURCE_DIR;
  LaunchSpec spec = loadLaunchSpec(kSource / "kernels" / "shfl_patterns");
  MachineProgram mp = lowerKernel(loadProgram(spec.ptxPath("nvcc")), spec.entry);
  MachineLaunch ml = machineLaunch(mp, materializeLaunch(spec));
  MachineResult ex = execute(mp, ml);
  size_t second = ex.trace.meanings.size();
  for (size_t i = 0; i < ex.trace.meanings.size() && second == ex.trace.meanings.size(); ++i)
    if (ex.trace.meanings[i].find("write round 2/") != std::string::npos) second = i;
  ASSERT_LT(second, ex.trace.meanings.size()) << "shfl_patterns stores lane results 32 bytes apart: lanes 0 and 2 share banks";
  ASSERT_EQ(replay(mp, ml, ex.trace.tokens), ex.buffers);
  std::vector<uint32_t> missing = ex.trace.tokens;
  missing.erase(missing.begin() + static_cast<long>(second));
  EXPECT_THROW(replay(mp, ml, missing), Error);
}

}  // namespace
}  // namespace qgpu::machine
