// The multiplier units' size at the Qwen3.5-2B shape (hidden 2048, intermediate 6144), as
// built for 4 lanes: depth, residual channels and the widest MLP layer, with the static
// proof; the figures are printed for docs/machine.md §5.1.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {

struct MulShape {
  const char* name;
  MulPart part;
  bool isSigned;
  int maxDepth;
};

class MultiplierBudget : public ::testing::TestWithParam<MulShape> {};

TEST_P(MultiplierBudget, FitsTheQwen35_2B_Layer) {
  const MulShape& m = GetParam();
  Unit u = multiplyUnit(32, 4, m.isSigned, m.part);
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  size_t peak = 0;
  int peakLayer = 0;
  std::string perLayer;
  for (size_t l = 0; l < cu.plan.mlp.size(); ++l) {
    const size_t n = cu.plan.mlp[l].neurons.size();
    perLayer += fmt::format("{}{}", l ? " " : "", n);
    if (n > peak) peak = n, peakLayer = static_cast<int>(l) + 1;
  }
  std::printf("%s\n", fmt::format("{}: depth {}, channels {} (hidden {}), peak neurons {} (layer {}), per layer [{}], "
                                  "min margin {}",
                                  m.name, cu.plan.layers, cu.plan.channels.size(), cu.config.hiddenSize, peak, peakLayer,
                                  perLayer, proof.minMargin)
                          .c_str());
  EXPECT_LE(cu.plan.layers, m.maxDepth);
  EXPECT_LE(cu.plan.channels.size(), 2048u);
  EXPECT_LE(peak, 6144u);
  EXPECT_GE(proof.minMargin, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Units, MultiplierBudget,
                         ::testing::Values(MulShape{"mulwide_u32", MulPart::Wide, false, 6},
                                           MulShape{"mulwide_s32", MulPart::Wide, true, 6},
                                           MulShape{"mullo32", MulPart::Lo, false, 6},
                                           MulShape{"mulhi_u32", MulPart::Hi, false, 6},
                                           MulShape{"mulhi_s32", MulPart::Hi, true, 6}),
                         [](const ::testing::TestParamInfo<MulShape>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace qgpu::compiler
