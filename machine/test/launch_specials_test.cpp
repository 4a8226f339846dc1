// Lowering for a known launch shape (docs/machine.md §2.1, "special registers"): %tid and
// %ctaid components computed from the linear thread and block index, the launch's sizes as
// ROM constants, so that the program reads only the specials the compiled machine has as
// wiring. Checked against the interpreter and the unspecialised lowering on shapes that take
// every path (identity, zero, shift and mask, multiply by a reciprocal).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "machine_test_util.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine::test {
namespace {

// Each thread writes its 12 launch specials at 12 * (its global linear index).
const char* kSpecials = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_out)
{
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [k_out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ctaid.y;
  mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x;
  mov.u32 %r11, %nctaid.y;
  mov.u32 %r12, %nctaid.z;
  mad.lo.u32 %r13, %r3, %r5, %r2;
  mad.lo.u32 %r13, %r13, %r4, %r1;
  mad.lo.u32 %r14, %r9, %r11, %r8;
  mad.lo.u32 %r14, %r14, %r10, %r7;
  mul.lo.u32 %r15, %r4, %r5;
  mul.lo.u32 %r15, %r15, %r6;
  mad.lo.u32 %r16, %r14, %r15, %r13;
  mul.lo.u32 %r16, %r16, 12;
  mul.wide.u32 %rd3, %r16, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.u32 [%rd4], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd4+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd4+32], {%r9, %r10, %r11, %r12};
  ret;
}
)";

struct Shape {
  Dim3 grid, block;
};

std::string describe(const Shape& s) {
  return fmt::format("grid ({},{},{}) block ({},{},{})", s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y,
                     s.block.z);
}

Launch launchOf(const Shape& s) {
  Launch l;
  l.grid = s.grid;
  l.block = s.block;
  l.buffers = {{"out", std::vector<uint8_t>(4 * 12 * s.grid.count() * s.block.count())}};
  l.args = {bufferArg(0)};
  return l;
}

bool readsSpecial(const MachineProgram& p, MSpecial s) {
  const uint16_t o = specialOperand(s);
  for (const MInstr& in : p.code)
    for (uint32_t f = 1; f < 4; ++f) {
      const uint16_t field = f == 1 ? in.a : f == 2 ? in.b : in.c;
      if (isOperandField(in.op, f) && field == o) return true;
    }
  return false;
}

TEST(LaunchSpecials, EveryComponentEqualsTheInterpreters) {
  const Shape shapes[] = {
      {{1, 1, 1}, {32, 1, 1}},   // 1-D: tid.x is the linear index, the rest zero
      {{3, 2, 1}, {10, 10, 1}},  // not powers of two: multiply by the reciprocal
      {{2, 3, 2}, {4, 2, 2}},    // powers of two: shifts and masks, three axes
      {{2, 2, 1}, {3, 5, 7}},    // three odd axes (105 threads, a partial last warp)
      {{5, 1, 3}, {6, 1, 1}},    // a 1-D block in a grid with a unit middle axis
  };
  for (const Shape& s : shapes) {
    SCOPED_TRACE(describe(s));
    BothResult r = runBoth(kSpecials, "k", launchOf(s));
    EXPECT_EQ(r.oracle, r.machine);
    EXPECT_EQ(r.oracle, r.replayed);
    BothResult plain = runBoth(kSpecials, "k", launchOf(s), /*forLaunch=*/false);
    EXPECT_EQ(plain.machine, r.machine);
    // Only the wiring specials are read: the components and sizes are gone.
    for (MSpecial gone : {MSpecial::TidX, MSpecial::TidY, MSpecial::TidZ, MSpecial::NtidX, MSpecial::NtidY,
                          MSpecial::NtidZ, MSpecial::CtaidX, MSpecial::CtaidY, MSpecial::CtaidZ, MSpecial::NctaidX,
                          MSpecial::NctaidY, MSpecial::NctaidZ, MSpecial::NWarpId})
      EXPECT_FALSE(readsSpecial(r.program, gone)) << specialName(gone);
    EXPECT_TRUE(readsSpecial(plain.program, MSpecial::TidX));
  }
}

TEST(LaunchSpecials, OneDimensionalLaunchesCostNoSteps) {
  // tid.x and ctaid.x are the linear indices themselves; y and z read zero.
  BothResult r = runBoth(kSpecials, "k", launchOf({{3, 1, 1}, {8, 1, 1}}));
  BothResult plain = runBoth(kSpecials, "k", launchOf({{3, 1, 1}, {8, 1, 1}}), false);
  EXPECT_EQ(r.program.code.size(), plain.program.code.size());
  EXPECT_EQ(r.trace.tokens.size(), plain.trace.tokens.size());
  EXPECT_TRUE(readsSpecial(r.program, MSpecial::ThreadIndex));
  EXPECT_TRUE(readsSpecial(r.program, MSpecial::BlockIndex));
}

}  // namespace
}  // namespace qgpu::machine::test
