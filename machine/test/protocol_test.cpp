// The token protocol's control invariant (docs/machine.md §3.3, §5.2): at every step, the
// block, warp, SIMT depth, pc and mask follow from the tokens before it by rules a compiled
// machine evaluates at a bounded depth — the last token that carried each field, plus, for
// the pc, the number of step ends since the last pc-carrying token (a count that stays below
// kPcCheckpointSteps), where a step's end is its token's class, or for a CHUNK-LAST the value
// count of the last prefix (a count of at most 4). Derived by StreamDeriver
// (stream_state.h: the compiled sequencer's reference), which is written from the protocol,
// not from the executor's sequencer, for every lowered corpus run.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/stream_state.h"
#include "qgpu/machine/tokens.h"
#include "machine_test_util.h"

namespace qgpu {
namespace {

using namespace machine;

using Case = machine::test::CorpusCase;

class ControlFromTokens : public testing::TestWithParam<Case> {};

TEST_P(ControlFromTokens, EveryStepsStateFollowsFromTheTokensBeforeIt) {
  const Case& c = GetParam();
  LaunchSpec spec = loadLaunchSpec(c.dir);
  MachineProgram mp;
  try {
    mp = lowerKernel(loadProgram(spec.ptxPath(c.flavour)), spec.entry, lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Decode) throw;
    GTEST_SKIP() << "does not lower: " << e.what();
  }
  MachineLaunch ml = machineLaunch(mp, materializeLaunch(spec));
  MachineResult ex = execute(mp, ml);
  const std::vector<uint32_t>& t = ex.trace.tokens;
  ASSERT_EQ(ex.trace.stepStates.size(), ex.trace.steps);
  const uint32_t threads = static_cast<uint32_t>(ml.block.count());
  std::vector<uint32_t> valid;
  for (uint32_t w = 0; w * 4 < threads; ++w) valid.push_back((1u << std::min(4u, threads - 4 * w)) - 1);
  StreamDeriver d(valid);
  size_t i = 0;
  for (size_t s = 0; s < ex.trace.stepStates.size(); ++s) {
    const StepState& st = ex.trace.stepStates[s];
    for (; i < st.firstToken; ++i) d.take(t[i]);
    const StreamState& got = d.state();
    ASSERT_LT(got.stepsSincePc, kPcCheckpointSteps) << "step " << s + 1;
    ASSERT_EQ(got.block, st.block) << "step " << s + 1 << " at token " << st.firstToken;
    ASSERT_EQ(got.warp, st.warp) << "step " << s + 1 << " at token " << st.firstToken;
    ASSERT_EQ(got.pc, st.pc) << "step " << s + 1 << " at token " << st.firstToken;
    ASSERT_EQ(got.mask, st.mask) << "step " << s + 1 << " at token " << st.firstToken;
    ASSERT_EQ(got.depth, st.depth) << "step " << s + 1 << " at token " << st.firstToken;
    // The token before a step's first token ended the previous step (or is a control token).
    if (st.firstToken > 0 && !d.lastEndedStep()) {
      const uint32_t prev = t[st.firstToken - 1];
      ASSERT_TRUE((prev >= kBlock && prev < kControl)) << "step " << s + 1 << " follows " << tokenName(prev);
    }
  }
  for (; i < t.size(); ++i) d.take(t[i]);
  EXPECT_TRUE(d.lastEndedStep());
  EXPECT_EQ(t.back(), ctl(Ctl::Halt));
}

// Launches larger than the control tokens can name are refused by name, not run wrongly.
TEST(MachineProtocolLimits, GridsAndBlocksTheTokensCannotNameAreErrors) {
  const std::string ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  ret;
}
)";
  MachineProgram mp = lowerKernel(test::decodeText(ptx), "k");
  Launch wide = test::oneBufferLaunch(1, 1);
  wide.grid = {kMaxBlocks + 1, 1, 1};
  try {
    execute(mp, machineLaunch(mp, wide));
    FAIL() << "a grid of 4097 blocks ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Launch);
    EXPECT_NE(std::string(e.what()).find("4096 blocks"), std::string::npos) << e.what();
  }
  Launch full = test::oneBufferLaunch(1, 1);
  full.grid = {kMaxBlocks, 1, 1};  // the largest nameable grid runs, its last block says BLOCK 4095
  MachineResult r = execute(mp, machineLaunch(mp, full));
  EXPECT_NE(std::find(r.trace.tokens.begin(), r.trace.tokens.end(), kBlock + kMaxBlocks - 1), r.trace.tokens.end());
  EXPECT_EQ(replay(mp, machineLaunch(mp, full), r.trace.tokens), r.buffers);
}

INSTANTIATE_TEST_SUITE_P(Corpus, ControlFromTokens, testing::ValuesIn(machine::test::corpusCases()),
                         [](const testing::TestParamInfo<Case>& p) { return machine::test::corpusCaseName(p.param); });

}  // namespace
}  // namespace qgpu
