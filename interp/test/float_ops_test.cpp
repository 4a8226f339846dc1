// Per-instruction rows for floating point: rounding modes, .ftz, .sat,
// canonical NaN, min/max with NaN and signed zeros, conversions. Expected
// bit patterns come from IEEE-754 arithmetic worked out by hand.
#include <gtest/gtest.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test::evalF32;
using test::evalF64;
using test::evalPred;
using test::evalU32;
using test::evalU64;

constexpr uint32_t kOne = 0x3f800000, kTwoM24 = 0x33800000;  // 1.0f, 2^-24
constexpr uint32_t kMinSub = 0x00000001, kMinNormal = 0x00800000;

TEST(FloatOps, AddRoundingModes) {
  // 1 + 2^-24 is exactly halfway between 1 and 1+2^-23.
  EXPECT_EQ(evalF32("add.rn.f32 %f4, %f1, %f2;", kOne, kTwoM24), kOne);
  EXPECT_EQ(evalF32("add.f32 %f4, %f1, %f2;", kOne, kTwoM24), kOne);
  EXPECT_EQ(evalF32("add.rz.f32 %f4, %f1, %f2;", kOne, kTwoM24), kOne);
  EXPECT_EQ(evalF32("add.rm.f32 %f4, %f1, %f2;", kOne, kTwoM24), kOne);
  EXPECT_EQ(evalF32("add.rp.f32 %f4, %f1, %f2;", kOne, kTwoM24), 0x3f800001u);
  EXPECT_EQ(evalF32("add.rm.f32 %f4, %f1, %f2;", 0xbf800000u, 0xb3800000u), 0xbf800001u);
  EXPECT_EQ(evalF32("sub.rz.f32 %f4, %f1, %f2;", 0xbf800000u, 0x33800000u), 0xbf800000u);
  // A tiny addend far below the sticky bit still moves directed results.
  EXPECT_EQ(evalF32("add.rp.f32 %f4, %f1, %f2;", kOne, kMinSub), 0x3f800001u);
  EXPECT_EQ(evalF32("add.rm.f32 %f4, %f1, %f2;", kOne, 0x80000001u), 0x3f7fffffu);
  // Overflow: RN -> inf, RZ -> max finite.
  EXPECT_EQ(evalF32("add.rn.f32 %f4, %f1, %f2;", 0x7f7fffffu, 0x7f7fffffu), 0x7f800000u);
  EXPECT_EQ(evalF32("add.rz.f32 %f4, %f1, %f2;", 0x7f7fffffu, 0x7f7fffffu), 0x7f7fffffu);
  // x + (-x) = +0 in RN, -0 in RM.
  EXPECT_EQ(evalF32("add.rn.f32 %f4, %f1, %f2;", kOne, 0xbf800000u), 0u);
  EXPECT_EQ(evalF32("add.rm.f32 %f4, %f1, %f2;", kOne, 0xbf800000u), 0x80000000u);
}

TEST(FloatOps, MulDivSqrtRounding) {
  // 1/3: RN rounds up (0x3eaaaaab), RZ/RM truncate (0x3eaaaaaa).
  EXPECT_EQ(evalF32("div.rn.f32 %f4, %f1, %f2;", kOne, 0x40400000u), 0x3eaaaaabu);
  EXPECT_EQ(evalF32("div.rz.f32 %f4, %f1, %f2;", kOne, 0x40400000u), 0x3eaaaaaau);
  EXPECT_EQ(evalF32("div.rp.f32 %f4, %f1, %f2;", kOne, 0x40400000u), 0x3eaaaaabu);
  EXPECT_EQ(evalF32("rcp.rn.f32 %f4, %f1;", 0x40400000u), 0x3eaaaaabu);
  // sqrt(2) = 1.41421356..; RN = 0x3fb504f3 lies below it.
  EXPECT_EQ(evalF32("sqrt.rn.f32 %f4, %f1;", 0x40000000u), 0x3fb504f3u);
  EXPECT_EQ(evalF32("sqrt.rp.f32 %f4, %f1;", 0x40000000u), 0x3fb504f4u);
  EXPECT_EQ(evalF32("sqrt.rz.f32 %f4, %f1;", 0x40000000u), 0x3fb504f3u);
  // (1+2^-23)^2 = 1 + 2^-22 + 2^-46: RN drops the tail, RP keeps it.
  EXPECT_EQ(evalF32("mul.rn.f32 %f4, %f1, %f2;", 0x3f800001u, 0x3f800001u), 0x3f800002u);
  EXPECT_EQ(evalF32("mul.rp.f32 %f4, %f1, %f2;", 0x3f800001u, 0x3f800001u), 0x3f800003u);
  // Subnormal results are kept without .ftz and flushed with it.
  EXPECT_EQ(evalF32("mul.rn.f32 %f4, %f1, %f2;", kMinNormal, 0x3f000000u), 0x00400000u);
  EXPECT_EQ(evalF32("mul.rn.ftz.f32 %f4, %f1, %f2;", kMinNormal, 0x3f000000u), 0u);
  EXPECT_EQ(evalF32("mul.rn.ftz.f32 %f4, %f1, %f2;", 0x80400000u, kOne), 0x80000000u);  // input flushed, sign kept
}

TEST(FloatOps, FusedVersusSeparateRounding) {
  // a = 1+2^-12, a*a - (1+2^-11) = 2^-24 exactly with fma; 0 with mul then sub.
  constexpr uint32_t a = 0x3f800800u, c = 0xbf801000u;
  EXPECT_EQ(evalF32("fma.rn.f32 %f4, %f1, %f2, %f3;", a, a, c), 0x33800000u);
  EXPECT_EQ(evalF32("mul.rn.f32 %f5, %f1, %f2; add.rn.f32 %f4, %f5, %f3;", a, a, c), 0u);
  EXPECT_EQ(evalF32("mad.rn.f32 %f4, %f1, %f2, %f3;", a, a, c), 0x33800000u);
  EXPECT_EQ(evalF32("fma.rz.f32 %f4, %f1, %f2, %f3;", kOne, kOne, 0xb3000000u), 0x3f7fffffu);  // 1 - 2^-25
  EXPECT_EQ(evalF32("fma.rn.f32 %f4, %f1, %f2, %f3;", kOne, kOne, 0xb3000000u), kOne);
}

TEST(FloatOps, CanonicalNaNAndSaturate) {
  EXPECT_EQ(evalF32("add.f32 %f4, %f1, %f2;", 0x7fc01234u, kOne), 0x7fffffffu);
  EXPECT_EQ(evalF32("add.f32 %f4, %f1, %f2;", 0x7f800000u, 0xff800000u), 0x7fffffffu);  // inf - inf
  EXPECT_EQ(evalF32("mul.f32 %f4, %f1, %f2;", 0, 0x7f800000u), 0x7fffffffu);            // 0 * inf
  EXPECT_EQ(evalF32("sqrt.rn.f32 %f4, %f1;", 0xbf800000u), 0x7fffffffu);
  EXPECT_EQ(evalF32("add.sat.f32 %f4, %f1, %f2;", 0x40000000u, kOne), kOne);
  EXPECT_EQ(evalF32("add.sat.f32 %f4, %f1, %f2;", 0xc0000000u, kOne), 0u);
  EXPECT_EQ(evalF32("add.sat.f32 %f4, %f1, %f2;", 0x7fc00000u, kOne), 0u);  // NaN -> +0
  EXPECT_EQ(evalF32("abs.f32 %f4, %f1;", 0xbf800000u), kOne);
  EXPECT_EQ(evalF32("neg.f32 %f4, %f1;", 0u), 0x80000000u);
}

TEST(FloatOps, MinMaxNaNAndSignedZero) {
  EXPECT_EQ(evalF32("min.f32 %f4, %f1, %f2;", 0x7fc00000u, kOne), kOne);
  EXPECT_EQ(evalF32("max.f32 %f4, %f1, %f2;", kOne, 0x7fc00000u), kOne);
  EXPECT_EQ(evalF32("min.f32 %f4, %f1, %f2;", 0x7fc00000u, 0x7fc00001u), 0x7fffffffu);
  EXPECT_EQ(evalF32("min.f32 %f4, %f1, %f2;", 0u, 0x80000000u), 0x80000000u);
  EXPECT_EQ(evalF32("max.f32 %f4, %f1, %f2;", 0x80000000u, 0u), 0u);
  EXPECT_EQ(evalF64("min.f64 %fd4, %fd1, %fd2;", 0x7ff8000000000000ull, 0x3ff0000000000000ull), 0x3ff0000000000000ull);
}

TEST(FloatOps, ComparisonsOrderedAndUnordered) {
  constexpr uint32_t nan = 0x7fc00000u;
  EXPECT_FALSE(evalPred("setp.ne.f32 %p1, %f1, %f2;", nan, kOne));
  EXPECT_TRUE(evalPred("setp.neu.f32 %p1, %f1, %f2;", nan, kOne));
  EXPECT_TRUE(evalPred("setp.nan.f32 %p1, %f1, %f2;", nan, kOne));
  EXPECT_TRUE(evalPred("setp.num.f32 %p1, %f1, %f2;", kOne, kOne));
  EXPECT_TRUE(evalPred("setp.eq.f32 %p1, %f1, %f2;", 0u, 0x80000000u));
  EXPECT_TRUE(evalPred("setp.eq.ftz.f32 %p1, %f1, %f2;", 0x00000005u, 0u));
  EXPECT_FALSE(evalPred("setp.eq.f32 %p1, %f1, %f2;", 0x00000005u, 0u));
  EXPECT_TRUE(evalPred("testp.normal.f32 %p1, %f1;", 0u));  // zero counts as normal
  EXPECT_TRUE(evalPred("testp.subnormal.f32 %p1, %f1;", 1u));
  EXPECT_TRUE(evalPred("testp.notanumber.f32 %p1, %f1;", nan));
  EXPECT_EQ(evalF32("copysign.f32 %f4, %f1, %f2;", 0x0BDA2A2Cu, 0xE31A8FD7u), 0x631A8FD7u);
  EXPECT_EQ(evalU32("set.gt.f32.f32 %r4, %f1, %f2;", 0x40000000u, kOne), kOne);
}

TEST(FloatOps, DoublePrecision) {
  constexpr uint64_t one = 0x3ff0000000000000ull, three = 0x4008000000000000ull;
  EXPECT_EQ(evalF64("div.rn.f64 %fd4, %fd1, %fd2;", one, three), 0x3fd5555555555555ull);
  EXPECT_EQ(evalF64("div.rp.f64 %fd4, %fd1, %fd2;", one, three), 0x3fd5555555555556ull);
  EXPECT_EQ(evalF64("add.rp.f64 %fd4, %fd1, %fd2;", one, 0x3c90000000000000ull), 0x3ff0000000000001ull);  // 1+2^-54
  EXPECT_EQ(evalF64("add.rn.f64 %fd4, %fd1, %fd2;", one, 0x3c90000000000000ull), one);
  EXPECT_EQ(evalF64("fma.rn.f64 %fd4, %fd1, %fd2, %fd3;", one, one, one), 0x4000000000000000ull);
  EXPECT_EQ(evalF64("sqrt.rn.f64 %fd4, %fd1;", 0x4000000000000000ull), 0x3ff6a09e667f3bcdull);
  EXPECT_EQ(evalF64("neg.f64 %fd4, %fd1;", 0x7ff8000000000001ull), 0xfff8000000000001ull);  // bit op on NaN
  EXPECT_EQ(evalF64("abs.f64 %fd4, %fd1;", 0xfff8000000000001ull), 0x7ff8000000000001ull);
}

TEST(FloatOps, ConversionsFloatInt) {
  EXPECT_EQ(evalU32("cvt.rzi.s32.f32 %r4, %f1;", 0xc15ccccdu), static_cast<uint32_t>(-13));  // -13.8
  EXPECT_EQ(evalU32("cvt.rni.s32.f32 %r4, %f1;", 0x41180000u), 10u);   // 9.5 -> 10
  EXPECT_EQ(evalU32("cvt.rni.s32.f32 %r4, %f1;", 0x41280000u), 10u);   // 10.5 -> 10
  EXPECT_EQ(evalU32("cvt.rmi.s32.f32 %r4, %f1;", 0xbfc00000u), static_cast<uint32_t>(-2));
  EXPECT_EQ(evalU32("cvt.rpi.s32.f32 %r4, %f1;", 0x00000001u), 1u);     // +denormal rounds up
  EXPECT_EQ(evalU32("cvt.rpi.ftz.s32.f32 %r4, %f1;", 0x00000001u), 0u); // flushed first
  EXPECT_EQ(evalU32("cvt.rzi.s32.f32 %r4, %f1;", 0x7fc00000u), 0u);     // NaN -> 0
  EXPECT_EQ(evalU32("cvt.rzi.s32.f32 %r4, %f1;", 0x7f800000u), 0x7fffffffu);
  EXPECT_EQ(evalU32("cvt.rzi.s32.f32 %r4, %f1;", 0xff800000u), 0x80000000u);
  EXPECT_EQ(evalU32("cvt.rzi.u32.f32 %r4, %f1;", 0xbf800000u), 0u);     // -1 clamps to 0
  EXPECT_EQ(evalU32("cvt.rni.u16.f32 %r4, %f1;", 0x477fff80u), 65535u); // 65535.5 -> clamp
  EXPECT_EQ(evalU64("cvt.rzi.s64.f32 %rd4, %f1;", 0x7fc00000u), 0x8000000000000000ull);
  EXPECT_EQ(evalU32("cvt.rzi.s32.f64 %r4, %fd1;", 0x7ff8000000000000ull), 0x80000000u);
  EXPECT_EQ(evalF32("cvt.rn.f32.s32 %f4, %r1;", 33554434u), 0x4c000000u);  // ties to even
  EXPECT_EQ(evalF32("cvt.rz.f32.u32 %f4, %r1;", 0xffffffffu), 0x4f7fffffu);
  EXPECT_EQ(evalF32("cvt.rn.f32.u64 %f4, %rd1;", 0xffffffffffffffffull), 0x5f800000u);
  EXPECT_EQ(evalF32("cvt.rz.f32.s64 %f4, %rd1;", 0x7fffffffffffffffull), 0x5effffffu);
}

TEST(FloatOps, ConversionsFloatFloat) {
  EXPECT_EQ(evalF32("cvt.rni.f32.f32 %f4, %f1;", 0x41180000u), 0x41200000u);  // 9.5 -> 10
  EXPECT_EQ(evalF32("cvt.rzi.f32.f32 %f4, %f1;", 0xc15ccccdu), 0xc1500000u);  // -13.8 -> -13
  EXPECT_EQ(evalF32("cvt.ftz.sat.f32.f32 %f4, %f1;", 0x7fc00000u), 0u);
  EXPECT_EQ(evalF32("cvt.rn.f32.f64 %f4, %fd1;", 0x3fd5555555555555ull), 0x3eaaaaabu);
  EXPECT_EQ(evalF32("cvt.rz.f32.f64 %f4, %fd1;", 0x3fd5555555555555ull), 0x3eaaaaaau);
  EXPECT_EQ(evalF32("cvt.rz.f32.f64 %f4, %fd1;", 0x47efffffffffffffull), 0x7f7fffffu);  // above max -> max
  EXPECT_EQ(evalF64("cvt.f64.f32 %fd4, %f1;", kOne), 0x3ff0000000000000ull);
  // f16: 65520 rounds to inf in RN, to 65504 in RZ; 1.0 is 0x3c00.
  EXPECT_EQ(evalU32("cvt.rn.f16.f32 %rs4, %f1; cvt.u32.u16 %r4, %rs4;", 0x477ff000u), 0x7c00u);
  EXPECT_EQ(evalU32("cvt.rz.f16.f32 %rs4, %f1; cvt.u32.u16 %r4, %rs4;", 0x477ff000u), 0x7bffu);
  EXPECT_EQ(evalU32("cvt.rn.f16.f32 %rs4, %f1; cvt.u32.u16 %r4, %rs4;", kOne), 0x3c00u);
  EXPECT_EQ(evalU32("cvt.rn.f16.f32 %rs4, %f1; cvt.u32.u16 %r4, %rs4;", 0x33800000u), 0x0001u);  // 2^-24 subnormal
  EXPECT_EQ(evalF32("cvt.f32.f16 %f4, %rs1;", 0x3555u), 0x3eaaa000u);
  EXPECT_EQ(evalF32("cvt.f32.f16 %f4, %rs1;", 0xfc00u), 0xff800000u);
}

}  // namespace
}  // namespace qgpu

namespace qgpu {
namespace {

// Which half-precision spellings decode, as ptxas 13 decides at .version 9.0 .target sm_90
// (values: the numeric oracle; targets and versions: the grammar corpus).
TEST(FloatOps, HalfFormsDecodeWhereCuda13PtxasAcceptsThem) {
  for (const char* ok : {"add.f16 %h1, %h2, %h3;", "add.bf16 %h1, %h2, %h3;", "add.rn.bf16x2 %r1, %r2, %r3;",
                         "sub.bf16x2 %r1, %r2, %r3;", "mul.rn.bf16 %h1, %h2, %h3;",
                         "fma.rn.bf16 %h1, %h2, %h3, %h4;", "fma.rn.relu.bf16 %h1, %h2, %h3, %h4;",
                         "fma.rn.relu.f16 %h1, %h2, %h3, %h4;", "fma.rn.ftz.relu.f16x2 %r1, %r2, %r3, %r4;",
                         "min.f16 %h1, %h2, %h3;", "min.ftz.NaN.f16 %h1, %h2, %h3;", "min.NaN.f16x2 %r1, %r2, %r3;",
                         "min.xorsign.abs.f16 %h1, %h2, %h3;", "max.NaN.xorsign.abs.f16x2 %r1, %r2, %r3;",
                         "min.bf16 %h1, %h2, %h3;", "max.NaN.bf16x2 %r1, %r2, %r3;",
                         "max.xorsign.abs.bf16 %h1, %h2, %h3;", "neg.f16 %h1, %h2;", "neg.ftz.f16x2 %r1, %r2;",
                         "abs.bf16 %h1, %h2;", "neg.bf16x2 %r1, %r2;", "setp.lt.f16 %p1, %h1, %h2;",
                         "setp.lt.ftz.f16x2 %p1|%p2, %r1, %r2;", "setp.lt.f16x2 %p1, %r1, %r2;",
                         "setp.eq.and.f16x2 %p1|%p2, %r1, %r2, !%p3;", "setp.nan.bf16x2 %p1|%p2, %r1, %r2;",
                         "setp.gtu.or.bf16 %p1, %h1, %h2, %p3;", "ex2.approx.f16 %h1, %h2;",
                         "ex2.approx.f16x2 %r1, %r2;", "ex2.approx.ftz.bf16 %h1, %h2;",
                         "ex2.approx.ftz.bf16x2 %r1, %r2;", "tanh.approx.f16 %h1, %h2;",
                         "tanh.approx.bf16x2 %r1, %r2;"})
    EXPECT_TRUE(decodesInKernel(ok)) << ok;
  for (const char* bad : {"add.rz.f16 %h1, %h2, %h3;", "add.rn.ftz.bf16 %h1, %h2, %h3;",
                          "add.rn.sat.bf16 %h1, %h2, %h3;", "fma.rn.sat.relu.f16 %h1, %h2, %h3, %h4;",
                          "fma.bf16 %h1, %h2, %h3, %h4;", "fma.f16 %h1, %h2, %h3, %h4;",
                          "fma.rz.f16 %h1, %h2, %h3, %h4;", "min.ftz.bf16 %h1, %h2, %h3;",
                          "min.xorsign.f16 %h1, %h2, %h3;", "min.abs.f16 %h1, %h2, %h3;",
                          "abs.ftz.bf16 %h1, %h2;", "abs.rn.f16 %h1, %h2;", "add.relu.f16 %h1, %h2, %h3;",
                          "neg.NaN.f16 %h1, %h2;", "add.f16 %r1, %r2, %r3;", "setp.lt.f16 %p1|%p2, %h1, %h2;",
                          "setp.lt.ftz.bf16 %p1, %h1, %h2;", "setp.lo.f16 %p1, %h1, %h2;",
                          "setp.lt.f16x2 %p1, %h1, %h2;", "ex2.approx.ftz.f16 %h1, %h2;",
                          "ex2.approx.bf16 %h1, %h2;", "tanh.approx.ftz.f16 %h1, %h2;", "ex2.f16 %h1, %h2;"})
    EXPECT_FALSE(decodesInKernel(bad)) << bad;
}

// set with half-precision sources or results (the bits of every form are oracle-checked,
// interp/test/numerics_oracle_test.cpp; these rows pin the spellings and run at W=4 and 32).
TEST(FloatOps, SetHalfForms) {
  auto ev = [](const std::string& body, uint64_t a, uint64_t b, uint64_t c = 0) {
    return test::eval(body + " cvt.u64.u32 %rd4, %r4;", a, b, c);
  };
  // f16 1.0 and 2.0; 16-bit results widened through %r4.
  EXPECT_EQ(ev("set.lt.f16.f16 %rs4, %rs1, %rs2; cvt.u32.u16 %r4, %rs4;", 0x3c00, 0x4000), 0x3c00u);
  EXPECT_EQ(ev("set.lt.s16.f16 %rs4, %rs1, %rs2; cvt.u32.u16 %r4, %rs4;", 0x4000, 0x3c00), 0u);
  EXPECT_EQ(ev("set.lt.u32.f16 %r4, %rs1, %rs2;", 0x3c00, 0x4000), 0xffffffffu);
  // x2: per element, element 0 = bits 15..0 (1 < 2 true, 2 < 1 false).
  EXPECT_EQ(ev("set.lt.u32.f16x2 %r4, %r1, %r2;", 0x40003c00, 0x3c004000), 0x0000ffffu);
  EXPECT_EQ(ev("set.lt.f16x2.f16x2 %r4, %r1, %r2;", 0x3c004000, 0x40003c00), 0x3c000000u);
  // .ftz on the f16 source: a subnormal equals zero.
  EXPECT_EQ(ev("set.eq.ftz.u32.f16 %r4, %rs1, %rs2;", 0x0001, 0x8000), 0xffffffffu);
  EXPECT_EQ(ev("set.eq.u32.f16 %r4, %rs1, %rs2;", 0x0001, 0x8000), 0u);
  // Non-half sources with an f16 result, and a boolean combination.
  EXPECT_EQ(ev("set.lt.f16.s32 %rs4, %r1, %r2; cvt.u32.u16 %r4, %rs4;", 0xffffffff, 1), 0x3c00u);
  EXPECT_EQ(ev("set.lo.f16.u32 %rs4, %r1, %r2; cvt.u32.u16 %r4, %rs4;", 0xffffffff, 1), 0u);
  EXPECT_EQ(ev("set.gt.ftz.f16.f32 %rs4, %f1, %f2; cvt.u32.u16 %r4, %rs4;", 0x00000001, 0), 0u);
  EXPECT_EQ(ev("setp.ne.u32 %p2, %r3, 0; set.lt.and.u32.f16 %r4, %rs1, %rs2, !%p2;", 0x3c00, 0x4000, 1), 0u);
  EXPECT_EQ(ev("setp.ne.u32 %p2, %r3, 0; set.lt.or.u32.f16 %r4, %rs1, %rs2, %p2;", 0x4000, 0x3c00, 1), 0xffffffffu);

  for (const char* ok : {"set.lt.bf16.bf16 %h1, %h2, %h3;", "set.lt.u16.bf16 %h1, %h2, %h3;",
                         "set.nan.s32.bf16x2 %r1, %r2, %r3;", "set.lt.bf16x2.bf16x2 %r1, %r2, %r3;",
                         "set.lt.bf16.f16 %h1, %h2, %h3;", "set.lt.bf16.f64 %h1, %rd2, %rd3;",
                         "set.eq.f16.b16 %h1, %h2, %h3;", "set.lt.xor.bf16x2.bf16x2 %r1, %r2, %r3, !%p1;"})
    EXPECT_TRUE(decodesInKernel(ok)) << ok;
  // As ptxas 13 rejects them: f32 results of half sources, .u16 from f32, f16 from bf16,
  // .ftz with a bf16 result or source or an integer source, 16-bit results in 32-bit
  // registers, immediates as half sources, bit types with an ordered comparison.
  for (const char* bad : {"set.lt.f32.f16 %r1, %h2, %h3;", "set.lt.u16.f32 %h1, %r2, %r3;",
                          "set.lt.f16.bf16 %h1, %h2, %h3;", "set.lt.ftz.bf16.f32 %h1, %r2, %r3;",
                          "set.lt.ftz.u32.bf16 %r1, %h2, %h3;", "set.lt.ftz.f16.s32 %h1, %r2, %r3;",
                          "set.lt.f16.f16 %r1, %h2, %h3;", "set.lt.u32.f16 %r1, %h2, 0x3c00;",
                          "set.lt.u16x2.f16x2 %r1, %r2, %r3;", "set.lt.f16x2.f32 %r1, %r2, %r3;",
                          "set.lt.f16.b16 %h1, %h2, %h3;", "set.lt.u32.f16x2 %r1, %h2, %h3;"})
    EXPECT_FALSE(decodesInKernel(bad)) << bad;
}

// cvt forms with bf16, the packed f16x2/bf16x2/fp8 forms and cvt.pack.sat (the bits of each
// are oracle-checked, numerics_oracle_test.cpp; the grammar corpus runs them at W=4 and 32).
TEST(FloatOps, CvtHalfAndPackedForms) {
  // cvt.pack.sat runs on the tests' sm_75 target: {sat(a), sat(b)} with a in the upper half.
  EXPECT_EQ(test::eval("cvt.pack.sat.s16.s32 %r4, %r1, %r2; cvt.u64.u32 %rd4, %r4;", 40000, 0xffff0000u), 0x7fff8000u);
  EXPECT_EQ(test::eval("cvt.pack.sat.u8.s32.b32 %r4, %r1, %r2, %r3; cvt.u64.u32 %rd4, %r4;", 300, 0xffffffffu, 0xabcd),
            0xabcdff00u);
  for (const char* ok : {"cvt.rn.bf16.f32 %h1, %r2;", "cvt.rz.relu.satfinite.bf16.f32 %h1, %r2;",
                         "cvt.rn.ftz.bf16.f32 %h1, %r2;", "cvt.bf16.f16 %h1, %h2;", "cvt.rm.bf16.s64 %h1, %rd2;",
                         "cvt.rpi.u32.bf16 %r1, %h2;", "cvt.f32.bf16 %r1, %h2;", "cvt.rz.f32.bf16 %r1, %h2;",
                         "cvt.rni.bf16.bf16 %h1, %h2;", "cvt.rn.relu.f16.f32 %h1, %r2;",
                         "cvt.rz.satfinite.f16x2.f32 %r1, %r2, %r3;", "cvt.rn.relu.bf16x2.f32 %r1, %r2, %r3;",
                         "cvt.rn.satfinite.e4m3x2.f32 %h1, %r2, %r3;", "cvt.rn.relu.satfinite.e5m2x2.f16x2 %h1, %r2;",
                         "cvt.rn.relu.f16x2.e4m3x2 %r1, %h2;", "cvt.pack.sat.u16.s32 %r1, %r2, %r3;",
                         "cvt.pack.sat.s2.s32.b32 %r1, %r2, %r3, %r4;"})
    EXPECT_TRUE(decodesInKernel(ok)) << ok;
  // As ptxas 13 rejects them (its reasons in brackets).
  for (const char* bad : {"cvt.bf16.f32 %h1, %r2;",                      // rounding required
                          "cvt.rn.sat.bf16.f32 %h1, %r2;",               // no .sat with bf16
                          "cvt.rn.bf16.u8 %h1, %h2;",                    // arguments mismatch
                          "cvt.rm.relu.bf16.f32 %h1, %r2;",              // .relu: .rn/.rz only
                          "cvt.rn.ftz.satfinite.f16.f32 %h1, %r2;",      // .satfinite with .ftz
                          "cvt.rn.relu.sat.f16.f32 %h1, %r2;",           // .relu with .sat
                          "cvt.rn.relu.f16.f64 %h1, %rd2;",              // .relu from f64
                          "cvt.rm.f16x2.f32 %r1, %r2, %r3;",             // .rn/.rz only
                          "cvt.rn.ftz.f16x2.f32 %r1, %r2, %r3;",         // no .ftz
                          "cvt.rn.f16x2.f32 %h1, %r2, %r3;",             // 32-bit destination
                          "cvt.rn.e4m3x2.f32 %h1, %r2, %r3;",            // .satfinite required
                          "cvt.rz.satfinite.e4m3x2.f32 %h1, %r2, %r3;",  // .rn only
                          "cvt.rn.satfinite.e4m3x2.bf16x2 %h1, %r2;",    // no bf16x2 source
                          "cvt.rn.f16x2.e4m3x2 %r1, %r2;",               // 16-bit source
                          "cvt.f16x2.e5m2x2 %r1, %h2;",                  // rounding required
                          "cvt.rn.f32.f16x2 %r1, %r2;",                  // no f16x2 source
                          "cvt.pack.u16.s32 %r1, %r2, %r3;",             // .sat required
                          "cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r4;",  // no cType for 16 bits
                          "cvt.pack.sat.u8.s32 %r1, %r2, %r3;",          // cType required
                          "cvt.pack.sat.u16.s32 %h1, %r2, %r3;"})        // 32-bit destination
    EXPECT_FALSE(decodesInKernel(bad)) << bad;
}

// cvt to tf32 (bits oracle-checked in PackedCvtOracle): the f32 pattern rounded at bit 13.
uint32_t tf32(const std::string& form, uint32_t x, const std::string& target = "sm_80") {
  test::TestLaunch t;
  t.ptx = ".version 9.0\n.target " + target + "\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
          ".reg .b32 %b<3>;\n.reg .f32 %f<2>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n"
          "ld.global.f32 %f1, [%rd1];\n" + form + " %b2, %f1;\nst.global.b32 [%rd1], %b2;\nret;\n}\n";
  t.buffers = {test::bytesOfU32({x})};
  return test::u32Of(test::run(t)[0])[0];
}

TEST(FloatOps, CvtTf32) {
  const std::string rna = "cvt.rna.tf32.f32";
  EXPECT_EQ(tf32(rna, 0x3f801000u), 0x3f802000u);  // a tie rounds away from zero
  EXPECT_EQ(tf32(rna, 0xbf800fffu), 0xbf800000u);  // below the tie: down in magnitude
  EXPECT_EQ(tf32(rna, 0x3fffffffu), 0x40000000u);  // the carry moves the exponent on
  EXPECT_EQ(tf32(rna, 0x7f7ff000u), 0x7f800000u);  // past the largest tf32: infinity
  EXPECT_EQ(tf32(rna, 0x00001000u), 0x00002000u);  // subnormals are rounded, not flushed
  EXPECT_EQ(tf32(rna, 0x7fc00001u), 0x7fffffffu);  // NaN: the canonical f32 NaN
  EXPECT_EQ(tf32("cvt.rna.satfinite.tf32.f32", 0xff800000u), 0xff7fe000u);  // -inf: -largest finite
  EXPECT_EQ(tf32("cvt.rn.tf32.f32", 0x3f803000u, "sm_90"), 0x3f804000u);    // a tie to even (up)
  EXPECT_EQ(tf32("cvt.rn.tf32.f32", 0x3f801000u, "sm_90"), 0x3f800000u);    // a tie to even (down)
  EXPECT_EQ(tf32("cvt.rz.relu.tf32.f32", 0xbf801fffu, "sm_90"), 0u);        // negative: +0
  EXPECT_THROW(tf32("cvt.rn.tf32.f32", 0, "sm_80"), Error);                 // .rn/.rz need sm_90
  // Forms and their limits as ptxas 13 states them (the tests' module is sm_75, decodesInKernel's sm_90).
  for (const char* ok : {"cvt.rna.tf32.f32 %r1, %r2;", "cvt.rna.satfinite.tf32.f32 %r1, %r2;",
                         "cvt.rn.tf32.f32 %r1, %r2;", "cvt.rz.relu.tf32.f32 %r1, %r2;",
                         "cvt.rna.tf32.f32 %r1, 0f3f800000;"})
    EXPECT_TRUE(decodesInKernel(ok)) << ok;
  for (const char* bad : {"cvt.tf32.f32 %r1, %r2;",                 // rounding required
                          "cvt.rna.relu.tf32.f32 %r1, %r2;",        // .relu with .rna
                          "cvt.rn.satfinite.tf32.f32 %r1, %r2;",    // sm_100
                          "cvt.rm.tf32.f32 %r1, %r2;",              // illegal rounding
                          "cvt.rna.ftz.tf32.f32 %r1, %r2;",         // no .ftz
                          "cvt.rna.sat.tf32.f32 %r1, %r2;",         // no .sat
                          "cvt.rna.f32.tf32 %r1, %r2;",             // tf32 is a destination only
                          "cvt.rna.tf32.f16 %r1, %h2;",             // from f32 only
                          "cvt.rna.f32.f32 %r1, %r2;",              // .rna is tf32's
                          "cvt.rna.tf32.f32 %rd1, %r2;"})           // a .b32 destination
    EXPECT_FALSE(decodesInKernel(bad)) << bad;
}

}  // namespace
}  // namespace qgpu
