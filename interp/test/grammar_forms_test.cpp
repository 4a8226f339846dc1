// The PTX spellings of issue #11 §2 that ptxas accepts (bare register names, directives
// without a space, .reg parameters, vector registers, operand expressions, address
// initialisers, function-scope .global, old targets) run with the values they compute;
// .version/.target violations are rejected with ptxas's reason. The grammar corpus
// (conformance/grammar) checks the verdicts against ptxas; these check the results.
#include <gtest/gtest.h>

#include <string>

#include "qgpu/interp/error.h"
#include "qgpu/interp/ptx_parser.h"
#include "test_util.h"

namespace qgpu {
namespace {

std::vector<uint32_t> runOut(const std::string& ptx, uint32_t words = 8, uint32_t threads = 4) {
  test::TestLaunch t;
  t.ptx = ptx;
  t.block = {threads, 1, 1};
  t.buffers = {std::vector<uint8_t>(words * 4, 0)};
  return test::u32Of(test::run(t)[0]);
}

std::string decodeError(const std::string& ptx) {
  try {
    decodeModule(ptx::parseModule(ptx, "t.ptx"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The decoder refuses `ptx` (the case `body`) with a message that holds `why`.
void expectRefused(const std::string& ptx, const std::string& body, const char* why) {
  const std::string e = decodeError(ptx);
  EXPECT_NE(e.find(why), std::string::npos) << body << " -> " << (e.empty() ? "accepted" : e);
}

TEST(GrammarForms, BareRegisterNamesPairsAndGuards) {
  auto out = runOut(test::header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .u64 in_addr, off;
  .reg .u32 t, lane, r;
  .reg .pred p, q;
  ld.param.u64 in_addr, [out];
  mov.u32 lane, %laneid;
  shfl.sync.up.b32 r|q, lane, 1, 0, -1;
  setp.ne.s32 p, lane, 0;
  selp.u32 t, 10, 20, q;
  @!p bra L;
  add.u32 t, t, 100;
L:
  add.u32 t, t, r;
  mul.wide.u32 off, lane, 4;
  add.u64 in_addr, in_addr, off;
  st.global.u32 [in_addr], t;
  ret;
}
)");
  // lane 0: q false (no lane below), p false: 20 + its own lane id 0;
  // lanes 1..3: q true, p true: 10 + 100 + r, where r = lane - 1.
  EXPECT_EQ(out[0], 20u);
  EXPECT_EQ(out[1], 110u);
  EXPECT_EQ(out[2], 111u);
  EXPECT_EQ(out[3], 112u);
}

TEST(GrammarForms, DirectivesWithoutSpace) {
  auto out = runOut(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param.u64 out)
{
  .reg.u64 a;
  .reg.b32 x;
  ld.param.u64 a, [out];
  mov.b32 x, 77;
  st.global.u32 [a], x;
  ret;
}
)", 1, 1);
  EXPECT_EQ(out[0], 77u);
}

TEST(GrammarForms, RegParametersAndSeveralReturnValues) {
  auto out = runOut(test::header() + R"(
.func (.reg .u32 s, .reg .u32 d, .reg .pred lt) f(.reg .u32 a, .reg .u32 b)
{
  add.u32 s, a, b;
  sub.u32 d, a, b;
  setp.lt.u32 lt, a, b;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .u64 o;
  .reg .u32 x, y, z;
  .reg .pred p;
  ld.param.u64 o, [out];
  mov.u32 x, 30;
  call (x, y, p), f, (x, 12);
  selp.u32 z, 1, 2, p;
  st.global.u32 [o], x;
  st.global.u32 [o+4], y;
  st.global.u32 [o+8], z;
  call (x, y, p), f, (5, 9);
  selp.u32 z, 1, 2, p;
  st.global.u32 [o+12], x;
  st.global.u32 [o+16], y;
  st.global.u32 [o+20], z;
  ret;
}
)", 6, 1);
  EXPECT_EQ(out[0], 42u);
  EXPECT_EQ(out[1], 18u);
  EXPECT_EQ(out[2], 2u);
  EXPECT_EQ(out[3], 14u);
  EXPECT_EQ(out[4], static_cast<uint32_t>(5 - 9));
  EXPECT_EQ(out[5], 1u);
}

TEST(GrammarForms, VectorRegistersAndElementAliases) {
  auto out = runOut(test::header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .u64 o;
  .reg .v2 .u32 v;
  .reg .v4 .u16 h;
  .reg .u32 t;
  ld.param.u64 o, [out];
  mov.u32 v.x, 3;
  mov.u32 v.g, 4;
  st.global.v2.u32 [o], v;
  ld.global.v2.u32 v, [o];
  add.u32 t, v.r, v.y;
  st.global.u32 [o+8], t;
  mov.u16 h.x, 1;
  mov.u16 h.y, 2;
  mov.u16 h.z, 3;
  mov.u16 h.a, 4;
  st.global.v4.u16 [o+16], h;
  ret;
}
)", 6, 1);
  EXPECT_EQ(out[0], 3u);
  EXPECT_EQ(out[1], 4u);
  EXPECT_EQ(out[2], 7u);
  EXPECT_EQ(out[4], 0x00020001u);
  EXPECT_EQ(out[5], 0x00040003u);
}

TEST(GrammarForms, OperandExpressionsAndVectorOperandsWithImmediates) {
  auto out = runOut(test::header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .u64 a, w;
  .reg .u32 t, x;
  ld.param.u64 a, [out];
  mov.u32 t, 41;
  st.global.u32 [a], t+1;
  st.global.u32 [a+4], t+0;
  mov.b32 x, {0x1234, 0x5678};
  st.global.u32 [a+8], x;
  mov.b64 w, {t, 7};
  st.global.u64 [a+16], w;
  ret;
}
)", 6, 1);
  EXPECT_EQ(out[0], 42u);
  EXPECT_EQ(out[1], 41u);
  EXPECT_EQ(out[2], 0x56781234u);
  EXPECT_EQ(out[4], 41u);
  EXPECT_EQ(out[5], 7u);
}

// mov pack/unpack lists as ptxas 13 takes them (grammar corpus forms/mov_list_*): vector
// register elements and whole vector registers are elements, an immediate can be unpacked;
// the values are the bits of the parts, element 0 lowest.
TEST(GrammarForms, MovListsWithVectorElementsWholeVectorsAndImmediates) {
  auto out = runOut(test::header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .u64 o, d;
  .reg .v2 .u32 v;
  .reg .v4 .u16 h;
  .reg .v2 .f32 f;
  .reg .u32 a;
  .reg .b16 lo, hi;
  ld.param.u64 o, [out];
  mov.u32 v.x, 0x11111111;
  mov.u32 v.y, 0x22222222;
  mov.u32 a, 0x33333333;
  mov.b64 d, {v.x, v.y};
  st.global.u64 [o], d;
  mov.b64 d, {a, v.r};
  st.global.u64 [o+8], d;
  mov.b64 {h.x, h.y, h.z, h.w}, 0x0004000300020001;
  mov.b64 d, {h.w, h.z, h.y, h.x};
  st.global.u64 [o+16], d;
  mov.b64 {v.y, _}, d;
  st.global.u32 [o+24], v.y;
  mov.b64 d, v;
  mov.b64 f, d;
  st.global.v2.f32 [o+32], f;
  mov.b32 {lo, hi}, 0x00080007;
  mov.b32 a, {hi, lo};
  st.global.u32 [o+40], a;
  ret;
}
)", 11, 1);
  EXPECT_EQ(out[0], 0x11111111u);
  EXPECT_EQ(out[1], 0x22222222u);
  EXPECT_EQ(out[2], 0x33333333u);
  EXPECT_EQ(out[3], 0x11111111u);
  EXPECT_EQ(out[4], 0x00030004u);
  EXPECT_EQ(out[5], 0x00010002u);
  EXPECT_EQ(out[6], 0x00030004u);
  EXPECT_EQ(out[8], 0x11111111u);  // d = v = {v.x, v.y as unpacked above}, through f
  EXPECT_EQ(out[9], 0x00030004u);
  EXPECT_EQ(out[10], 0x00070008u);
}

TEST(GrammarForms, MovListsRefuseWhatPtxasRefuses) {
  auto kernel = [](const char* regs, const char* body) {
    return test::header() + ".visible .entry k()\n{\n .reg .u64 d;\n .reg .u32 a;\n .reg .f32 fs;\n .reg .b16 s;\n" +
           " .reg .v2 .u32 v;\n .reg .v2 .f32 vf;\n" + regs + body + "\n ret;\n}\n";
  };
  auto refused = [&](const char* body, const char* why) { expectRefused(kernel("", body), body, why); };
  EXPECT_EQ(decodeError(kernel("", "mov.b64 d, {v.x, v.y};\n mov.b64 d, {a, 7};\n mov.b64 v, d;")), "");
  refused("mov.b64 d, {v.x, 7};", "the vector register element 'v.x' beside the immediate 7");
  refused("mov.b64 d, {vf.y, 0f3f800000};", "beside the immediate");
  refused("mov.b64 d, {a, fs};", "'fs' and 'a' in one mov list: a float element beside an integer one");
  refused("mov.b64 d, {fs, 7};", "'fs' and '7' in one mov list");
  refused("mov.b64 {v.x, vf.y}, d;", "a float element beside an integer one");
  refused("mov.b64 d, {s, s};", "'s' is a .b16 register; each element of this mov list is 32 bits wide");
  refused("mov.b64 d, {a, a, a, a};", "'a' is a .u32 register; each element of this mov list is 16 bits wide");
  refused("mov.u64 d, {a, a};", "needs a .b16, .b32 or .b64 type, not .u64");
  refused("mov.b64 {a, a}, fs;", "'fs' is a 32-bit register");
  refused("mov.b64 a, {a, a};", "'a' is a 32-bit register");
}

TEST(GrammarForms, InitialisersHoldingAddressesAndFunctionScopeGlobals) {
  auto out = runOut(test::header() + R"(
.global .u32 gx[4];
.global .u32 gy;
.const .u32 cv = 9;
.const .u64 tbl[3] = {gx, gy, generic(cv)};
.visible .entry k(.param .u64 out)
{
  .reg .u64 o, p, q;
  .reg .u32 t;
  .reg .pred e;
  .global .u32 counter = 5;
  ld.param.u64 o, [out];
  ld.const.u64 p, [tbl+8];
  mov.u64 q, gy;
  setp.eq.u64 e, p, q;
  selp.u32 t, 1, 0, e;
  st.global.u32 [o], t;
  ld.const.u64 p, [tbl+16];
  ld.u32 t, [p];
  st.global.u32 [o+4], t;
  ld.global.u32 t, [counter];
  add.u32 t, t, 1;
  st.global.u32 [counter], t;
  ld.global.u32 t, [counter];
  st.global.u32 [o+8], t;
  ret;
}
)", 3, 1);
  EXPECT_EQ(out[0], 1u);  // tbl[1] is the address of gy
  EXPECT_EQ(out[1], 9u);  // generic(cv) reads the const bank through a generic load
  EXPECT_EQ(out[2], 6u);
}

TEST(GrammarForms, OldTargetsAndVersionsAreAccepted) {
  auto out = runOut(R"(.version 6.5
.target sm_30
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u64 a;
  ld.param.u64 a, [out];
  st.global.u32 [a], 5;
  ret;
}
)", 1, 1);
  EXPECT_EQ(out[0], 5u);
}

TEST(GrammarForms, WhatTheDeclaredTargetOrVersionLacksIsRejected) {
  auto kernel = [](const char* version, const char* target, const char* body) {
    return std::string(".version ") + version + "\n.target " + target +
           "\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %r<4>;\n" + body + "\n ret;\n}\n";
  };
  EXPECT_EQ(decodeError(kernel("7.6", "sm_70", "bmsk.clamp.b32 %r1, %r2, %r3;")), "");
  EXPECT_NE(decodeError(kernel("7.6", "sm_61", "bmsk.clamp.b32 %r1, %r2, %r3;"))
                .find("'bmsk' requires .target sm_70 or higher"),
            std::string::npos);
  EXPECT_NE(decodeError(kernel("7.5", "sm_75", "bmsk.clamp.b32 %r1, %r2, %r3;"))
                .find("'bmsk' requires PTX ISA .version 7.6 or later"),
            std::string::npos);
  EXPECT_NE(decodeError(kernel("9.1", "sm_75", "")).find("unsupported .version 9.1"), std::string::npos);
  // Numbers past 32 and 64 bits (found by fuzz_ptx: the second threw out of the decoder, the
  // first was read modulo 2^32 as 7.0 and accepted).
  EXPECT_NE(decodeError(kernel("4294967303.0", "sm_75", "")).find("unsupported .version 4294967303.0"), std::string::npos);
  EXPECT_NE(decodeError(kernel("77777777777777777777777777.3", "sm_75", "")).find("unsupported .version"), std::string::npos);
  EXPECT_NE(decodeError(kernel("7.4294967296", "sm_75", "")).find("unsupported .version"), std::string::npos);
  EXPECT_NE(decodeError(kernel("6.0", "sm_80", "")).find("does not support .target sm_80"),
            std::string::npos);
  EXPECT_NE(decodeError(kernel("7.0", "sm_75", "shfl.up.b32 %r1, %r2, 1, 0;")).find("without .sync"),
            std::string::npos);
}

// Half-precision operands (f16, f16x2, bf16, bf16x2) as ptxas 13 types them ("Arguments
// mismatch" otherwise): .bN registers or the half type's own (.f16, .f16x2; ptxas declares no
// .bf16 registers), never .u16/.s16/.u32/.s32 ones; cvt and set type each operand by its own
// type. These were all accepted before (qgpu read the bits whatever the register type).
TEST(GrammarForms, HalfOperandsTakeBitOrHalfRegistersOnly) {
  auto kernel = [](const std::string& body) {
    return std::string(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n") +
           " .reg .b8 c<4>;\n .reg .b16 h<4>;\n .reg .u16 us<4>;\n .reg .s16 ss<4>;\n .reg .f16 fh<4>;\n"
           " .reg .b32 r<4>;\n .reg .u32 u<4>;\n .reg .s32 s<4>;\n .reg .f32 f<4>;\n .reg .f16x2 hh<4>;\n"
           " .reg .b64 rd<4>;\n .reg .pred p<3>;\n" +
           body + "\n ret;\n}\n";
  };
  auto refused = [&](const char* body, const char* why) { expectRefused(kernel(body), body, why); };
  // What ptxas accepts stays accepted (each line measured with ptxas 13.0.88, sm_90).
  EXPECT_EQ(decodeError(kernel("add.rn.f16 fh1, fh2, h3;\n fma.rn.f16x2 r1, hh1, hh2, r3;\n neg.f16 h1, fh2;\n"
                               " max.NaN.bf16x2 r1, r2, r3;\n ex2.approx.f16x2 hh1, hh2;\n tanh.approx.bf16 h1, h2;\n"
                               " setp.lt.f16x2 p1|p2, hh1, r2;\n set.lt.u32.f16 u1, fh1, h2;\n"
                               " set.lt.s32.f16x2 hh1, hh2, r1;\n set.lt.bf16.f16 us1, fh1, fh2;\n"
                               " set.lt.bf16x2.bf16x2 f1, r1, r2;\n set.lt.f16.f32 fh1, f1, r1;\n"
                               " cvt.rn.f16.f32 r1, f1;\n cvt.f32.f16 f2, rd1;\n cvt.rn.f16.s32 h1, hh1;\n"
                               " cvt.rn.f16.u8 fh1, s1;\n cvt.rzi.u16.f16 ss1, fh1;\n cvt.rn.bf16.f16 h1, fh1;\n"
                               " cvt.rn.f16x2.f32 hh1, f1, rd1;\n cvt.rn.satfinite.e5m2x2.f16x2 h1, hh1;\n"
                               " cvt.rn.f16x2.e4m3x2 hh1, h1;")),
            "");
  refused("add.rn.f16 us1, h1, h2;", "'us1' is a .u16 register; 'add.rn.f16 us1, h1, h2;' needs .f16 or .b16 operands");
  refused("fma.rn.f16x2 r1, r2, r3, u1;", "'u1' is a .u32 register; 'fma.rn.f16x2 r1, r2, r3, u1;' needs .f16x2 or .b32");
  refused("min.f16x2 r1, f1, r2;", "'f1' is a .f32 register");
  refused("neg.f16 h1, ss1;", "'ss1' is a .s16 register");
  refused("fma.rn.bf16 fh1, h2, h3, h0;", "'fh1' is a .f16 register; 'fma.rn.bf16 fh1, h2, h3, h0;' needs .b16 operands");
  refused("add.rn.bf16x2 hh1, r1, r2;", "'hh1' is a .f16x2 register");
  refused("ex2.approx.f16x2 u1, r1;", "'u1' is a .u32 register");
  refused("setp.lt.f16x2 p1, u1, r1;", "'u1' is a .u32 register");
  refused("setp.lt.bf16 p1, fh1, h1;", "'fh1' is a .f16 register");
  refused("set.lt.f16.f16 us1, h1, h2;", "'us1' is a .u16 register; the destination of");
  refused("set.lt.bf16.bf16 fh1, h1, h2;", "'fh1' is a .f16 register; the destination of");
  refused("set.lt.u32.f16 f1, h1, h2;", "'f1' is a .f32 register; the destination of");
  refused("set.lt.u32.f16 r1, h1, ss1;", "'ss1' is a .s16 register");
  refused("set.lt.f16.f32 h1, u1, f1;", "'u1' is a .u32 register");
  refused("cvt.rn.f16.f32 us1, f1;", "'us1' is a .u16 register; the destination of 'cvt.rn.f16.f32 us1, f1;' needs .f16 or .b16");
  refused("cvt.rn.f16.f32 u1, f1;", "'u1' is a .u32 register; the destination of");
  refused("cvt.rn.f16.f32 h1, u1;", "'u1' is a .u32 register; the source of");
  refused("cvt.f32.f16 f1, ss1;", "'ss1' is a .s16 register; the source of");
  refused("cvt.f32.f16 f1, c1;", "'c1' is a 8-bit register; the source of 'cvt.f32.f16 f1, c1;' needs a 16-bit (or wider)");
  refused("cvt.rzi.u16.f16 fh1, h1;", "'fh1' is a .f16 register; the destination of");
  refused("cvt.rn.f16.s32 h1, f1;", "'f1' is a .f32 register; the source of");
  refused("cvt.rn.bf16.f32 us1, f1;", "'us1' is a .u16 register; the destination of");
  refused("cvt.f32.bf16 f1, fh1;", "'fh1' is a .f16 register; the source of");
  refused("cvt.f32.bf16 f1, r1;", "'r1' is a 32-bit register; the source of 'cvt.f32.bf16 f1, r1;' needs a 16-bit register");
  refused("cvt.rn.f16x2.f32 u1, f1, f2;", "'u1' is a .u32 register; the destination of");
  refused("cvt.rn.f16x2.f32 r1, f1, s1;", "'s1' is a .s32 register; the second source of");
  refused("cvt.rn.bf16x2.f32 hh1, f1, f2;", "'hh1' is a .f16x2 register; the destination of");
  refused("cvt.rn.satfinite.e4m3x2.f32 us1, f1, f2;", "'us1' is a .u16 register; the destination of");
  refused("cvt.rn.satfinite.e5m2x2.f16x2 h1, u1;", "'u1' is a .u32 register; the source of");
  refused("cvt.rn.f16x2.e4m3x2 r1, fh1;", "'fh1' is a .f16 register; the source of");
}

TEST(GrammarForms, FloatOperandsOfCvtSetSelpMovTakeFloatOrBitRegistersOnly) {
  auto kernel = [](const std::string& body) {
    return std::string(".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n") +
           " .reg .b32 r<4>;\n .reg .u32 u<4>;\n .reg .s32 s<4>;\n .reg .f32 f<4>;\n .reg .b64 rd<4>;\n"
           " .reg .u64 ud<4>;\n .reg .f64 fd<4>;\n .reg .pred p<3>;\n" +
           body + "\n ret;\n}\n";
  };
  auto refused = [&](const char* body, const char* why) { expectRefused(kernel(body), body, why); };
  // What ptxas accepts stays accepted (each line measured with ptxas 13, sm_75).
  EXPECT_EQ(decodeError(kernel(" cvt.rn.f32.s32 f1, s1;\n cvt.rn.f32.s32 r1, s1;\n cvt.rn.f32.s32 rd1, s1;\n"
                               " cvt.rzi.s32.f32 s1, r1;\n cvt.rzi.s32.f32 s1, rd1;\n cvt.f64.f32 fd1, r1;\n"
                               " cvt.f64.f32 rd1, f1;\n cvt.rn.f32.f64 f1, rd1;\n cvt.rni.f32.f32 f1, r1;\n"
                               " set.lt.u32.f32 u1, f1, r1;\n set.lt.s32.f32 r1, f1, f2;\n set.lt.f32.f32 r1, f1, f2;\n"
                               " set.lt.f32.s32 f1, s1, s2;\n set.lt.u32.f64 u1, fd1, rd1;\n set.lt.f32.f64 f1, fd1, fd2;\n"
                               " selp.f32 r1, f1, r2, p1;\n selp.f32 f1, f2, 0f3F800000, p1;\n selp.f64 rd1, fd1, rd2, p1;\n"
                               " mov.f32 r1, f1;\n mov.f32 f1, r1;\n mov.f64 rd1, fd1;\n mov.f64 fd1, rd1;\n"
                               " setp.lt.f32 p1, f1, r1;\n setp.lt.f64 p1, fd1, rd1;")),
            "");
  refused("set.lt.u32.f32 u1, f1, u2;", "'u2' is a .u32 register; 'set.lt.u32.f32 u1, f1, u2;' needs .f32 or .b32 operands");
  refused("set.lt.f32.f32 u1, f1, f2;", "'u1' is a .u32 register; the destination of 'set.lt.f32.f32 u1, f1, f2;' needs .f32 or .b32");
  refused("set.lt.u32.f32 f1, f1, f2;", "'f1' is a .f32 register; the destination of");
  refused("set.lt.u32.f64 u1, fd1, r1;", "'r1' is a 32-bit register");
  refused("cvt.rn.f32.s32 u1, s1;", "'u1' is a .u32 register; the destination of 'cvt.rn.f32.s32 u1, s1;' needs .f32 or .b32 (or a wider .bN)");
  refused("cvt.rn.f32.s32 ud1, s1;", "'ud1' is a .u64 register; the destination of");
  refused("cvt.rzi.s32.f32 s1, u1;", "'u1' is a .u32 register; the source of");
  refused("cvt.f64.f32 fd1, u1;", "'u1' is a .u32 register; the source of");
  refused("cvt.f64.f32 fd1, fd2;", "'fd2' is a .f64 register; the source of");
  refused("selp.f32 u1, f1, f2, p1;", "'u1' is a .u32 register; 'selp.f32 u1, f1, f2, p1;' needs .f32 or .b32 operands");
  refused("selp.f64 fd1, ud1, fd2, p1;", "'ud1' is a .u64 register");
  refused("mov.f32 u1, f1;", "'u1' is a .u32 register; 'mov.f32 u1, f1;' needs .f32 or .b32 operands");
  refused("mov.f32 f1, rd1;", "'rd1' is a 64-bit register");
  refused("setp.lt.f32 p1, f1, s1;", "'s1' is a .s32 register");
}

}  // namespace
}  // namespace qgpu
