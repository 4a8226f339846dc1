// Per-instruction rows for integer, logic and bit-manipulation semantics.
// Expected values are written from the PTX ISA's definitions (and the test vectors
// of the project's PTX semantics notes, which are not in this repository), not from
// the interpreter.
#include <gtest/gtest.h>

#include "qgpu/interp/isa.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test::evalPred;
using test::evalU32;
using test::evalU64;

TEST(IntegerOps, AddSubWrapAndSaturate) {
  EXPECT_EQ(evalU32("add.u32 %r4, %r1, %r2;", 0xffffffffu, 2), 1u);
  EXPECT_EQ(evalU32("sub.s32 %r4, %r1, %r2;", 0, 1), 0xffffffffu);
  EXPECT_EQ(evalU32("add.sat.s32 %r4, %r1, %r2;", 0x7fffffff, 1), 0x7fffffffu);
  EXPECT_EQ(evalU32("add.sat.s32 %r4, %r1, %r2;", 0x80000000u, 0xffffffffu), 0x80000000u);
  EXPECT_EQ(evalU32("sub.sat.s32 %r4, %r1, %r2;", 0x80000000u, 1), 0x80000000u);
  EXPECT_EQ(evalU32("add.u16 %rs4, %rs1, %rs2; cvt.u32.u16 %r4, %rs4;", 0xffff, 1), 0u);
  // destination equal to a source
  EXPECT_EQ(evalU32("add.s32 %r1, %r1, %r1; mov.u32 %r4, %r1;", 21), 42u);
}

TEST(IntegerOps, MultiplyForms) {
  EXPECT_EQ(evalU32("mul.lo.s32 %r4, %r1, %r2;", 0x10000, 0x10001), 0x10000u);
  EXPECT_EQ(evalU32("mul.hi.u32 %r4, %r1, %r2;", 0xffffffffu, 0xffffffffu), 0xfffffffeu);
  EXPECT_EQ(evalU32("mul.hi.s32 %r4, %r1, %r2;", 0xffffffffu, 0xffffffffu), 0u);  // (-1)*(-1) = 1
  EXPECT_EQ(evalU64("mul.wide.s32 %rd4, %r1, %r2;", 0xffffffffu, 3), 0xfffffffffffffffdull);
  EXPECT_EQ(evalU64("mul.wide.u32 %rd4, %r1, %r2;", 0xffffffffu, 3), 0x2fffffffdull);
  EXPECT_EQ(evalU64("mul.hi.u64 %rd4, %rd1, %rd2;", ~0ull, ~0ull), 0xfffffffffffffffeull);
  EXPECT_EQ(evalU64("mul.hi.s64 %rd4, %rd1, %rd2;", 0x8000000000000000ull, 2), ~0ull);
  EXPECT_EQ(evalU32("mad.lo.s32 %r4, %r1, %r2, %r3;", 1664525, 7, 1013904223), 1664525u * 7u + 1013904223u);
  EXPECT_EQ(evalU64("mad.wide.u32 %rd4, %r1, %r2, %rd3;", 0x80000000u, 4, 5), 0x200000005ull);
  EXPECT_EQ(evalU32("mad.hi.sat.s32 %r4, %r1, %r2, %r3;", 0x7fffffff, 0x7fffffff, 0x7fffffff), 0x7fffffffu);
}

TEST(IntegerOps, Mul24UsesBits47To16ForHi) {
  // 0xffffff (signed: -1) * 2 = -2: low 48 bits 0xfffffffffffe
  EXPECT_EQ(evalU32("mul24.lo.s32 %r4, %r1, %r2;", 0x00ffffff, 2), 0xfffffffeu);
  EXPECT_EQ(evalU32("mul24.hi.u32 %r4, %r1, %r2;", 0x00ffffff, 0x00ffffff), 0xfffffe00u);
  EXPECT_EQ(evalU32("mad24.lo.u32 %r4, %r1, %r2, %r3;", 3, 5, 7), 22u);
}

TEST(IntegerOps, DivisionCornerCases) {
  EXPECT_EQ(evalU32("div.s32 %r4, %r1, %r2;", static_cast<uint32_t>(-7), 2), static_cast<uint32_t>(-3));
  EXPECT_EQ(evalU32("rem.s32 %r4, %r1, %r2;", static_cast<uint32_t>(-7), 2), static_cast<uint32_t>(-1));
  EXPECT_EQ(evalU32("div.u32 %r4, %r1, %r2;", 7, 0), 0xffffffffu);
  EXPECT_EQ(evalU32("div.s32 %r4, %r1, %r2;", 7, 0), 0xffffffffu);
  EXPECT_EQ(evalU32("rem.u32 %r4, %r1, %r2;", 7, 0), 0xffffffffu);
  EXPECT_EQ(evalU32("div.s32 %r4, %r1, %r2;", 0x80000000u, 0xffffffffu), 0x80000000u);
  EXPECT_EQ(evalU32("rem.s32 %r4, %r1, %r2;", 0x80000000u, 0xffffffffu), 0u);
  EXPECT_EQ(evalU64("div.u64 %rd4, %rd1, %rd2;", 100, 7), 14u);
  EXPECT_EQ(evalU64("rem.s64 %rd4, %rd1, %rd2;", static_cast<uint64_t>(-100), 7), static_cast<uint64_t>(-2));
}

TEST(IntegerOps, AbsNegMinMax) {
  EXPECT_EQ(evalU32("abs.s32 %r4, %r1;", 0x80000000u), 0x80000000u);
  EXPECT_EQ(evalU32("abs.s32 %r4, %r1;", static_cast<uint32_t>(-5)), 5u);
  EXPECT_EQ(evalU32("neg.s32 %r4, %r1;", 0x80000000u), 0x80000000u);
  EXPECT_EQ(evalU32("min.s32 %r4, %r1, %r2;", 0xffffffffu, 1), 0xffffffffu);
  EXPECT_EQ(evalU32("min.u32 %r4, %r1, %r2;", 0xffffffffu, 1), 1u);
  EXPECT_EQ(evalU32("max.s32 %r4, %r1, %r2;", 0xffffffffu, 1), 1u);
  EXPECT_EQ(evalU32("max.u32 %r4, %r1, %r2;", 0xffffffffu, 1), 0xffffffffu);
}

TEST(IntegerOps, BitCounting) {
  EXPECT_EQ(evalU32("popc.b32 %r4, %r1;", 0xf0f0f0f1u), 17u);
  EXPECT_EQ(evalU32("popc.b64 %r4, %rd1;", ~0ull), 64u);
  EXPECT_EQ(evalU32("clz.b32 %r4, %r1;", 0), 32u);
  EXPECT_EQ(evalU32("clz.b32 %r4, %r1;", 0x00010000), 15u);
  EXPECT_EQ(evalU32("clz.b64 %r4, %rd1;", 1), 63u);
  EXPECT_EQ(evalU32("brev.b32 %r4, %r1;", 0x00000001), 0x80000000u);
  EXPECT_EQ(evalU32("brev.b32 %r4, %r1;", 0x12345678), 0x1e6a2c48u);
  EXPECT_EQ(evalU32("bfind.u32 %r4, %r1;", 0), 0xffffffffu);
  EXPECT_EQ(evalU32("bfind.u32 %r4, %r1;", 0x00010000), 16u);
  EXPECT_EQ(evalU32("bfind.shiftamt.u32 %r4, %r1;", 0x00010000), 15u);
  EXPECT_EQ(evalU32("bfind.s32 %r4, %r1;", 0xffffffffu), 0xffffffffu);  // -1: no bit differs from sign
  EXPECT_EQ(evalU32("bfind.s32 %r4, %r1;", 0xfffffff0u), 3u);
}

TEST(IntegerOps, BitFieldExtractInsertEdges) {
  EXPECT_EQ(evalU32("bfe.u32 %r4, %r1, %r2, %r3;", 0x12345678, 8, 8), 0x56u);
  EXPECT_EQ(evalU32("bfe.s32 %r4, %r1, %r2, %r3;", 0x0000f000, 12, 4), 0xffffffffu);
  EXPECT_EQ(evalU32("bfe.u32 %r4, %r1, %r2, %r3;", 0xffffffffu, 8, 0), 0u);     // len 0
  EXPECT_EQ(evalU32("bfe.u32 %r4, %r1, %r2, %r3;", 0xffffffffu, 40, 8), 0u);    // pos beyond msb
  EXPECT_EQ(evalU32("bfe.s32 %r4, %r1, %r2, %r3;", 0x80000000u, 40, 8), 0xffffffffu);
  EXPECT_EQ(evalU32("bfe.u32 %r4, %r1, %r2, %r3;", 0xf0000000u, 28, 16), 0xfu);  // clipped at msb
  EXPECT_EQ(evalU32("bfe.u32 %r4, %r1, %r2, %r3;", 0x12345678, 0x108, 8), 0x56u); // pos uses bits 7..0
  EXPECT_EQ(evalU32("bfi.b32 %r4, %r1, %r2, %r3, 8;", 0xab, 0x11111111, 4), 0x11111ab1u);
  EXPECT_EQ(evalU32("bfi.b32 %r4, %r1, %r2, %r3, 0;", 0xab, 0x11111111, 4), 0x11111111u);
  EXPECT_EQ(evalU32("bfi.b32 %r4, %r1, %r2, %r3, 8;", 0xff, 0, 28), 0xf0000000u);
}

TEST(IntegerOps, ShiftsClamp) {
  EXPECT_EQ(evalU32("shl.b32 %r4, %r1, %r2;", 1, 31), 0x80000000u);
  EXPECT_EQ(evalU32("shl.b32 %r4, %r1, %r2;", 1, 32), 0u);
  EXPECT_EQ(evalU32("shr.u32 %r4, %r1, %r2;", 0x80000000u, 40), 0u);
  EXPECT_EQ(evalU32("shr.s32 %r4, %r1, %r2;", 0x80000000u, 40), 0xffffffffu);
  EXPECT_EQ(evalU32("shr.s16 %rs4, %rs1, %r2; cvt.u32.u16 %r4, %rs4;", 0x8000, 16), 0xffffu);
  EXPECT_EQ(evalU64("shl.b64 %rd4, %rd1, %r2;", 1, 63), 0x8000000000000000ull);
}

TEST(IntegerOps, FunnelShiftsMatchIsaVectors) {
  // a=0x12345678 (low word), b=0x9abcdef0 (high word)
  EXPECT_EQ(evalU32("shf.l.wrap.b32 %r4, %r1, %r2, %r3;", 0x12345678, 0x9abcdef0, 12), 0xcdef0123u);
  EXPECT_EQ(evalU32("shf.r.wrap.b32 %r4, %r1, %r2, %r3;", 0x12345678, 0x9abcdef0, 12), 0xef012345u);
  EXPECT_EQ(evalU32("shf.l.clamp.b32 %r4, %r1, %r2, %r3;", 0x12345678, 0x9abcdef0, 44), 0x12345678u);
  EXPECT_EQ(evalU32("shf.r.clamp.b32 %r4, %r1, %r2, %r3;", 0x12345678, 0x9abcdef0, 44), 0x9abcdef0u);
  EXPECT_EQ(evalU32("shf.l.wrap.b32 %r4, %r1, %r2, %r3;", 0x12345678, 0x9abcdef0, 44), 0xcdef0123u);
  EXPECT_EQ(evalU32("shf.l.wrap.b32 %r4, %r1, %r2, %r3;", 0x12345678, 0x9abcdef0, 0), 0x9abcdef0u);
}

TEST(IntegerOps, BitMaskClampsOrWrapsPositionAndWidth) {
  EXPECT_EQ(evalU32("bmsk.wrap.b32 %r4, 1, 2;", 0), 0x6u);  // the PTX ISA's example
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 4, 8), 0xff0u);
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 0, 32), 0xffffffffu);
  EXPECT_EQ(evalU32("bmsk.wrap.b32 %r4, %r1, %r2;", 0, 32), 0u);            // width 32 wraps to 0
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 4, 40), 0xfffffff0u);  // width clamps to 32
  EXPECT_EQ(evalU32("bmsk.wrap.b32 %r4, %r1, %r2;", 4, 40), 0xff0u);        // width 40 wraps to 8
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 32, 5), 0u);           // no bits from 32 on
  EXPECT_EQ(evalU32("bmsk.wrap.b32 %r4, %r1, %r2;", 32, 5), 0x1fu);         // position 32 wraps to 0
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 28, 8), 0xf0000000u);  // bits above 31 dropped
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 31, 1), 0x80000000u);
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 7, 0), 0u);
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 0xffffffffu, 3), 0u);
  EXPECT_EQ(evalU32("bmsk.wrap.b32 %r4, %r1, %r2;", 0xffffffffu, 3), 0x80000000u);
  EXPECT_EQ(evalU32("bmsk.clamp.b32 %r4, %r1, %r2;", 3, 0xffffffffu), 0xfffffff8u);
  // As ptxas (CUDA 13, sm_75) decides: a mode and .b32 are required, one mode only.
  EXPECT_TRUE(decodesInKernel("bmsk.clamp.b32 %r1, %r2, 7;"));
  EXPECT_FALSE(decodesInKernel("bmsk.b32 %r1, %r2, %r3;"));
  EXPECT_FALSE(decodesInKernel("bmsk.clamp.b64 %rd1, %r2, %r3;"));
  EXPECT_FALSE(decodesInKernel("bmsk.wrap.u32 %r1, %r2, %r3;"));
  EXPECT_FALSE(decodesInKernel("bmsk.clamp.wrap.b32 %r1, %r2, %r3;"));
}

TEST(IntegerOps, SignOrZeroExtendFromAClampedOrWrappedWidth) {
  EXPECT_EQ(evalU32("szext.wrap.u32 %r4, 0xffffffff, 0;", 0), 0u);  // the PTX ISA's example
  EXPECT_EQ(evalU32("szext.clamp.s32 %r4, %r1, %r2;", 0x80, 8), 0xffffff80u);
  EXPECT_EQ(evalU32("szext.clamp.u32 %r4, %r1, %r2;", 0x180, 8), 0x80u);
  EXPECT_EQ(evalU32("szext.clamp.s32 %r4, %r1, %r2;", 0x7f, 8), 0x7fu);
  EXPECT_EQ(evalU32("szext.clamp.s32 %r4, %r1, %r2;", 0x1, 1), 0xffffffffu);   // a 1-bit field
  EXPECT_EQ(evalU32("szext.clamp.s32 %r4, %r1, %r2;", 0x87654321u, 0), 0u);    // width 0
  EXPECT_EQ(evalU32("szext.clamp.s32 %r4, %r1, %r2;", 0x87654321u, 40), 0x87654321u);  // clamps to 32
  EXPECT_EQ(evalU32("szext.wrap.s32 %r4, %r1, %r2;", 0x87654321u, 40), 0x21u);  // 40 wraps to 8
  EXPECT_EQ(evalU32("szext.wrap.s32 %r4, %r1, %r2;", 0x87654321u, 32), 0u);     // 32 wraps to 0
  EXPECT_EQ(evalU32("szext.wrap.s32 %r4, %r1, %r2;", 0x87654321u, 31), 0x07654321u);
  // As ptxas (CUDA 13) decides: a mode and .u32/.s32 are required, one mode only.
  EXPECT_TRUE(decodesInKernel("szext.clamp.s32 %r1, %r2, 7;"));
  EXPECT_FALSE(decodesInKernel("szext.u32 %r1, %r2, %r3;"));
  EXPECT_FALSE(decodesInKernel("szext.clamp.b32 %r1, %r2, %r3;"));
  EXPECT_FALSE(decodesInKernel("szext.wrap.s64 %rd1, %rd2, %r3;"));
  EXPECT_FALSE(decodesInKernel("szext.clamp.wrap.u32 %r1, %r2, %r3;"));
}

TEST(IntegerOps, PermuteMatchesIsaVectors) {
  EXPECT_EQ(evalU32("prmt.b32 %r4, %r1, %r2, %r3;", 0x70c507d6, 0x6fbd4b5c, 0x7604), 0x6fbdd65cu);
  EXPECT_EQ(evalU32("prmt.b32 %r4, %r1, %r2, %r3;", 0x0100FE80, 0, 0x0A08), 0x800080FFu);
  // Modes (bytes of a = 0x33221100, b = 0x77665544; result bytes listed b3..b0)
  EXPECT_EQ(evalU32("prmt.b32.f4e %r4, %r1, %r2, %r3;", 0x33221100, 0x77665544, 1), 0x44332211u);
  EXPECT_EQ(evalU32("prmt.b32.b4e %r4, %r1, %r2, %r3;", 0x33221100, 0x77665544, 0), 0x55667700u);
  EXPECT_EQ(evalU32("prmt.b32.rc8 %r4, %r1, %r2, %r3;", 0x33221100, 0x77665544, 2), 0x22222222u);
  EXPECT_EQ(evalU32("prmt.b32.ecl %r4, %r1, %r2, %r3;", 0x33221100, 0x77665544, 1), 0x33221111u);
  EXPECT_EQ(evalU32("prmt.b32.ecr %r4, %r1, %r2, %r3;", 0x33221100, 0x77665544, 2), 0x22221100u);
  EXPECT_EQ(evalU32("prmt.b32.rc16 %r4, %r1, %r2, %r3;", 0x33221100, 0x77665544, 1), 0x33223322u);
}

TEST(IntegerOps, LogicAndLop3) {
  EXPECT_EQ(evalU32("and.b32 %r4, %r1, %r2;", 0xff00ff00u, 0x0ff00ff0u), 0x0f000f00u);
  EXPECT_EQ(evalU32("or.b32 %r4, %r1, %r2;", 0xff00ff00u, 0x0ff00ff0u), 0xfff0fff0u);
  EXPECT_EQ(evalU32("xor.b32 %r4, %r1, %r2;", 0xff00ff00u, 0x0ff00ff0u), 0xf0f0f0f0u);
  EXPECT_EQ(evalU32("not.b32 %r4, %r1;", 0xff00ff00u), 0x00ff00ffu);
  EXPECT_EQ(evalU32("cnot.b32 %r4, %r1;", 0), 1u);
  EXPECT_EQ(evalU32("cnot.b32 %r4, %r1;", 7), 0u);
  // F = (a & b) | c  ->  LUT = (0xF0 & 0xCC) | 0xAA = 0xEA
  EXPECT_EQ(evalU32("lop3.b32 %r4, %r1, %r2, %r3, 0xEA;", 0xf0f0f0f0u, 0xff00ff00u, 0x0000000fu), 0xf000f00fu);
}

TEST(IntegerOps, CarryChains) {
  // 64-bit add from 32-bit halves: 0xffffffff + 1 carries into the high word.
  EXPECT_EQ(evalU32("add.cc.u32 %r5, %r1, %r2; addc.u32 %r4, %r3, 0;", 0xffffffffu, 1, 5), 6u);
  EXPECT_EQ(evalU32("add.cc.u32 %r5, %r1, %r2; addc.cc.u32 %r4, 0, 0;", 0xffffffffu, 1), 1u);
  // Subtraction: 0 - 1 borrows out of the low word.
  EXPECT_EQ(evalU32("sub.cc.u32 %r5, %r1, %r2; subc.u32 %r4, %r3, 0;", 0, 1, 5), 4u);
  EXPECT_EQ(evalU32("sub.cc.u32 %r5, %r1, %r2; subc.u32 %r4, %r3, 0;", 3, 1, 5), 5u);
  EXPECT_EQ(evalU32("mad.lo.cc.u32 %r5, %r1, %r2, 0xffffffff; madc.hi.u32 %r4, %r1, %r2, 0;", 0x10001, 0x10001, 0), 2u);
}

TEST(IntegerOps, DotProductAccumulate) {
  EXPECT_EQ(evalU32("dp4a.s32.s32 %r4, %r1, %r2, %r3;", 0x8e2da590, 0xedeaee14, 0x248a9f70), 613065134u);
  EXPECT_EQ(evalU32("dp2a.hi.s32.s32 %r4, %r1, %r2, %r3;", 0x8e2da590, 0xedeaee14, 0x248a9f70), 614127545u);
  EXPECT_EQ(evalU32("dp4a.u32.u32 %r4, %r1, %r2, %r3;", 0x01010101, 0x02020202, 1), 9u);
}

TEST(IntegerOps, CompareAndSelect) {
  EXPECT_TRUE(evalPred("setp.lt.s32 %p1, %r1, %r2;", 0xffffffffu, 0));
  EXPECT_FALSE(evalPred("setp.lt.u32 %p1, %r1, %r2;", 0xffffffffu, 0));
  EXPECT_TRUE(evalPred("setp.hi.u32 %p1, %r1, %r2;", 0xffffffffu, 0));
  EXPECT_TRUE(evalPred("setp.ls.u32 %p1, %r1, %r2;", 1, 0xffffffffu));
  EXPECT_FALSE(evalPred("setp.eq.and.s32 %p1, %r1, %r2, %p3;", 1, 1));  // %p3 uninitialised = false
  EXPECT_TRUE(evalPred("setp.eq.or.s32 %p1, %r1, %r2, !%p3;", 1, 2));
  EXPECT_TRUE(evalPred("setp.ne.s32 %p2|%p1, %r1, %r2;", 1, 1));  // second result is the negation
  EXPECT_EQ(evalU32("setp.gt.s32 %p1, %r1, %r2; selp.b32 %r4, 11, 22, %p1;", 5, 3), 11u);
  EXPECT_EQ(evalU32("set.lt.u32.s32 %r4, %r1, %r2;", 1, 2), 0xffffffffu);
  EXPECT_EQ(evalU32("slct.u32.s32 %r4, %r1, %r2, %r3;", 7, 9, 0x80000000u), 9u);
  EXPECT_EQ(evalU32("setp.lt.s32 %p1, %r1, 0; setp.gt.s32 %p2, %r2, 0; xor.pred %p3, %p1, %p2; selp.b32 %r4, 1, 0, %p3;", 0xffffffffu, 1), 0u);
}

TEST(IntegerOps, ConversionsBetweenIntegers) {
  EXPECT_EQ(evalU32("cvt.u32.s8 %r4, %r1;", 0xff), 0xffffffffu);        // source sign decides
  EXPECT_EQ(evalU32("cvt.s32.u8 %r4, %r1;", 0xff), 0xffu);
  EXPECT_EQ(evalU32("cvt.s16.u32 %r4, %r1;", 0x139231C2), 0x000031C2u);  // chop, sign-extend dst (bit 15 clear)
  EXPECT_EQ(evalU32("cvt.s16.u32 %r4, %r1;", 0x1392F1C2), 0xfffff1c2u);
  EXPECT_EQ(evalU32("cvt.sat.u32.s32 %r4, %r1;", 0xffffffffu), 0u);
  EXPECT_EQ(evalU32("cvt.sat.s8.s32 %r4, %r1;", 300), 127u);
  EXPECT_EQ(evalU64("cvt.s64.s32 %rd4, %r1;", 0x80000000u), 0xffffffff80000000ull);
  EXPECT_EQ(evalU64("cvt.u64.u32 %rd4, %r1;", 0x80000000u), 0x80000000ull);
}

}  // namespace
}  // namespace qgpu
