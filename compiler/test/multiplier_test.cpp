// The multiplier at the Qwen3.5-2B shape (hidden 2048, intermediate 6144), as built for 4
// lanes: depth, residual channels and the widest MLP layer, with the static proof; the
// figures are printed for docs/machine.md §5.1. The machine's unit (mul32: the signed or
// unsigned 64-bit product; MULLO, MULHI its halves) and mul24hi run through the engine in
// CompiledUnit_; the single-op units (one op, one signedness: what each op alone costs),
// MUL24's low mode and MULP are proven and checked here in the IR against the machine
// (not through the engine).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"
#include "unit_reference.h"

namespace qgpu::compiler {
namespace {

constexpr int kMaxDepth = 6;

std::vector<UnitCase> allMultipliers() {
  std::vector<UnitCase> cases = multiplierPartCases();
  for (const UnitCase& uc : unitCases())
    if (uc.name.rfind("mul", 0) == 0) cases.push_back(uc);
  return cases;
}

class MultiplierBudget : public ::testing::TestWithParam<UnitCase> {};

TEST_P(MultiplierBudget, FitsTheQwen35_2B_LayerAndEqualsTheMachine) {
  const UnitCase& uc = GetParam();
  Unit u = uc.build();
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  size_t peak = 0;
  int peakLayer = 0;
  std::string perLayer;
  for (size_t l = 0; l < cu.plan.mlp.size(); ++l) {
    const size_t n = cu.plan.mlp[l].neurons.size();
    perLayer += fmt::format("{}{}", l ? " " : "", n);
    if (n > peak) {
      peak = n;
      peakLayer = static_cast<int>(l) + 1;
    }
  }
  std::printf("%s\n", fmt::format("{}: depth {}, channels {} (hidden {}), peak neurons {} (layer {}), per layer [{}], "
                                  "min margin {}",
                                  uc.name, cu.plan.layers, cu.plan.physicalChannels, cu.config.hiddenSize, peak,
                                  peakLayer, perLayer, proof.minMargin)
                          .c_str());
  EXPECT_LE(cu.plan.layers, kMaxDepth);
  EXPECT_LE(cu.plan.physicalChannels, 2048u);
  EXPECT_LE(peak, 6144u);
  EXPECT_GE(proof.minMargin, 1.0);
  std::mt19937_64 rng(99);
  for (int i = 0; i < 5000; ++i) {
    UnitSample s = uc.sample(u, rng, i);
    ASSERT_EQ(evaluateOutputs(u.circuit, s.inputs), s.expected) << uc.name << " sample " << i << ": " << s.describe;
  }
}

INSTANTIATE_TEST_SUITE_P(Units, MultiplierBudget, ::testing::ValuesIn(allMultipliers()),
                         [](const ::testing::TestParamInfo<UnitCase>& i) { return i.param.name; });

}  // namespace
}  // namespace qgpu::compiler
