// The lane-serial float step (float_lane.h) joined on the operand select and the front end,
// fed nothing but each token's features, against the reference executor: at each position of
// every FADD, FSUB (f32), FMUL and FFMA step (one per active lane, in lane order), the result
// of that lane as machine::computeLane gives it for the operands the executor reads; then the
// weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <array>
#include <bit>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "corpus_runs.h"
#include "qgpu/compiler/float_lane.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/machine/control.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

struct FloatStream {
  Stream stream;
  std::vector<std::optional<uint32_t>> want;  // per position: the lane's result
  std::map<machine::MOp, size_t> lanes;      // lane results checked, by op
};

FloatStream floatStream(const CorpusRun& r) {
  StepStream ss = stepStream(r);
  FloatStream fs{std::move(ss.stream), {}, {}};
  fs.want.resize(fs.stream.positions.size());
  for (size_t p = 0; p < ss.steps.size(); ++p) {
    if (!ss.steps[p]) continue;
    const ComputedStep& step = *ss.steps[p];
    const machine::MInstr& in = step.in;
    if (!floatLaneComputes(in)) continue;
    const uint32_t active = machine::guardedMask(step.state->mask, in.g != machine::kNoGuard,
                                                 (in.g & machine::kGuardNegated) != 0, step.predicates);
    size_t at = p;
    for (uint32_t l = 0; l < 4; ++l) {
      if (!((active >> l) & 1)) continue;
      if (at >= fs.want.size()) break;
      fs.want[at++] = static_cast<uint32_t>(
          machine::computeLane(in, step.operand[0][l], step.operand[1][l], step.operand[2][l]) & 0xffffffffu);
      ++fs.lanes[in.op];
    }
  }
  return fs;
}

TEST(LaneSerialFloat, TheIrComputesEveryLaneOfEveryFmulAndFfma) {
  Unit u = laneSerialFloatUnit();
  size_t runs = 0;
  std::map<machine::MOp, size_t> lanes;
  for (const CorpusRun& r : corpusRuns()) {
    const FloatStream fs = floatStream(r);
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < fs.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(fs.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kLaneSerialFloatOutputs);
      if (!fs.want[p]) continue;
      uint32_t v = 0;
      for (uint32_t i = 0; i < 32; ++i) v |= static_cast<uint32_t>(got[i]) << i;
      ASSERT_EQ(v, *fs.want[p]) << "IR at " << fs.stream.positions[p].describe
                                << fmt::format(": got {:#010x}, want {:#010x}", v, *fs.want[p]);
    }
    ++runs;
    for (const auto& [op, n] : fs.lanes) lanes[op] += n;
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  EXPECT_GT(lanes[machine::MOp::FAdd], 1000u);
  EXPECT_GT(lanes[machine::MOp::FSub], 0u);
  EXPECT_GT(lanes[machine::MOp::FMul], 1000u);
  EXPECT_GT(lanes[machine::MOp::FFma], 1000u);
  // The compare family (lane-serial too): the corpus' MIN, MAX, FNEG and FABS lanes.
  EXPECT_GT(lanes[machine::MOp::Min], 10u);
  EXPECT_GT(lanes[machine::MOp::Max], 10u);
  EXPECT_GT(lanes[machine::MOp::FNeg], 0u);
  EXPECT_GT(lanes[machine::MOp::FAbs], 0u);
  EXPECT_GT(lanes[machine::MOp::FSetp], 10u);
  EXPECT_GT(lanes[machine::MOp::I2F], 10u);
  EXPECT_GT(lanes[machine::MOp::Bfe], 10u);
  for (machine::MOp o : {machine::MOp::Popc, machine::MOp::Clz, machine::MOp::Bfind, machine::MOp::Brev})
    EXPECT_GT(lanes[o], 0u) << machine::opName(o);
  RecordProperty("fadd_lanes", static_cast<int>(lanes[machine::MOp::FAdd]));
  RecordProperty("fsub_lanes", static_cast<int>(lanes[machine::MOp::FSub]));
  RecordProperty("fmul_lanes", static_cast<int>(lanes[machine::MOp::FMul]));
  RecordProperty("ffma_lanes", static_cast<int>(lanes[machine::MOp::FFma]));
  std::cout << "[ float ] " << runs << " runs: " << lanes[machine::MOp::FAdd] << " FADD, " << lanes[machine::MOp::FSub]
            << " FSUB, " << lanes[machine::MOp::FMul] << " FMUL and " << lanes[machine::MOp::FFma]
            << " FFMA lane results, one per position; of the compare family " << lanes[machine::MOp::Min] << " MIN, "
            << lanes[machine::MOp::Max] << " MAX, " << lanes[machine::MOp::FNeg] << " FNEG, "
            << lanes[machine::MOp::FAbs] << " FABS, " << lanes[machine::MOp::FSetp] << " FSETP, "
            << lanes[machine::MOp::FMin] << " FMIN, " << lanes[machine::MOp::FMax] << " FMAX; " << lanes[machine::MOp::I2F]
            << " I2F; " << lanes[machine::MOp::Bfe] << " BFE, " << lanes[machine::MOp::Popc] << " POPC, "
            << lanes[machine::MOp::Clz] << " CLZ, " << lanes[machine::MOp::Bfind] << " BFIND, " << lanes[machine::MOp::Brev]
            << " BREV\n";
}
// One lane-serial circuit in the exact evaluator, as the unit tests below build it: the
// word's bits up to fl's (inputs first), one selector bit per op, the operands a (and b, c:
// `operands` of them); the caller's 32 result forms as the outputs. lane() evaluates one
// assignment: ty's bit 2 (the signedness), fl's four bits, which selector is on, the operands.
class LaneRig {
 public:
  LaneRig(const std::string& name, const std::vector<machine::MOp>& ops, uint32_t operands = 1) : c_(name), ops_(ops) {
    for (uint32_t i = 0; i < machine::kWordFlAt + 4; ++i) word.push_back(c_.inputBit(fmt::format("word[{}]", i)));
    for (machine::MOp o : ops) selectors.push_back(w(c_.inputBit(machine::opName(o))));
    a = c_.inputBus("a", 32);
    if (operands >= 2) b = c_.inputBus("b", 32);
    if (operands >= 3) c = c_.inputBus("c", 32);
  }
  Circuit& circuit() { return c_; }
  void outputs(const std::vector<Expr>& result) {
    Bus out;
    for (const Expr& e : result) out.push_back(c_.exclusiveOr(fmt::format("result[{}]", out.size()), e));
    c_.outputBus("result", out);
    ev_.emplace(c_);
  }
  /// The circuit's result with `on` the selected op (none if std::nullopt).
  uint32_t lane(std::optional<machine::MOp> on, uint8_t ty, uint8_t fl, uint32_t x, uint32_t y = 0, uint32_t z = 0) {
    return static_cast<uint32_t>(lane64(on, ty, fl, x, y, z));
  }
  /// The same, every output bit (up to 64: F2D's).
  uint64_t lane64(std::optional<machine::MOp> on, uint8_t ty, uint8_t fl, uint32_t x, uint32_t y = 0, uint32_t z = 0) {
    std::vector<int64_t> in(machine::kWordFlAt + 4, 0);
    in[machine::kWordTyAt + 2] = (ty >> 2) & 1;
    for (uint32_t k = 0; k < 4; ++k) in[machine::kWordFlAt + k] = (fl >> k) & 1;
    for (machine::MOp o : ops_) in.push_back(on == o);
    for (uint32_t i = 0; i < 32; ++i) in.push_back((x >> i) & 1);
    for (uint32_t i = 0; i < b.size(); ++i) in.push_back((y >> i) & 1);
    for (uint32_t i = 0; i < c.size(); ++i) in.push_back((z >> i) & 1);
    const std::vector<int64_t> got = ev_->stepOutputs(in);
    uint64_t v = 0;
    for (size_t i = 0; i < got.size() && i < 64; ++i) v |= static_cast<uint64_t>(got[i]) << i;
    return v;
  }

  Bus word, a, b, c;
  std::vector<Expr> selectors;

 private:
  Circuit c_;
  std::vector<machine::MOp> ops_;
  std::optional<Evaluator> ev_;
};

/// The executor's lane result (machine::computeLane) of `op` with ty, fl and the c field.
uint32_t executorLane(machine::MOp op, uint8_t ty, uint8_t fl, uint32_t x, uint32_t y = 0, uint8_t cField = 0,
                      uint32_t z = 0) {
  machine::MInstr mi;
  mi.op = op;
  mi.ty = ty;
  mi.fl = fl;
  mi.c = cField;
  return static_cast<uint32_t>(machine::computeLane(mi, x, y, z));
}

// The compare family alone (buildLaneSerialCompare) in the exact evaluator against
// machine::computeLane: MIN and MAX signed and unsigned, FNEG, FABS, FMIN and FMAX with and
// without .ftz, FSETP with each of its 14 codes, on every pair of 24 edge values (zeros,
// extremes, infinities, NaNs, subnormals, the smallest normals) and 225,000 random pairs,
// 100,000 of them equal but for one byte so that the chunk compares meet equal chunks, 25,000
// of zeros and subnormals (where .ftz's flushed operands tie).
TEST(LaneSerialFloat, TheCompareFamilyEqualsTheExecutorsUnits) {
  using machine::MOp;
  const std::vector<MOp> ops = {MOp::Min, MOp::Max, MOp::FNeg, MOp::FAbs, MOp::FMin, MOp::FMax, MOp::FSetp};
  LaneRig rig("compare", ops, 2);
  const std::vector<Expr>& is = rig.selectors;
  rig.outputs(buildLaneSerialCompare(rig.circuit(), rig.word, rig.a, rig.b, {is[0], is[1], is[2], is[3], is[4], is[5], is[6]}));
  std::map<MOp, size_t> checked;
  auto run = [&](MOp op, uint8_t ty, uint8_t fl, uint32_t x, uint32_t y) {
    const uint32_t v = rig.lane(op, ty, fl, x, y), want = executorLane(op, ty, fl, x, y);
    ++checked[op];
    ASSERT_EQ(v, want) << fmt::format("{} ty {} fl {}: a {:#010x} b {:#010x}: got {:#010x}", machine::opName(op), ty, fl, x,
                                      y, v);
  };
  auto all = [&](uint32_t x, uint32_t y) {
    for (uint8_t ty : {uint8_t{2}, uint8_t{6}}) {
      run(MOp::Min, ty, 0, x, y);
      run(MOp::Max, ty, 0, x, y);
    }
    for (uint8_t fl : {uint8_t{0}, machine::kFlFtz}) {
      run(MOp::FNeg, 2, fl, x, y);
      run(MOp::FAbs, 2, fl, x, y);
      run(MOp::FMin, 2, fl, x, y);
      run(MOp::FMax, 2, fl, x, y);
    }
    for (uint8_t code = 0; code < 14; ++code) run(MOp::FSetp, 2, code, x, y);
  };
  const uint32_t edges[] = {0,          1,          2,          0x7f,       0x80,       0xff,
                            0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0x7f800000, 0xff800000,
                            0x7fc00000, 0x7f800001, 0xffc00001, 0x007fffff, 0x807fffff, 0x00800000,
                            0x80800000, 0x3f800000, 0xbf800000, 0x00010000, 0x01000000, 0xfeffffff};
  for (uint32_t x : edges)
    for (uint32_t y : edges) all(x, y);
  std::mt19937 gen(7);
  auto rng = [&] { return static_cast<uint32_t>(gen()); };
  for (int i = 0; i < 100'000; ++i) {
    const uint32_t x = rng();
    all(x, rng());
    const uint32_t byte = (rng() % 4) * 8;
    all(x, (x & ~(0xffu << byte)) | ((rng() & 0xffu) << byte));
    if (i % 4 == 0) all(x & 0x807fffffu, rng() & 0x807fffffu);  // zeros and subnormals (.ftz's ties)
  }
  for (MOp o : ops) EXPECT_GE(checked[o], 200'000u) << machine::opName(o);
}

// I2F (buildLaneSerialI2F) in the exact evaluator against machine::computeLane: s32 and u32
// sources in the four rounding modes, on the integers next to every power of two (where the
// leading one, the guard and the sticky bit change), ties and near-ties of every magnitude,
// and 250,000 random values.
TEST(LaneSerialFloat, IntToFloatEqualsTheExecutorsConversion) {
  using machine::MOp;
  LaneRig rig("i2f", {MOp::I2F});
  rig.outputs(buildLaneSerialI2F(rig.circuit(), rig.word, rig.a, rig.selectors[0]));
  size_t checked = 0;
  auto run = [&](uint8_t ty, uint8_t mode, uint32_t x, bool on) {
    const uint32_t v = rig.lane(on ? std::optional(MOp::I2F) : std::nullopt, ty, mode, x);
    const uint32_t want = on ? executorLane(MOp::I2F, ty, mode, x) : 0;
    ++checked;
    ASSERT_EQ(v, want) << fmt::format("I2F ty {} mode {}{}: a {:#010x}: got {:#010x}", ty, mode, on ? "" : " (not I2F)",
                                      x, v);
  };
  auto all = [&](uint32_t x) {
    for (uint8_t ty : {uint8_t{2}, uint8_t{6}})
      for (uint8_t mode = 0; mode < 4; ++mode) run(ty, mode, x, true);
  };
  for (uint32_t p = 0; p < 32; ++p)
    for (int64_t d = -3; d <= 3; ++d) {
      all(static_cast<uint32_t>((int64_t{1} << p) + d));
      all(static_cast<uint32_t>(-((int64_t{1} << p) + d)));
    }
  for (uint32_t p = 25; p < 32; ++p)  // ties and near-ties: the guard bit alone, with the lsb, with sticky
    for (uint32_t lsb : {0u, 1u})
      for (uint32_t sticky : {0u, 1u}) {
        const uint32_t shift = p - 24;
        const uint32_t x = (1u << p) | (lsb << (shift + 1)) | (1u << shift) | (sticky ? 1u : 0u);
        all(x);
        all(static_cast<uint32_t>(-static_cast<int64_t>(x)));
      }
  std::mt19937 gen(11);
  for (int i = 0; i < 250'000; ++i) {
    const uint32_t x = static_cast<uint32_t>(gen()) >> (gen() % 32);
    all(x);
    all(static_cast<uint32_t>(-static_cast<int64_t>(x)));
  }
  for (uint32_t x : {0u, 1u, 0x80000000u, 0xffffffffu, 0x12345678u}) run(6, 0, x, false);  // another op: 0
  EXPECT_GT(checked, 4'000'000u);
}

// F2I (buildLaneSerialF2I) in the exact evaluator against machine::computeLane: f32 to s32
// and u32 in the four rounding modes, with and without .ftz, on every exponent with edge
// mantissas (both signs: zeros, subnormals, 1/2, the saturation edges, inf, NaN), the values
// next to every k + 1/2, and 250,000 random floats around the integer range.
TEST(LaneSerialFloat, FloatToIntEqualsTheExecutorsConversion) {
  using machine::MOp;
  LaneRig rig("f2i", {MOp::F2I});
  rig.outputs(buildLaneSerialF2I(rig.circuit(), rig.word, rig.a, rig.selectors[0]));
  size_t checked = 0;
  auto run = [&](uint8_t ty, uint8_t fl, uint32_t x, bool on) {
    const uint32_t v = rig.lane(on ? std::optional(MOp::F2I) : std::nullopt, ty, fl, x);
    const uint32_t want = on ? executorLane(MOp::F2I, ty, fl, x, 0, 2) : 0;  // c = 2: a 4-byte register
    ++checked;
    ASSERT_EQ(v, want) << fmt::format("F2I ty {} fl {}{}: a {:#010x} ({}): got {:#010x}", ty, fl, on ? "" : " (not F2I)", x,
                                      std::bit_cast<float>(x), v);
  };
  auto all = [&](uint32_t x) {
    for (uint8_t ty : {uint8_t{2}, uint8_t{6}})
      for (uint8_t fl = 0; fl < 8; ++fl) run(ty, fl, x, true);
  };
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 2u, 0x3fffffu, 0x400000u, 0x400001u, 0x7fffffu, 0x555555u})
      for (uint32_t sign : {0u, 1u}) all(sign << 31 | e << 23 | m);
  for (int64_t k = -70; k <= 70; ++k)  // k + 1/2 and its neighbours: ties and near-ties
    for (int d = -2; d <= 2; ++d) all(std::bit_cast<uint32_t>(std::bit_cast<float>(std::bit_cast<uint32_t>(static_cast<float>(k) + 0.5f) + d)));
  for (float f : {2147483520.0f, 2147483648.0f, 4294967040.0f, 4294967296.0f, -2147483648.0f, -2147483904.0f, 8388607.5f, 16777215.0f})
    all(std::bit_cast<uint32_t>(f));
  std::mt19937 gen(12);
  for (int i = 0; i < 250'000; ++i) {
    const uint32_t e = 100 + static_cast<uint32_t>(gen() % 70);  // |a| from 2^-27 to 2^42
    all((static_cast<uint32_t>(gen()) & 0x807fffffu) | e << 23);
  }
  for (uint32_t x : {0u, 0x3f800000u, 0xbfc00000u, 0x7f800000u, 0x4f000000u}) run(6, 0, x, false);  // another op: 0
  EXPECT_GT(checked, 4'000'000u);
}

// F2D (float_to_double.cpp) in the exact evaluator against machine::computeLane, all 64
// bits, with and without .ftz: every exponent with edge mantissas and both signs, every
// subnormal's leading place with ones, alternating bits and a single bit below it, and
// 300,000 random f32s (a quarter of them subnormal).
TEST(LaneSerialFloat, FloatToDoubleEqualsTheExecutorsConversion) {
  using machine::MOp;
  LaneRig rig("f2d", {MOp::F2D});
  rig.outputs(buildLaneSerialF2D(rig.circuit(), rig.word, rig.a, rig.selectors[0]));
  size_t checked = 0;
  auto run = [&](uint8_t fl, uint32_t x, bool on) {
    const uint64_t v = rig.lane64(on ? std::optional(MOp::F2D) : std::nullopt, 2, fl, x);
    machine::MInstr mi;
    mi.op = MOp::F2D;
    mi.ty = 2;
    mi.fl = fl;
    const uint64_t want = on ? machine::computeLane(mi, x, 0, 0) : 0;
    ++checked;
    ASSERT_EQ(v, want) << fmt::format("F2D fl {}{}: a {:#010x} ({}): got {:#018x}", fl, on ? "" : " (not F2D)", x,
                                      std::bit_cast<float>(x), v);
  };
  auto both = [&](uint32_t x) {
    for (uint8_t fl : {uint8_t{0}, uint8_t{1}}) run(fl, x, true);
  };
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 2u, 7u, 8u, 0x3fffffu, 0x400000u, 0x400001u, 0x7ffff8u, 0x7fffffu, 0x555555u})
      for (uint32_t sign : {0u, 1u}) both(sign << 31 | e << 23 | m);
  for (uint32_t p = 0; p < 23; ++p)
    for (uint32_t below : {0u, ~0u, 0x55555555u, 0xaaaaaaaau, 1u})
      for (uint32_t sign : {0u, 1u}) both(sign << 31 | 1u << p | (below & ((1u << p) - 1)));
  std::mt19937 gen(13);
  for (int i = 0; i < 300'000; ++i) {
    const uint32_t x = static_cast<uint32_t>(gen());
    both(i % 4 == 0 ? x & 0x807fffffu : x);
  }
  for (uint32_t x : {0u, 0x3f800000u, 0x00000001u, 0x7f800000u, 0x7fc00000u}) run(0, x, false);  // another op: 0
  EXPECT_GT(checked, 600'000u);
}

// BFE (bit_field.cpp) in the exact evaluator against machine::computeLane: u32 and s32 on
// every pos and len below 72 (past the word, the clamps) and the byte's top values, for
// values with the sign bit set and clear and alternating bits; then 400,000 random
// operands whose pos and len are any byte (the upper bytes of b and c ignored).
TEST(LaneSerialFloat, BitFieldExtractEqualsTheExecutorsUnit) {
  using machine::MOp;
  LaneRig rig("bfe", {MOp::Bfe}, 3);
  rig.outputs(buildLaneSerialBfe(rig.circuit(), rig.word, rig.a, rig.b, rig.c, rig.selectors[0]));
  size_t checked = 0;
  auto run = [&](uint8_t ty, uint32_t x, uint32_t y, uint32_t z, bool on) {
    const uint32_t v = rig.lane(on ? std::optional(MOp::Bfe) : std::nullopt, ty, 0, x, y, z);
    const uint32_t want = on ? executorLane(MOp::Bfe, ty, 0, x, y, 0, z) : 0;
    ++checked;
    ASSERT_EQ(v, want) << fmt::format("BFE ty {}{}: a {:#010x} pos {} len {} (b {:#x}, c {:#x}): got {:#010x}", ty,
                                      on ? "" : " (not BFE)", x, y & 0xff, z & 0xff, y, z, v);
  };
  std::vector<uint32_t> positions;
  for (uint32_t p = 0; p < 72; ++p) positions.push_back(p);
  for (uint32_t p : {127u, 128u, 200u, 254u, 255u}) positions.push_back(p);
  for (uint32_t x : {0u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xaaaaaaaau, 0x5555aaa5u, 0x12345678u, 0xfedcba98u})
    for (uint32_t p : positions)
      for (uint32_t l : positions)
        for (uint8_t ty : {uint8_t{2}, uint8_t{6}}) run(ty, x, p, l, true);
  std::mt19937 gen(14);
  for (int i = 0; i < 200'000; ++i) {
    const uint32_t x = static_cast<uint32_t>(gen()), y = static_cast<uint32_t>(gen()), z = static_cast<uint32_t>(gen());
    for (uint8_t ty : {uint8_t{2}, uint8_t{6}}) run(ty, x, y, z, true);
  }
  for (uint32_t x : {0xffffffffu, 0x80000000u}) run(6, x, 0, 8, false);  // another op: 0
  EXPECT_GT(checked, 480'000u);
}

// POPC, CLZ, BFIND (u32, s32, with and without .shiftamt) and BREV (bit_count.cpp) in the
// exact evaluator against machine::computeLane: 0, -1, every value with one or two bits set,
// their complements, every leading-one position with random bits below, and 200,000 random
// values; 0 where another op runs.
TEST(LaneSerialFloat, BitCountsEqualTheExecutorsUnits) {
  using machine::MOp;
  const std::vector<MOp> ops = {MOp::Popc, MOp::Clz, MOp::Bfind, MOp::Brev};
  LaneRig rig("bit counts", ops);
  const std::vector<Expr>& is = rig.selectors;
  rig.outputs(buildLaneSerialBitCounts(rig.circuit(), rig.word, rig.a, {is[0], is[1], is[2], is[3]}));
  std::map<MOp, size_t> checked;
  auto run = [&](MOp op, uint8_t ty, uint8_t fl, uint32_t x) {
    const uint32_t v = rig.lane(op, ty, fl, x), want = executorLane(op, ty, fl, x);
    ++checked[op];
    ASSERT_EQ(v, want) << fmt::format("{} ty {} fl {}: a {:#010x}: got {:#010x}", machine::opName(op), ty, fl, x, v);
  };
  auto all = [&](uint32_t x) {
    run(MOp::Popc, 2, 0, x);
    run(MOp::Clz, 2, 0, x);
    run(MOp::Brev, 2, 0, x);
    for (uint8_t ty : {uint8_t{2}, uint8_t{6}})
      for (uint8_t fl : {uint8_t{0}, uint8_t{1}}) run(MOp::Bfind, ty, fl, x);
  };
  all(0);
  all(0xffffffffu);
  for (uint32_t i = 0; i < 32; ++i)
    for (uint32_t j = i; j < 32; ++j) {
      all((1u << i) | (1u << j));
      all(~((1u << i) | (1u << j)));
    }
  std::mt19937 gen(15);
  for (uint32_t p = 0; p < 32; ++p)
    for (int k = 0; k < 64; ++k) {
      const uint32_t below = p == 0 ? 0 : static_cast<uint32_t>(gen()) & ((1u << p) - 1);
      all((1u << p) | below);
      all(~((1u << p) | below));
    }
  for (int i = 0; i < 200'000; ++i) all(static_cast<uint32_t>(gen()));
  for (uint32_t x : {0u, 0xffffffffu, 0x80000000u}) EXPECT_EQ(rig.lane(std::nullopt, 6, 1, x), 0u) << x;  // no op: 0
  for (MOp o : ops) EXPECT_GE(checked[o], 200'000u) << machine::opName(o);
}

// H2F and F2H (half_float.cpp) in the exact evaluator against machine::computeLane: every
// f16 to f32; f32 to f16 in the four modes with and without .ftz on every exponent with edge
// mantissas and both signs, the neighbours of every f16's rounding boundary (ties and
// near-ties, normal and subnormal), and 250,000 random floats around the f16 range.
TEST(LaneSerialFloat, HalfConversionsEqualTheExecutorsConversions) {
  using machine::MOp;
  LaneRig rig("half", {MOp::H2F, MOp::F2H});
  Circuit& c = rig.circuit();
  std::array<Expr, 4> rounding;  // the one-hot over fl bits 2-3, as the datapath's
  for (uint32_t v = 0; v < 4; ++v)
    rounding[v] = w(c.step(fmt::format("rounding {}", v),
                           bitsMatching(Bus{rig.word[machine::kWordFlAt + 2], rig.word[machine::kWordFlAt + 3]}, v) - 2));
  const std::vector<Expr> from = buildLaneSerialH2F(c, rig.a, rig.selectors[0]);
  const std::vector<Expr> to = buildLaneSerialF2H(c, rounding, w(rig.word[machine::kWordFlAt]), rig.a, rig.selectors[1]);
  std::vector<Expr> sum;
  for (uint32_t i = 0; i < 32; ++i) sum.push_back(from[i] + to[i]);
  rig.outputs(sum);
  size_t checked = 0;
  auto run = [&](MOp op, uint8_t fl, uint32_t x, bool on) {
    const uint32_t v = rig.lane(on ? std::optional(op) : std::nullopt, 1, fl, x);  // ty 1: 2 bytes
    const uint32_t want = on ? executorLane(op, 1, fl, x) : 0;
    ++checked;
    ASSERT_EQ(v, want) << fmt::format("{} fl {}{}: a {:#010x}: got {:#010x}", machine::opName(op), fl, on ? "" : " (off)", x, v);
  };
  for (uint32_t h = 0; h < 0x10000; ++h) run(machine::MOp::H2F, 0, h, true);
  auto toHalf = [&](uint32_t x) {
    for (uint8_t mode = 0; mode < 4; ++mode)
      for (uint8_t ftz = 0; ftz < 2; ++ftz) run(machine::MOp::F2H, static_cast<uint8_t>(mode << 2 | ftz), x, true);
  };
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3fffffu, 0x400000u, 0x7fe000u, 0x7fefffu, 0x7ff000u, 0x7fffffu})
      for (uint32_t sign : {0u, 1u}) toHalf(sign << 31 | e << 23 | m);
  auto halfAsFloatBits = [](uint32_t h) {  // the executor's H2F
    machine::MInstr mi;
    mi.op = machine::MOp::H2F;
    mi.ty = 1;
    return static_cast<uint32_t>(machine::computeLane(mi, h, 0, 0));
  };
  for (uint32_t h = 0; h < 0x7c00; h += 7) {  // around each f16's upper rounding boundary
    const uint32_t f = halfAsFloatBits(h), next = halfAsFloatBits(h + 1);
    const uint32_t mid = f + (next - f) / 2;
    for (int d = -1; d <= 1; ++d) {
      toHalf(mid + static_cast<uint32_t>(d));
      toHalf((mid + static_cast<uint32_t>(d)) | 0x80000000u);
    }
  }
  std::mt19937 gen(13);
  for (int i = 0; i < 250'000; ++i) {
    const uint32_t e = 95 + static_cast<uint32_t>(gen() % 55);  // |a| from 2^-32 to 2^22
    const uint32_t x = (static_cast<uint32_t>(gen()) & 0x807fffffu) | e << 23;
    run(machine::MOp::F2H, static_cast<uint8_t>((i % 4) << 2 | (i / 4) % 2), x, true);
  }
  for (uint32_t x : {0u, 0x3c00u, 0x7e00u, 0x3f800000u}) {  // another op: 0
    run(machine::MOp::H2F, 0, x, false);
    run(machine::MOp::F2H, 0, x, false);
  }
  EXPECT_GT(checked, 580'000u);
}

// The weights against the IR at every position and output, the launches of up to 1,500
// positions, at the 2B's hidden size.
TEST(LaneSerialFloat, CompiledThroughTheEngine) {
  Unit u = laneSerialFloatUnit();
  const Proven p = compileAndProve(u, 2048);
  RecordProperty("layers", p.cu.config.numLayers);
  std::cout << "[ float ] " << p.cu.config.numLayers << " layers, hidden " << p.cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, p.cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

}  // namespace
}  // namespace qgpu::compiler
