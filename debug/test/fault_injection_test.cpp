// --inject: parsing, validation against the program, and that exactly the
// named bit of the named lane's result flips.
#include <gtest/gtest.h>

#include "qgpu/compare.h"
#include "qgpu/debug/tracing.h"
#include "qgpu/interp/error.h"
#include "test_support.h"

namespace qgpu {
namespace {

using test::pcOf;
using test::testKernel;

TEST(FaultInjection, ParsesEveryKey) {
  FaultInjection f = parseFaultInjection("pc=5,lane=1,bit=3,block=2,warp=1");
  EXPECT_EQ(f.pc, 5u);
  EXPECT_EQ(f.lane, 1u);
  EXPECT_EQ(f.bit, 3u);
  EXPECT_EQ(f.block, 2u);
  EXPECT_EQ(f.warp, 1u);
  EXPECT_EQ(formatFaultInjection(f), "pc=5,lane=1,bit=3,block=2,warp=1");
}

TEST(FaultInjection, RejectsMalformedText) {
  for (const char* bad : {"", "pc=5", "pc=5,lane=1", "pc=x,lane=1,bit=2", "pc=5,lane=1,bit=2,colour=3",
                          "pc=-1,lane=0,bit=0", "pc=5;lane=1;bit=2", "pc=5,lane=1,bit="}) {
    try {
      parseFaultInjection(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Input) << bad;
      EXPECT_NE(std::string(e.what()).find("--inject"), std::string::npos) << e.what();
    }
  }
}

RunResult runWith(const LaunchSpec& spec, const std::string& inject, uint32_t warp = 4) {
  RunOptions ro;
  ro.warpWidth = warp;
  if (!inject.empty()) ro.inject = parseFaultInjection(inject);
  return makeBackend("interp")->run(spec, ro);
}

void expectInputError(const LaunchSpec& spec, const std::string& inject, const std::string& phrase) {
  try {
    runWith(spec, inject);
    ADD_FAILURE() << "ran with --inject " << inject;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
  }
}

TEST(FaultInjection, RejectsInjectionsThatCannotApply) {
  LaunchSpec dot = testKernel("dot");
  uint32_t store = pcOf(dot, "st.global.f32");
  uint32_t mul = pcOf(dot, "mul.f32");
  expectInputError(dot, fmt::format("pc={},lane=0,bit=0", store), "has no destination register");
  expectInputError(dot, "pc=100000,lane=0,bit=0", "past the program");
  expectInputError(dot, fmt::format("pc={},lane=0,bit=32", mul), "outside the 32-bit destination");
  expectInputError(dot, fmt::format("pc={},lane=4,bit=0", mul), "outside a warp of 4");
  // Lane 3 has i = 3 >= n and skips the multiply: the fault never happens.
  expectInputError(dot, fmt::format("pc={},lane=3,bit=0", mul), "never executed");
}

TEST(FaultInjection, FlipsExactlyTheNamedBitOfTheResult) {
  LaunchSpec saxpy = testKernel("saxpy");
  uint32_t fma = pcOf(saxpy, "fma.rn.f32");
  RunResult clean = runWith(saxpy, "");
  // Block 1, lane 2 is thread 10: y[10] is that fma's result, stored as is.
  RunResult bad = runWith(saxpy, fmt::format("pc={},lane=2,bit=4,block=1", fma));
  Comparison c = compareResults(clean, bad);
  ASSERT_EQ(c.buffers.size(), 1u);
  ASSERT_EQ(c.buffers[0].differing, 1u);
  EXPECT_EQ(c.buffers[0].first[0].index, 10u);
  EXPECT_EQ(c.buffers[0].first[0].expected ^ c.buffers[0].first[0].actual, 1u << 4);
  EXPECT_EQ(bad.provenance.value("inject", ""), fmt::format("pc={},lane=2,bit=4,block=1", fma));
}

TEST(FaultInjection, OnlyTheFirstOccurrenceIsCorrupted) {
  // Without block=, the first execution of the fma on lane 2 is in block 0
  // (thread 2); block 1's lane 2 (thread 10) is untouched.
  LaunchSpec saxpy = testKernel("saxpy");
  RunResult clean = runWith(saxpy, "");
  RunResult bad = runWith(saxpy, fmt::format("pc={},lane=2,bit=0", pcOf(saxpy, "fma.rn.f32")));
  Comparison c = compareResults(clean, bad);
  ASSERT_EQ(c.buffers[0].differing, 1u);
  EXPECT_EQ(c.buffers[0].first[0].index, 2u);
}

}  // namespace
}  // namespace qgpu
