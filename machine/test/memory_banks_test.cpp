// Memory banks and write rounds (docs/machine.md §5.3): a step commits its memory writes in
// as many positions as the most-loaded bank needs, and the token stream must say so.
#include <gtest/gtest.h>

#include <filesystem>

#include "machine_test_util.h"
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
  for (uint32_t l = 0; l < kLanes; ++l) w.push_back({base + l * stride, size});
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
  std::vector<ByteWrite> mixed = {{0x200, 4}, {0x240, 4}, {0x204, 4}, {0x200, 4}};
  EXPECT_EQ(writeRounds(mixed), 2u);                 // 0x200 twice is one byte set
}

TEST(MachineBanks, LocalStoresNeverCollide) {
  // Every thread's private copy of one variable: st.local from all lanes, one DONE.
  const char* ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.local .align 8 .b8 	lm[256];
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 64;
	mov.u64 	%rd4, lm;
	add.s64 	%rd5, %rd4, %rd3;
	st.local.u32 	[%rd5], %r1;
	ld.local.u32 	%r2, [%rd5];
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.u32 	[%rd5], %r2;
	ret;
}
)";
  test::BothResult r = test::runBoth(ptx, "k", test::oneBufferLaunch(4, 4));
  EXPECT_EQ(r.machine, r.oracle);
  for (const std::string& m : r.trace.meanings) EXPECT_EQ(m.find("write round"), std::string::npos) << m;
}

// shfl_patterns stores lane results 32 bytes apart: lanes 0 and 2 share banks.
TEST(MachineBanks, ReplayNeedsOneTokenPerRound) { test::expectReplayNeeds("shfl_patterns", "write round 2/"); }

// histogram's shared-memory atomics hit one bin from several lanes: one pass per lane there.
TEST(MachineBanks, AtomicsOnOneAddressTakeOnePassEach) { test::expectReplayNeeds("histogram", "(pass 2/"); }

}  // namespace
}  // namespace qgpu::machine
