// The acceptance test of issue #5: for 5 kernels and at least 3 fault
// positions each, the trace diff names the injected pc and lane, the register
// and the flipped bit, and exactly the output elements the fault changed.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "qgpu/compare.h"
#include "qgpu/debug/trace_diff.h"
#include "qgpu/debug/tracing.h"
#include "qgpu/interp/error.h"
#include "test_support.h"

namespace qgpu {
namespace {

using test::pcOf;
using test::scratchDir;
using test::testKernel;

struct Fault {
  std::string kernel;
  std::string instruction;  // PTX text prefix of the faulted instruction
  uint32_t lane, bit;
  std::string extra;  // ",block=1" etc.
};

void PrintTo(const Fault& f, std::ostream* os) { *os << f.kernel << " `" << f.instruction << "` lane " << f.lane << " bit " << f.bit << f.extra; }

// Positions whose fault reaches an output without crashing the kernel.
const Fault kFaults[] = {
    {"dot", "ld.global.f32 %f5", 2, 22, ""},
    {"dot", "mul.f32", 1, 20, ""},
    {"dot", "add.f32 %f8", 0, 1, ""},  // bit 0 would be rounded away by the next add
    {"dot", "setp.ne.s32", 1, 0, ""},  // lane 1 also stores: a control-flow fault
    {"saxpy", "ld.param.f32", 2, 22, ""},
    {"saxpy", "ld.global.f32 %f2", 0, 23, ",block=1"},
    {"saxpy", "fma.rn.f32", 3, 0, ",block=1"},
    {"saxpy", "mad.lo.s32", 1, 0, ""},  // thread 1 writes y[0] instead of y[1]
    {"histo", "mul.lo.s32", 2, 30, ""},
    {"histo", "shr.u32", 3, 2, ",block=1"},
    {"histo", "ld.shared.u32", 1, 2, ""},
    {"scan", "ld.global.u32", 3, 4, ""},
    {"scan", "add.s32 %r21", 2, 0, ""},
    {"scan", "ld.shared.u32 %r29", 1, 7, ",warp=2"},
    {"collatz", "selp.b32", 2, 0, ""},
    {"collatz", "max.u32", 3, 5, ""},
    {"collatz", "add.s32 %r17", 0, 3, ""},
};

class InjectedFault : public testing::TestWithParam<Fault> {};

TEST_P(InjectedFault, TraceDiffNamesInjectedPcLaneAndAffectedOutputs) {
  const Fault& f = GetParam();
  LaunchSpec spec = testKernel(f.kernel);
  uint32_t pc = pcOf(spec, f.instruction);
  auto dir = scratchDir(f.kernel + "-" + std::to_string(pc));
  RunOptions clean;
  RunOptions faulty;
  faulty.inject = parseFaultInjection(fmt::format("pc={},lane={},bit={}{}", pc, f.lane, f.bit, f.extra));
  RunResult good = runTraced(spec, clean, dir / "good.trace");
  RunResult bad = runTraced(spec, faulty, dir / "bad.trace");
  Trace a = readTrace(dir / "good.trace"), b = readTrace(dir / "bad.trace");
  TraceDiff d = diffTraces(a, b);

  ASSERT_TRUE(d.problems.empty());
  ASSERT_TRUE(d.first.has_value()) << formatTraceDiff(d, a, b);
  const TraceDivergence& first = *d.first;
  EXPECT_EQ(first.kind, TraceDivergence::Kind::Register) << formatTraceDiff(d, a, b);
  EXPECT_EQ(first.where.pc, pc);
  ASSERT_TRUE(first.a && first.b);
  EXPECT_EQ(first.a->pc, pc);
  EXPECT_EQ(first.b->lane, f.lane);
  if (faulty.inject->block) {
    EXPECT_EQ(first.b->block, *faulty.inject->block);
  }
  if (faulty.inject->warp) {
    EXPECT_EQ(first.b->warp, *faulty.inject->warp);
  }
  EXPECT_EQ(first.aValue ^ first.bValue, uint64_t{1} << f.bit);
  EXPECT_EQ(first.where.text.rfind(f.instruction, 0), 0u) << first.where.text;
  EXPECT_NE(first.where.srcLine == 0, f.kernel != "dot") << "the test kernels carry .loc lines, dot does not";

  // The affected outputs are exactly the elements in which the results differ.
  Comparison c = compareResults(good, bad, 1u << 20);
  std::set<std::pair<std::string, uint64_t>> differing, affected;
  for (const BufferComparison& bc : c.buffers)
    for (const ElementMismatch& m : bc.first) differing.insert({bc.name, m.index});
  for (const AffectedElement& e : d.affected) affected.insert({e.buffer, e.index});
  EXPECT_FALSE(differing.empty()) << "this fault position does not reach an output";
  EXPECT_EQ(affected, differing) << formatTraceDiff(d, a, b);
  EXPECT_GE(d.divergentThreads, 1u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, InjectedFault, testing::ValuesIn(kFaults),
                         [](const testing::TestParamInfo<Fault>& p) {
                           return p.param.kernel + "_" + std::to_string(p.index);
                         });

TEST(TraceDiff, CleanTracesAtWarpWidths4And32Align) {
  // Events are matched per thread, so a different warp grouping is no
  // difference (histo's atomics also run in thread order at both widths).
  for (const char* k : {"dot", "saxpy", "histo", "scan", "collatz"}) {
    LaunchSpec spec = testKernel(k);
    auto dir = scratchDir(std::string("w4w32-") + k);
    RunOptions w4, w32;
    w32.warpWidth = 32;
    runTraced(spec, w4, dir / "w4.trace");
    runTraced(spec, w32, dir / "w32.trace");
    Trace a = readTrace(dir / "w4.trace"), b = readTrace(dir / "w32.trace");
    TraceDiff d = diffTraces(a, b);
    EXPECT_TRUE(d.identical()) << k << "\n" << formatTraceDiff(d, a, b);
    EXPECT_GT(a.events.size(), 0u);
    EXPECT_EQ(a.events.size(), b.events.size()) << k;
  }
}

TEST(TraceDiff, FaultAtWidth4FoundAgainstCleanWidth32) {
  LaunchSpec spec = testKernel("scan");
  uint32_t pc = pcOf(spec, "add.s32 %r21");
  auto dir = scratchDir("cross-width");
  RunOptions w32, faulty;
  w32.warpWidth = 32;
  faulty.inject = parseFaultInjection(fmt::format("pc={},lane=1,bit=3,warp=2", pc));
  runTraced(spec, w32, dir / "a.trace");
  runTraced(spec, faulty, dir / "b.trace");
  Trace a = readTrace(dir / "a.trace"), b = readTrace(dir / "b.trace");
  TraceDiff d = diffTraces(a, b);
  ASSERT_TRUE(d.first);
  EXPECT_EQ(d.first->where.pc, pc);
  EXPECT_EQ(d.first->thread, 9u);  // warp 2 lane 1 at W=4
  EXPECT_EQ(d.first->a->warp, 0u);  // the same thread is lane 9 of warp 0 at W=32
  EXPECT_EQ(d.first->a->lane, 9u);
  EXPECT_FALSE(d.affected.empty());
}

TEST(TraceWriter, LanesStoringToOneAddressEachShowTheirOwnValue) {
  // With lane 1's `i != 0` test flipped, lanes 0 and 1 both store to out[0]
  // in one st: the trace keeps both values, and lane 1's (stored last) wins.
  LaunchSpec dot = testKernel("dot");
  auto dir = scratchDir("same-address");
  RunOptions faulty;
  faulty.inject = parseFaultInjection(fmt::format("pc={},lane=1,bit=0", pcOf(dot, "setp.ne.s32")));
  RunResult clean = makeBackend("interp")->run(dot, RunOptions{});
  RunResult bad = runTraced(dot, faulty, dir / "t.trace");
  Trace t = readTrace(dir / "t.trace");
  std::vector<const TraceEvent*> stores;
  for (const TraceEvent& e : t.events)
    if (e.pc == pcOf(dot, "st.global.f32")) stores.push_back(&e);
  ASSERT_EQ(stores.size(), 2u);
  ASSERT_TRUE(stores[0]->write && stores[1]->write);
  EXPECT_EQ(stores[0]->write->address, stores[1]->write->address);
  uint32_t v0 = 0, v1 = 0, out = 0;
  std::memcpy(&v0, stores[0]->write->bytes.data(), 4);
  std::memcpy(&v1, stores[1]->write->bytes.data(), 4);
  std::memcpy(&out, bad.outputs[0].bytes.data(), 4);
  EXPECT_EQ(v0, clean.outputs[0].element(0));  // lane 0 stores the true sum
  EXPECT_NE(v1, v0);
  EXPECT_EQ(out, v1);
}

TEST(TraceDiff, WritesOnlyComparisonFindsTheFirstWrongStore) {
  // For traces of different PTX only memory writes are comparable: the
  // fault then shows at the store of the corrupted value, in the same thread.
  LaunchSpec spec = testKernel("saxpy");
  auto dir = scratchDir("writes-only");
  RunOptions faulty;
  faulty.inject = parseFaultInjection(fmt::format("pc={},lane=2,bit=5,block=1", pcOf(spec, "fma.rn.f32")));
  runTraced(spec, {}, dir / "a.trace");
  runTraced(spec, faulty, dir / "b.trace");
  Trace a = readTrace(dir / "a.trace"), b = readTrace(dir / "b.trace");
  TraceDiff d = diffTraces(a, b, true);
  EXPECT_TRUE(d.writesOnly);
  ASSERT_TRUE(d.first);
  EXPECT_EQ(d.first->kind, TraceDivergence::Kind::Memory);
  EXPECT_EQ(d.first->where.pc, pcOf(spec, "st.global.f32"));
  EXPECT_EQ(d.first->thread, 8u + 2u);  // block 1, thread 2
  ASSERT_EQ(d.affected.size(), 1u);
  EXPECT_EQ(d.affected[0].index, 10u);
}

TEST(TraceDiff, DifferentLaunchesAreNotComparable) {
  auto dir = scratchDir("mismatch");
  runTraced(testKernel("dot"), {}, dir / "dot.trace");
  runTraced(testKernel("scan"), {}, dir / "scan.trace");
  Trace a = readTrace(dir / "dot.trace"), b = readTrace(dir / "scan.trace");
  TraceDiff d = diffTraces(a, b);
  EXPECT_FALSE(d.problems.empty());
  EXPECT_FALSE(d.identical());
}

void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

void expectBadTrace(const std::filesystem::path& p, const std::string& phrase) {
  try {
    readTrace(p);
    ADD_FAILURE() << p << " was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
}

TEST(TraceReader, MalformedTracesAreInputErrorsNamingTheFile) {
  auto dir = scratchDir("malformed");
  runTraced(testKernel("dot"), {}, dir / "good.trace");
  std::ifstream in(dir / "good.trace");
  std::string header, step;
  std::getline(in, header);
  std::getline(in, step);
  writeFile(dir / "empty.trace", "");
  writeFile(dir / "result.trace", "{\"format\":\"qgpu-result-1\"}\n");
  writeFile(dir / "cut.trace", header + "\n" + step + "\n");
  writeFile(dir / "garbage.trace", header + "\n{\"b\":0,\n");
  std::string badPc = step;
  badPc.replace(badPc.find("\"pc\":0"), 6, "\"pc\":999");
  writeFile(dir / "pc.trace", header + "\n" + badPc + "\n");
  std::string badMask = step;
  badMask.replace(badMask.find("\"m\":\"0xf\""), 9, "\"m\":\"0x1f\"");
  writeFile(dir / "mask.trace", header + "\n" + badMask + "\n");
  expectBadTrace(dir / "empty.trace", "empty file");
  expectBadTrace(dir / "result.trace", "not a qgpu trace");
  expectBadTrace(dir / "cut.trace", "no end line");
  expectBadTrace(dir / "garbage.trace", ":2: malformed trace");
  expectBadTrace(dir / "pc.trace", "pc 999 is not in the code table");
  expectBadTrace(dir / "mask.trace", "does not fit warp width 4");
  expectBadTrace(dir / "missing.trace", "cannot read");
}

TEST(TraceWriter, TruncatesAtTheStepLimitAndSaysSo) {
  auto dir = scratchDir("truncate");
  runTraced(testKernel("collatz"), {}, dir / "t.trace", 10);
  Trace t = readTrace(dir / "t.trace");
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.steps, 10u);
}

TEST(TraceWriter, AFailedLaunchStillEndsTheTraceWithItsError) {
  auto dir = scratchDir("failed");
  RunOptions ro;
  ro.maxSteps = 5;
  EXPECT_THROW(runTraced(testKernel("dot"), ro, dir / "t.trace"), Error);
  Trace t = readTrace(dir / "t.trace");
  EXPECT_NE(t.error.find("step limit"), std::string::npos) << t.error;
}

}  // namespace
}  // namespace qgpu
