// The exactness proof: it passes on the compiled units with their margins reported, and
// it refuses broken circuits with the layer and gate named.
#include <gtest/gtest.h>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {

std::string refusal(const CompiledUnit& cu, const ProofOptions& o = {}) {
  try {
    proveExact(cu, o);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

Circuit carryCircuit() {
  Circuit c("carry");
  WireId a = c.input("a", {0, 4095}), b = c.input("b", {0, 4095});
  WireId carry = c.step("carry", w(a) + w(b) - 4096);
  WireId picked = c.gate("picked", carry, w(a));
  c.output("carry", carry);
  c.output("picked", picked);
  return c;
}

// The carry circuit's tests below look at its step and gate neurons alone: without channel
// reuse (clear neurons, with their own margins, are tested in channel_reuse_test.cpp).
EmitOptions noReuse() {
  EmitOptions o;
  o.reuseChannels = false;
  return o;
}

TEST(Proof, PassesWithMarginsPerLayer) {
  CompiledUnit cu = compileCircuit(carryCircuit(), noReuse());
  ProofReport r = proveExact(cu);
  ASSERT_EQ(r.layers.size(), 3u);  // two MLP layers and the final norm + head
  // The gate neuron's argument is 0 or 32: 15 above the silu regime's 17. A step's
  // arguments are multiples of 128: the low neuron is 39 below -89 at cond = -1.
  EXPECT_EQ(r.minMargin, 15.0);
  EXPECT_NE(r.tightestGate.find("picked"), std::string::npos) << r.tightestGate;
  EXPECT_EQ(r.layers[0].minMargin, 39.0);
  EXPECT_GT(r.layers[0].normSlackBits, 10.0);
  EXPECT_GT(r.layers[0].sumHeadroomBits, 0.0);
}

TEST(Proof, RefusesAStepGainThatLeavesTheSiluRegime) {
  EmitOptions o;
  o.gains.step = 64;  // the low neuron sees -64 at cond = -1: silu(-64) is not exactly 0
  std::string why = refusal(compileCircuit(carryCircuit(), o));
  EXPECT_NE(why.find("proof refused"), std::string::npos) << why;
  EXPECT_NE(why.find("layer 1"), std::string::npos) << why;
  EXPECT_NE(why.find("gate 'carry'"), std::string::npos) << why;
  EXPECT_NE(why.find("-64"), std::string::npos) << why;
}

TEST(Proof, RefusesAGateGainBelowTheSiluRegime) {
  EmitOptions o = noReuse();
  o.gains.gate = 16;  // silu(16) != 16
  std::string why = refusal(compileCircuit(carryCircuit(), o));
  EXPECT_NE(why.find("layer 2"), std::string::npos) << why;
  EXPECT_NE(why.find("gate 'picked'"), std::string::npos) << why;
  EXPECT_NE(why.find("below 17"), std::string::npos) << why;
}

TEST(Proof, RefusesAMarginBelowTheRequiredOne) {
  ProofOptions o;
  o.minMargin = 20;  // the gate's margin is 15
  std::string why = refusal(compileCircuit(carryCircuit(), noReuse()), o);
  EXPECT_NE(why.find("gate 'picked'"), std::string::npos) << why;
  EXPECT_NE(why.find("margin 15"), std::string::npos) << why;
}

TEST(Proof, RefusesSumsPastTheExactRangeOfF32) {
  Circuit c("wide");
  WireId a = c.input("a", {0, 1 << 23}), b = c.inputBit("b");
  c.output("g", c.gate("g", b, 4 * w(a) + 1));  // an odd integer up to 2^25: not an f32
  std::string why = refusal(compileCircuit(c));
  EXPECT_NE(why.find("gate 'g'"), std::string::npos) << why;
  EXPECT_NE(why.find("inexact"), std::string::npos) << why;
}

TEST(Proof, RefusesInputsThatAreNotExactF32Integers) {
  Circuit c("wide-input");
  c.output("a", c.input("a", {0, (1 << 24) + 1}));
  std::string why = refusal(compileCircuit(c));
  EXPECT_NE(why.find("input 'a'"), std::string::npos) << why;
}

TEST(Proof, RefusesDataThatTheAnchorsDoNotAbsorb) {
  EmitOptions o;
  o.anchorExponent = 12;  // anchors of 4096: their squares cannot absorb 64 wide inputs
  Circuit c("small-anchors");
  for (int i = 0; i < 64; ++i) c.output("x" + std::to_string(i), c.input("x" + std::to_string(i), {0, 4000}));
  std::string why = refusal(compileCircuit(c, o));
  EXPECT_NE(why.find("not absorbed"), std::string::npos) << why;
}

TEST(Proof, RefusesASecondInputToAGateThatIsNotABit) {
  // A gate whose control channel is a linear form (xor) is refused when built...
  Circuit c("xor-gate");
  WireId a = c.inputBit("a"), b = c.inputBit("b");
  WireId x = bitXor(c, "x", a, b);
  EXPECT_THROW(c.gate("g", x, w(a)), CompileError);
}

}  // namespace
}  // namespace qgpu::compiler
