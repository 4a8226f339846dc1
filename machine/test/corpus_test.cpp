// Every kernel folder under kernels/, for each PTX flavour it has: if it lowers, the machine
// backend (lowering -> executor -> token stream -> replay decoder) must give the
// interpreter's outputs bit for bit at W=4; if it does not lower, the test is skipped with
// the lowering error (which names the instruction and the reason).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "qgpu/backend.h"
#include "qgpu/compare.h"
#include "qgpu/gate.h"
#include "qgpu/golden.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/tokens.h"
#include "machine_test_util.h"

namespace qgpu {
namespace {

const std::filesystem::path kSource = QGPU_SOURCE_DIR;

using Case = machine::test::CorpusCase;

class MachineCorpus : public testing::TestWithParam<Case> {};

TEST_P(MachineCorpus, MatchesTheInterpreterBitForBit) {
  const Case& c = GetParam();
  LaunchSpec spec = loadLaunchSpec(c.dir);
  try {
    machine::lowerKernel(loadProgram(spec.ptxPath(c.flavour)), spec.entry);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Decode) throw;
    GTEST_SKIP() << c.kernel << " [" << c.flavour << "] does not lower: " << e.what();
  }
  RunOptions ro;
  ro.flavour = c.flavour;
  ro.warpWidth = 4;
  RunResult oracle = makeBackend("interp")->run(spec, ro);
  RunResult onMachine = makeBackend("machine")->run(spec, ro);
  Comparison cmp = compareResults(oracle, onMachine);
  EXPECT_TRUE(cmp.equal) << describeComparison(cmp, "interp", "machine");
  // And against every usable golden, with the gate's comparison.
  for (const Golden& g : loadGoldens(kSource / "goldens", spec)) {
    if (g.stale) continue;
    Comparison vs = compareResults(g.result, onMachine);
    EXPECT_TRUE(vs.equal) << describeComparison(vs, "golden " + g.path.string(), "machine");
  }
  ASSERT_TRUE(onMachine.provenance.contains("generated_tokens"));
  std::cout << "[ tokens   ] " << c.kernel << " [" << c.flavour << "]: prompt "
            << onMachine.provenance["prompt_tokens"] << ", generated "
            << onMachine.provenance["generated_tokens"] << ", steps "
            << onMachine.provenance["machine_steps"] << "\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, MachineCorpus, testing::ValuesIn(machine::test::corpusCases()),
                         [](const testing::TestParamInfo<Case>& p) { return machine::test::corpusCaseName(p.param); });

// The outputs of --backend machine come from the token stream: a changed value token
// changes the replayed memory, and a stream that disagrees with the program is an error.
TEST(MachineReplay, OutputsComeFromTheTokens) {
  LaunchSpec spec = loadLaunchSpec(kSource / "kernels" / "dot");
  machine::MachineProgram mp = machine::lowerKernel(loadProgram(spec.ptxPath("nvcc")), spec.entry,
                                                           machine::lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
  machine::MachineLaunch ml = machine::machineLaunch(mp, materializeLaunch(spec));
  machine::MachineResult ex = machine::execute(mp, ml);
  ASSERT_EQ(machine::replay(mp, ml, ex.trace.tokens), ex.buffers);
  EXPECT_EQ(ex.trace.tokens.back(), machine::ctl(machine::Ctl::Halt));
  // The last FADD's lane-0 value is the stored sum: flip one bit of its chunk.
  std::vector<uint32_t> changed = ex.trace.tokens;
  size_t storeStep = 0;
  for (size_t i = 0; i < ex.trace.meanings.size(); ++i)
    if (ex.trace.meanings[i].find("FADD") != std::string::npos &&
        ex.trace.meanings[i].find("token 2/") != std::string::npos)
      storeStep = i;
  ASSERT_GT(storeStep, 0u);
  changed[storeStep] ^= 1;
  std::vector<std::vector<uint8_t>> replayed = machine::replay(mp, ml, changed);
  EXPECT_NE(replayed, ex.buffers);
  // Dropping a token desynchronises the stream: an error, not silent garbage.
  std::vector<uint32_t> shorter = ex.trace.tokens;
  shorter.erase(shorter.begin() + 3);
  EXPECT_THROW(machine::replay(mp, ml, shorter), Error);
  // Control tokens that contradict the replayed state are rejected: the divergent branch's
  // TOP with another lane mask, or with another pc.
  for (uint32_t change : {1u, 16u}) {
    std::vector<uint32_t> bad = ex.trace.tokens;
    auto top = std::find_if(bad.begin(), bad.end(), [](uint32_t t) { return t >= machine::kTop && t < machine::kGoto; });
    ASSERT_NE(top, bad.end());
    *top ^= change;
    EXPECT_THROW(machine::replay(mp, ml, bad), Error) << change;
  }
  // HALT replaces the last step's DONE; an early HALT (the store's DONE) is an error.
  std::vector<uint32_t> early = ex.trace.tokens;
  early.pop_back();
  auto storeDone = std::find(early.rbegin(), early.rend(), machine::ctl(machine::Ctl::Done));
  ASSERT_NE(storeDone, early.rend());
  early.erase(storeDone.base(), early.end());  // the store's DONE is now the stream's last token
  early.back() = machine::ctl(machine::Ctl::Halt);
  EXPECT_THROW(machine::replay(mp, ml, early), Error);
  std::vector<uint32_t> trailing = ex.trace.tokens;
  trailing.push_back(machine::ctl(machine::Ctl::Halt));
  EXPECT_THROW(machine::replay(mp, ml, trailing), Error);
}

TEST(MachineBackend, RejectsOtherWarpWidths) {
  LaunchSpec spec = loadLaunchSpec(kSource / "kernels" / "dot");
  RunOptions ro;
  ro.warpWidth = 32;
  try {
    makeBackend("machine")->run(spec, ro);
    FAIL() << "W=32 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_NE(std::string(e.what()).find("4-lane"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace qgpu
