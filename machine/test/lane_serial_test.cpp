// Lane-serial steps (docs/machine.md §5.2): FADD, FSUB, FMUL and FFMA are computed by one
// one-lane FFMA unit (four lanes' do not fit hidden 2048 beside the rest of the step), the
// compare family and the float conversions beside it on the same lane's operands, so
// their steps take one token position per active lane — a WAIT for each lane but the last,
// then the write — and the replay decoder needs every one of them. FMUL on that unit is FFMA
// with a zero addend, FADD and FSUB FFMA with a factor of 1: checked here on the machine's
// units.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "machine_test_util.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/units.h"

namespace qgpu::machine {
namespace {

size_t countContaining(const Trace& t, const std::string& text) {
  size_t n = 0;
  for (const std::string& m : t.meanings) n += m.find(text) != std::string::npos;
  return n;
}

// Three lanes (tid != 1) run an fma and a mul, all four an add: 2 lane positions for each of
// the fma and the mul, 3 for the f32 add, none for the integer ops.
const char* kPtx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	add.s32 	%r2, %r1, 7;
	cvt.rn.f32.u32 	%f1, %r2;
	mov.f32 	%f2, %f1;
	setp.ne.s32 	%p1, %r1, 1;
	@%p1 fma.rn.f32 	%f2, %f1, %f1, 0f3F800000;
	@%p1 mul.rn.f32 	%f2, %f2, %f1;
	add.rn.f32 	%f2, %f2, %f1;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd2, %rd2, %rd3;
	st.global.f32 	[%rd2], %f2;
	ret;
}
)";

TEST(MachineLaneSerial, FloatStepsTakeOnePositionPerActiveLane) {
  test::BothResult r = test::runBoth(kPtx, "k", test::oneBufferLaunch(4, 4));
  EXPECT_EQ(r.machine, r.oracle);
  EXPECT_EQ(r.replayed, r.machine);
  // The FFMA step's tokens in order: two lane positions, ACTIVE (the guard is off in lane 1)
  // right before the write, then the write.
  std::vector<std::string> ffma;
  for (const std::string& m : r.trace.meanings)
    if (m.find("FFMA") != std::string::npos) ffma.push_back(m);
  ASSERT_GE(ffma.size(), 4u);
  EXPECT_NE(ffma[0].find("WAIT (float lane 1/3"), std::string::npos) << ffma[0];
  EXPECT_NE(ffma[1].find("WAIT (float lane 2/3"), std::string::npos) << ffma[1];
  EXPECT_NE(ffma[2].find("ACTIVE lanes 0xd"), std::string::npos) << ffma[2];
  EXPECT_NE(ffma[3].find("write"), std::string::npos) << ffma[3];
  EXPECT_EQ(countContaining(r.trace, "float lane 1/3"), 2u);  // the fma and the mul
  EXPECT_EQ(countContaining(r.trace, "float lane 2/3"), 2u);
  EXPECT_EQ(countContaining(r.trace, "float lane 3/3"), 0u);  // the last lane's position spells the write
  EXPECT_EQ(countContaining(r.trace, "float lane 3/4"), 2u);  // the add and the cvt (I2F), four lanes each
  EXPECT_EQ(countContaining(r.trace, "float lane 4/"), 0u);
  EXPECT_EQ(countContaining(r.trace, "float lane"), 10u);      // not the integer add or mul.wide
}

TEST(MachineLaneSerial, OnlyTheFloatCompareConversionAndBitOpsAreLaneSerial) {
  for (size_t i = 0; i < static_cast<size_t>(MOp::Count); ++i) {
    const MOp op = static_cast<MOp>(i);
    const bool serial = op == MOp::FAdd || op == MOp::FSub || op == MOp::FMul || op == MOp::FFma || op == MOp::Min ||
                        op == MOp::Max || op == MOp::FMin || op == MOp::FMax || op == MOp::FNeg || op == MOp::FAbs ||
                        op == MOp::FSetp || op == MOp::I2F || op == MOp::F2I || op == MOp::H2F || op == MOp::F2H ||
                        op == MOp::F2D || op == MOp::D2F || op == MOp::FRndI || op == MOp::Bfe ||
                        op == MOp::Popc || op == MOp::Clz || op == MOp::Bfind || op == MOp::Brev;
    EXPECT_EQ(opInfo(op).exec == MExec::LaneSerial, serial) << opName(op);
  }
}

// The dot product's FMUL runs in three lanes, saxpy's FFMA in four: dropping a lane position
// is refused.
TEST(MachineLaneSerial, ReplayNeedsEveryLanePosition) {
  test::expectReplayNeeds("dot", "float lane 2/3");
  test::expectReplayNeeds("saxpy", "float lane 2/4");
}

// Every f32 mode (fl: ftz bit 0, sat bit 1, rounding bits 2-3) on the edge operand pairs and
// 2^16 random ones per mode: `check(fl, a, b)` asserts; returns how many pairs it checked.
template <class Check>
uint64_t forEveryModeAndOperandPair(uint32_t seed, Check&& check) {
  const uint32_t edges[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000, 0xbf800000,
                            0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc12345,
                            0x3f000000, 0x1f800000, 0x5f800000, 0x20000000, 0x00400000, 0x3fffffff};
  std::mt19937 rng(seed);
  uint64_t checked = 0;
  for (uint32_t fl = 0; fl < 16; ++fl) {
    auto one = [&](uint32_t a, uint32_t b) {
      check(fl, a, b);
      ++checked;
    };
    for (uint32_t a : edges)
      for (uint32_t b : edges) one(a, b);
    for (int i = 0; i < (1 << 16); ++i) one(static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()));
  }
  return checked;
}

MInstr f32(MOp op, uint32_t fl) {
  MInstr in;
  in.op = op;
  in.ty = 2;  // 4 bytes
  in.fl = static_cast<uint8_t>(fl);
  return in;
}

// What lets one unit serve both: FMUL(a, b) = FFMA(a, b, z) with z = +0 when rounding down
// (rm: +0 + -0 would be -0) and -0 otherwise (a product of +0 or -0 plus -0 keeps its sign),
// in every rounding mode with ftz and sat, on edge operands and 2^20 random ones.
TEST(MachineLaneSerial, FmulIsFfmaWithASignedZeroAddend) {
  const uint64_t checked = forEveryModeAndOperandPair(20261201, [](uint32_t fl, uint32_t a, uint32_t b) {
    const uint64_t zero = ((fl >> 2) & 3) == 2 ? 0x00000000u : 0x80000000u;  // rm: +0
    ASSERT_EQ(computeLane(f32(MOp::FMul, fl), a, b, 0), computeLane(f32(MOp::FFma, fl), a, b, zero))
        << std::hex << "a " << a << " b " << b << " fl " << fl;
  });
  EXPECT_EQ(checked, 16u * (20 * 20 + (1u << 16)));
}

// FADD(a, b) = FFMA(a, 1, b) and FSUB(a, b) = FFMA(a, 1, -b) (b's sign bit flipped): a·1 is
// exact and keeps a zero's sign, so the one rounding is the sum's — in every rounding mode
// with ftz and sat, on edge operands and 2^16 random ones per mode (a NaN gives the
// canonical NaN either way).
TEST(MachineLaneSerial, FaddAndFsubAreFfmaWithAFactorOfOne) {
  const uint64_t checked = forEveryModeAndOperandPair(20261205, [](uint32_t fl, uint32_t a, uint32_t b) {
    const MInstr fma = f32(MOp::FFma, fl);
    ASSERT_EQ(computeLane(f32(MOp::FAdd, fl), a, b, 0), computeLane(fma, a, 0x3f800000, b))
        << std::hex << "a " << a << " b " << b << " fl " << fl;
    ASSERT_EQ(computeLane(f32(MOp::FSub, fl), a, b, 0), computeLane(fma, a, 0x3f800000, b ^ 0x80000000u))
        << std::hex << "a " << a << " b " << b << " fl " << fl;
  });
  EXPECT_EQ(checked, 16u * (20 * 20 + (1u << 16)));
}

}  // namespace
}  // namespace qgpu::machine
