// Result diffs: counts, ULP and float classes, write attribution naming the
// storing instruction and thread, and the verdict line.
#include <gtest/gtest.h>

#include <cstring>

#include "qgpu/debug/result_diff.h"
#include "qgpu/debug/tracing.h"
#include "test_support.h"

namespace qgpu {
namespace {

using test::pcOf;
using test::testKernel;

RunResult run(const LaunchSpec& spec, const std::string& inject = "") {
  RunOptions ro;
  if (!inject.empty()) ro.inject = parseFaultInjection(inject);
  return makeBackend("interp")->run(spec, ro);
}

TEST(ResultDiff, IdenticalResultsSayIdentical) {
  LaunchSpec dot = testKernel("dot");
  RunResult a = run(dot), b = run(dot);
  ResultDiff d = diffResults(a, b, "A", "B", 8, nullptr, nullptr, nullptr);
  EXPECT_TRUE(d.equal);
  EXPECT_EQ(d.verdict().rfind("IDENTICAL", 0), 0u) << d.verdict();
}

TEST(ResultDiff, CountsUlpsAndClassesOfFloatMismatches) {
  LaunchSpec dot = testKernel("dot");
  RunResult a = run(dot), b = a;
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(b.outputs[0].bytes.data(), &nan, 4);
  ResultDiff d = diffResults(a, b, "A", "B", 8, nullptr, nullptr, nullptr);
  ASSERT_FALSE(d.equal);
  ASSERT_EQ(d.buffers[0].differing, 1u);
  const ElementDiff& e = d.buffers[0].first[0];
  EXPECT_EQ(e.expectedClass, "normal");
  EXPECT_EQ(e.actualClass, "nan");
  EXPECT_EQ(e.ulp, 0x7fc00000u - 0x42000000u);  // both positive: the difference of the bit patterns
  EXPECT_NE(formatResultDiff(d).find("normal vs nan"), std::string::npos) << formatResultDiff(d);
  EXPECT_EQ(d.verdict().rfind("DIVERGENT: 1 of 1 elements differ in 1 of 1 outputs", 0), 0u) << d.verdict();
}

TEST(ResultDiff, KeepsTheFirstNAndCountsAll) {
  LaunchSpec scan = testKernel("scan");
  // A fault in thread 2's input shifts every prefix sum from out[2] on.
  RunResult a = run(scan), b = run(scan, fmt::format("pc={},lane=2,bit=0", pcOf(scan, "ld.global.u32")));
  ResultDiff d = diffResults(a, b, "A", "B", 3, nullptr, nullptr, nullptr);
  ASSERT_EQ(d.buffers.size(), 1u);
  EXPECT_EQ(d.buffers[0].differing, 14u);
  ASSERT_EQ(d.buffers[0].first.size(), 3u);
  EXPECT_EQ(d.buffers[0].first[0].index, 2u);
  EXPECT_NE(formatResultDiff(d).find("... 11 more"), std::string::npos);
}

TEST(WriteAttribution, NamesTheStoringInstructionBlockAndThread) {
  LaunchSpec saxpy = testKernel("saxpy");
  RunOptions ro;
  ro.warpWidth = 4;
  AttributedRun run = runAttributed(saxpy, ro);
  uint32_t store = pcOf(saxpy, "st.global.f32");
  for (uint64_t i = 0; i < 16; ++i) {
    const WriterInfo* w = run.writerOf("y", i);
    if (i >= 13) {  // n = 13: threads 13..15 store nothing
      EXPECT_EQ(w, nullptr) << i;
      continue;
    }
    ASSERT_NE(w, nullptr) << i;
    EXPECT_EQ(w->pc, store);
    EXPECT_EQ(w->blockLinear, i / 8);
    EXPECT_EQ(w->threadInBlock, i % 8);
    EXPECT_EQ(w->warp, (i % 8) / 4);
    EXPECT_EQ(w->lane, i % 4);
  }
}

TEST(WriteAttribution, AtomicsAreAttributedToTheLastThreadThatUpdated) {
  // histo: bins[t] gets block 0's then block 1's atomicAdd from thread t.
  LaunchSpec histo = testKernel("histo");
  AttributedRun run = runAttributed(histo, RunOptions{});
  for (uint64_t i = 0; i < 4; ++i) {
    const WriterInfo* w = run.writerOf("bins", i);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->blockLinear, 1u);
    EXPECT_EQ(w->threadInBlock, i);
    EXPECT_EQ(w->pc, pcOf(histo, "atom.global.add.u32"));
  }
}

TEST(ResultDiff, MismatchesCarryTheirWriterAndSourceLine) {
  LaunchSpec saxpy = testKernel("saxpy");
  RunResult a = run(saxpy);
  RunOptions faulty;
  faulty.inject = parseFaultInjection(fmt::format("pc={},lane=1,bit=3,block=1", pcOf(saxpy, "fma.rn.f32")));
  AttributedRun b = runAttributed(saxpy, faulty);
  const Program& program = loadProgram(saxpy.ptxPath("nvcc"));
  ResultDiff d = diffResults(a, b.result, "clean", "faulty", 8, &b, &program, &saxpy);
  ASSERT_EQ(d.buffers[0].differing, 1u);
  const ElementDiff& e = d.buffers[0].first[0];
  EXPECT_EQ(e.index, 9u);
  ASSERT_TRUE(e.writer);
  EXPECT_EQ(e.writer->block, "(1,0,0)");
  EXPECT_EQ(e.writer->thread, "(1,0,0)");
  EXPECT_EQ(e.writer->where.srcLine, 6u);
  EXPECT_NE(e.writer->where.srcText.find("y[i] = a * v + y[i];"), std::string::npos) << e.writer->where.srcText;
  std::string text = formatResultDiff(d);
  EXPECT_NE(text.find("written by block (1,0,0) thread (1,0,0)"), std::string::npos) << text;
  auto j = resultDiffToJson(d);
  EXPECT_EQ(j["buffers"][0]["first"][0]["writer"]["pc"], pcOf(saxpy, "st.global.f32"));
  EXPECT_EQ(j["equal"], false);
}

}  // namespace
}  // namespace qgpu
