// The circuit IR and its exact evaluator: construction rules, ranges, and every unit's
// circuit against the machine's functional units (machine/src/units.cpp) in the IR alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <random>
#include <vector>

#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/schedule.h"
#include "qgpu/compiler/token_io.h"
#include "qgpu/compiler/units.h"
#include "qgpu/model/model.h"
#include "unit_reference.h"

namespace qgpu::compiler {
namespace {

TEST(Circuit, StepGateAndSumEvaluateExactly) {
  Circuit c("t");
  WireId a = c.input("a", {-5, 5}), b = c.inputBit("b");
  WireId ge = c.step("ge", w(a) - 2);             // [a >= 2]
  WireId pass = c.gate("pass", b, 3 * w(a) + 1);  // b ? 3a + 1 : 0
  WireId s = c.sum("s", w(ge) + w(pass) - 1);
  c.output("s", s);
  EXPECT_EQ(evaluateOutputs(c, {2, 1}), (std::vector<int64_t>{7}));
  EXPECT_EQ(evaluateOutputs(c, {1, 1}), (std::vector<int64_t>{3}));
  EXPECT_EQ(evaluateOutputs(c, {-5, 0}), (std::vector<int64_t>{-1}));
  EXPECT_EQ(c.node(ge).range.lo, 0);
  EXPECT_EQ(c.node(ge).range.hi, 1);
  EXPECT_TRUE(c.node(ge).structuralBit);
  EXPECT_EQ(c.node(pass).range.lo, -14);
  EXPECT_EQ(c.node(pass).range.hi, 16);
  Schedule sc = schedule(c);
  EXPECT_EQ(sc.level[ge], 1);
  EXPECT_EQ(sc.level[pass], 1);
  EXPECT_EQ(sc.level[s], 1);
  EXPECT_EQ(sc.depth, 1);
}

TEST(Circuit, GateNeedsAStructuralBitControl) {
  Circuit c("t");
  WireId a = c.inputBit("a"), b = c.inputBit("b");
  WireId x = bitXor(c, "x", a, b);  // a linear form: not a structural bit
  EXPECT_THROW(c.gate("g", x, w(a)), CompileError);
  WireId both = bitAnd(c, "and", a, b);
  EXPECT_NO_THROW(c.gate("g2", both, w(a)));
}

TEST(Circuit, EvaluatorRejectsInputsOutsideTheirRange) {
  Circuit c("t");
  WireId a = c.input("a", {0, 3});
  c.output("a", a);
  EXPECT_THROW(evaluate(c, {4}), CompileError);
  EXPECT_THROW(evaluate(c, {1, 2}), CompileError);
}

TEST(Circuit, LevelsFollowTheLongestPath) {
  Circuit c("t");
  WireId a = c.inputBit("a"), b = c.inputBit("b");
  WireId and1 = bitAnd(c, "and1", a, b);
  WireId or2 = bitOr(c, "or2", and1, a);
  WireId x = c.sum("x", w(or2) + w(a));
  Schedule s = schedule(c);
  EXPECT_EQ(s.level[and1], 1);
  EXPECT_EQ(s.level[or2], 2);
  EXPECT_EQ(s.level[x], 2);
}

// An exclusive or is a declared bit: a gate may read it, the evaluator checks the
// declaration at every position, and it takes no level of its own.
TEST(Circuit, AnExclusiveOrIsADeclaredBitTheEvaluatorChecks) {
  Circuit c("t");
  WireId a = c.inputBit("a"), b = c.inputBit("b"), v = c.input("v", {0, 9});
  WireId x = c.exclusiveOr("a or b", {a, b});
  EXPECT_TRUE(c.node(x).structuralBit);
  WireId g = c.gate("g", x, w(v));
  c.output("g", g);
  EXPECT_EQ(evaluateOutputs(c, {1, 0, 7}), (std::vector<int64_t>{7}));
  EXPECT_EQ(evaluateOutputs(c, {0, 1, 7}), (std::vector<int64_t>{7}));
  EXPECT_EQ(evaluateOutputs(c, {0, 0, 7}), (std::vector<int64_t>{0}));
  try {
    evaluate(c, {1, 1, 7});
    ADD_FAILURE() << "both terms 1 accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("a or b"), std::string::npos) << e.what();
  }
  EXPECT_EQ(schedule(c).level[x], 0);
  EXPECT_THROW(c.exclusiveOr("not bits", {a, v}), CompileError);
  EXPECT_THROW(c.exclusiveOr("twice", {a, a}), CompileError);
}

TEST(Circuit, NotBeforeDelaysAStepToAnotherWiresLevel) {
  Circuit c("t");
  WireId a = c.inputBit("a"), b = c.inputBit("b");
  WireId s1 = bitAnd(c, "s1", a, b);
  WireId s2 = bitOr(c, "s2", s1, a);
  WireId s3 = bitOr(c, "s3", s2, b);
  WireId d = bitAnd(c, "d", a, b);
  EXPECT_EQ(schedule(c).level[d], 1);
  c.notBefore(d, s3);
  Schedule s = schedule(c);
  EXPECT_EQ(s.level[s3], 3);
  EXPECT_EQ(s.level[d], 3);
  EXPECT_EQ(evaluate(c, {1, 1})[d], 1);  // a hint, not a dependency: the value is the same
  c.notBefore(d, s3, 2);  // two levels after s3's
  EXPECT_EQ(schedule(c).level[d], 5);
  EXPECT_EQ(evaluate(c, {1, 0})[d], 0);
  EXPECT_THROW(c.notBefore(s1, d), CompileError);  // only after an earlier wire
  WireId x = c.sum("x", w(d));
  EXPECT_THROW(c.notBefore(x, s1), CompileError) << "a sum has no level of its own to delay";
}

// Sinking (schedule.cpp): after ASAP, a step whose only reader is levels later moves down to
// it when its inputs are read there anyway, and stays where an input would live longer.
TEST(Circuit, SinkingMovesAStepTowardItsReaderWithoutLengtheningItsInputs) {
  Circuit c("t");
  const WireId a = c.inputBit("a"), b = c.inputBit("b"), x = c.inputBit("x");
  const WireId c1 = c.step("c1", w(a) + w(b) - 2);
  const WireId c2 = c.step("c2", w(c1) + w(a) - 1);
  const WireId c3 = c.step("c3", w(c2) + w(b) - 1);
  const WireId c4 = c.step("c4", w(c3) + w(a) + w(b) - 1);  // a and b read at level 4
  const WireId d = c.step("d", w(a) + w(b) - 1);            // ASAP 1, read at 4 only
  const WireId e = c.step("e", w(d) + w(c3) - 2);
  const WireId h = c.step("h", w(x) - 1);                   // x is read by h alone
  const WireId g = c.step("g", w(h) + w(c3) - 2);
  c.output("c4", c4);
  c.output("e", e);
  c.output("g", g);
  const Schedule s = schedule(c);
  EXPECT_EQ(s.level[c4], 4);
  EXPECT_EQ(s.level[d], 3) << "d waits beside its reader's other input";
  EXPECT_EQ(s.level[e], 4);
  EXPECT_EQ(s.level[h], 1) << "moving h would keep x's channel longer";
  const CompiledUnit cu = compileCircuit(c);
  EXPECT_NO_THROW(proveExact(cu));
  model::Model m = model::Model::fromStore(cu.config, cu.store, {});
  for (int v = 0; v < 8; ++v) {
    const std::vector<int64_t> in = {v & 1, (v >> 1) & 1, (v >> 2) & 1};
    const Eigen::VectorXf logits = [&] {
      model::DecodeState st = m.newState();
      Eigen::MatrixXf one(cu.config.hiddenSize, 1);
      one.col(0) = cu.residual(in);
      return Eigen::VectorXf(m.forwardEmbeddings(st, one).col(0));
    }();
    EXPECT_EQ(cu.decode(logits), evaluateOutputs(c, in)) << v;
  }
}

// An exclusive sum declares a range narrower than its form's interval (units' packed results,
// at most one unit's not 0): it has a channel of its own and the evaluator checks the range.
TEST(Circuit, AnExclusiveSumIsADeclaredRangeTheEvaluatorChecks) {
  Circuit c("t");
  const WireId a = c.inputBit("a"), b = c.inputBit("b"), x = c.inputBit("x"), y = c.inputBit("y");
  std::vector<Expr> first = {w(a), w(b)}, second = {w(x), w(y)};
  const PackedBits p = accumulatePacked(c, "acc", nullptr, first);
  const PackedBits q = accumulatePacked(c, "acc2", &p, second);
  ASSERT_EQ(q.channels.size(), 1u);
  EXPECT_EQ(c.node(q.channels[0]).range.hi, 3);
  EXPECT_TRUE(c.node(q.channels[0]).ownChannel);
  c.output("acc", q.channels[0]);
  EXPECT_EQ(evaluateOutputs(c, {1, 1, 0, 0}), (std::vector<int64_t>{3}));
  EXPECT_EQ(evaluateOutputs(c, {0, 0, 0, 1}), (std::vector<int64_t>{2}));
  try {
    evaluate(c, {1, 1, 1, 0});  // 4: both units' terms at once
    ADD_FAILURE() << "a sum beyond its declared range accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("acc2"), std::string::npos) << e.what();
  }
  std::vector<Expr> three = {w(a), w(b), w(x)};
  EXPECT_THROW(accumulatePacked(c, "mismatch", &p, three), CompileError) << "3 bits onto a 2-bit channel";
}

// Two 64-bit operands, the subtract bit and (if wanted) a carry-in as inputs, for the
// adder tests below; inputs() their values in that order.
struct AdderRig {
  Circuit c{"t"};
  Bus a = c.inputBus("a", 64), b = c.inputBus("b", 64);
  WireId sub = c.inputBit("sub");
  std::optional<WireId> cin;

  std::vector<int64_t> inputs(uint64_t va, uint64_t vb, int64_t s, int64_t ci = 0) const {
    std::vector<int64_t> in;
    for (int i = 0; i < 64; ++i) in.push_back(static_cast<int64_t>((va >> i) & 1));
    for (int i = 0; i < 64; ++i) in.push_back(static_cast<int64_t>((vb >> i) & 1));
    in.push_back(s);
    if (cin) in.push_back(ci);
    return in;
  }
};

// A form's value given every wire's.
int64_t valueOf(const Expr& e, const std::vector<int64_t>& v) {
  int64_t sum = e.constant;
  for (const Term& t : e.terms) sum += t.coeff * v[t.wire];
  return sum;
}

// ADD and SUB in one carry chain (addSubCarries): every result bit, from the carries, equals
// the machine's sum or difference modulo 2^64.
TEST(Circuit, AddAndSubtractShareOneCarryChain) {
  AdderRig r;
  const Bus &a = r.a, &b = r.b;
  const AddSubCarries k = addSubCarries(r.c, "as", forms(a), forms(b), r.sub);
  ASSERT_EQ(k.carry.size(), 65u);
  std::mt19937_64 rng(11);
  for (int t = 0; t < 3000; ++t) {
    uint64_t va = rng(), vb = rng();
    if (t % 5 == 0) vb = ~va;  // long carry chains
    if (t % 7 == 0) vb = va;
    const int64_t s = t % 2;
    const std::vector<int64_t> v = evaluate(r.c, r.inputs(va, vb, s));
    const uint64_t want = s ? va - vb : va + vb;
    uint64_t got = 0;
    for (uint32_t i = 0; i < 64; ++i) {
      // ADD: a + b + k_i - 2 k_(i+1); SUB: a + 1 - b + k_i - 2 k_(i+1).
      const int64_t bit = v[a[i]] + (s ? 1 - v[b[i]] : v[b[i]]) + valueOf(k.carry[i], v) - 2 * valueOf(k.carry[i + 1], v);
      ASSERT_TRUE(bit == 0 || bit == 1) << t << " bit " << i;
      got |= static_cast<uint64_t>(bit) << i;
    }
    ASSERT_EQ(got, want) << t << ": " << va << (s ? " - " : " + ") << vb;
  }
}

// The same chain with a carry-in of its own (CADD, CARRY): a + b + cin and a + ~b + cin for
// every combination, and the carry out of bit 31 and bit 63 (CARRY of 4 and 8 bytes).
TEST(Circuit, AddAndSubtractTakeACarryInOfTheirOwn) {
  AdderRig r;
  r.cin = r.c.inputBit("cin");
  const Bus &a = r.a, &b = r.b;
  const AddSubCarries k = addSubCarries(r.c, "as", forms(a), forms(b), r.sub, std::nullopt, *r.cin);
  ASSERT_EQ(k.carry.size(), 65u);
  std::mt19937_64 rng(12);
  for (int t = 0; t < 4000; ++t) {
    uint64_t va = rng(), vb = rng();
    if (t % 5 == 0) vb = ~va;  // long carry chains: the carry-in decides them
    if (t % 7 == 0) vb = va;
    if (t % 11 == 0) va = ~uint64_t{0};
    const int64_t s = t % 2, ci = (t / 2) % 2;
    const std::vector<int64_t> v = evaluate(r.c, r.inputs(va, vb, s, ci));
    const uint64_t bv = s ? ~vb : vb;
    // The sum and its carry out without a 128-bit type: the carry out of the 64-bit sum.
    const uint64_t partial = va + bv, full = partial + static_cast<uint64_t>(ci);
    const uint64_t carryOut = (partial < va) || (full < partial) ? 1 : 0;
    // The low chunk's carries are the reader's: [pair + cin >= 2].
    auto carryInto = [&](uint32_t i) {
      if (i == 0 || i > k.lowPairs.size()) return valueOf(k.carry[i], v);
      const int64_t p = valueOf(k.lowPairs[i - 1], v);
      EXPECT_TRUE(p >= 0 && p <= 2) << t << " pair " << i;
      return static_cast<int64_t>(p + ci >= 2);
    };
    uint64_t got = 0;
    for (uint32_t i = 0; i < 64; ++i) {
      const int64_t bit = v[a[i]] + (s ? 1 - v[b[i]] : v[b[i]]) + carryInto(i) - 2 * carryInto(i + 1);
      ASSERT_TRUE(bit == 0 || bit == 1) << t << " bit " << i;
      got |= static_cast<uint64_t>(bit) << i;
    }
    ASSERT_EQ(k.lowPairs.size(), 12u);
    ASSERT_EQ(got, full) << t << ": " << va << (s ? " - " : " + ") << vb << " + " << ci;
    const uint64_t low32 = (va & 0xffffffffu) + (bv & 0xffffffffu) + static_cast<uint64_t>(ci);
    ASSERT_EQ(valueOf(k.carry[32], v), static_cast<int64_t>(low32 >> 32)) << t;
    ASSERT_EQ(valueOf(k.carry[64], v), static_cast<int64_t>(carryOut)) << t;
  }
}

// A declared exclusive group: the token head takes it in place of a proof, and the evaluator
// refuses a position where two of its bits are 1.
TEST(Circuit, AnExclusiveGroupIsCheckedAtEveryPosition) {
  Circuit c("group");
  const WireId a = c.inputBit("a"), b = c.inputBit("b");
  const WireId x = c.exclusiveOr("x", std::vector<WireId>{a}), y = c.exclusiveOr("y", std::vector<WireId>{b});
  EXPECT_FALSE(c.mutuallyExclusive({x, y}));  // nothing the circuit can compare
  EXPECT_FALSE(c.declaredExclusive({x, y}));
  const TokenVocabulary v{{{"x", 0, 0}, {"y", 1, 0}}};
  {
    Circuit undeclared = c;
    EXPECT_THROW(tokenOutput(undeclared, v, {{x, y}, {}}), CompileError);
  }
  c.exclusiveGroup("x or y", {x, y});
  EXPECT_TRUE(c.declaredExclusive({y, x}));
  EXPECT_NO_THROW(tokenOutput(c, v, {{x, y}, {}}));
  EXPECT_EQ(evaluate(c, {1, 0})[x], 1);
  EXPECT_EQ(evaluate(c, {0, 0})[y], 0);
  try {
    evaluate(c, {1, 1});
    ADD_FAILURE() << "two bits of the group at once were not refused";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("exclusive group 'x or y': 2 are 1 at once (x, y)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.exclusiveGroup("twice", {x, x}), CompileError);
  EXPECT_THROW(c.exclusiveGroup("a sum", {c.sum("s", w(a) + w(b))}), CompileError);  // no structural bit
}

// Unit steps on one form are nested: their weighted sum is a prefix sum in the order of
// their thresholds, so bit 1 of y (alternating thresholds) ranges over 0..1, not -1..2.
TEST(Circuit, AChainOfThresholdsHasItsPrefixSumsAsRange) {
  Circuit c("chain");
  WireId y = c.input("y", {0, 7});
  Expr bit1;
  for (int t = 1; t <= 3; ++t) bit1 += (t % 2 ? 1 : -1) * w(c.step("y>=" + std::to_string(2 * t), w(y) - 2 * t));
  const Range r = c.rangeOf(bit1);
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 1);
  // Different forms are independent: the plain interval.
  WireId z = c.input("z", {0, 7});
  const Range r2 = c.rangeOf(w(c.step("z>=2", w(z) - 2)) - w(c.step("y>=5", w(y) - 5)));
  EXPECT_EQ(r2.lo, -1);
  EXPECT_EQ(r2.hi, 1);
  for (int v = 0; v < 8; ++v) {
    std::vector<int64_t> vals = evaluate(c, {v, 0});
    int64_t b = 0;
    for (const Term& t : bit1.terms) b += t.coeff * vals[t.wire];
    EXPECT_EQ(b, (v >> 1) & 1);
  }
}

// Every unit's IR equals the machine's unit on random and edge operands.
class UnitIr : public ::testing::TestWithParam<UnitCase> {};

TEST_P(UnitIr, EqualsTheMachineUnits) {
  const UnitCase& uc = GetParam();
  Unit u = uc.build();
  std::mt19937_64 rng(12345);
  // QGPU_UNIT_IR_SAMPLES raises the count for long runs (default 20,000 x 4 lanes).
  const char* env = std::getenv("QGPU_UNIT_IR_SAMPLES");
  const int samples = env ? std::atoi(env) : 20000;
  for (int s = 0; s < samples; ++s) {
    UnitSample smp = uc.sample(u, rng, s);
    std::vector<int64_t> out = evaluateOutputs(u.circuit, smp.inputs);
    ASSERT_EQ(out, smp.expected) << uc.name << " sample " << s << ": " << smp.describe;
  }
}

INSTANTIATE_TEST_SUITE_P(Units, UnitIr, ::testing::ValuesIn(unitCases()),
                         [](const ::testing::TestParamInfo<UnitCase>& i) { return i.param.name; });

}  // namespace
}  // namespace qgpu::compiler
