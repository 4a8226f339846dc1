// Lowering: what it produces for small snippets, what the dataflow pass may and may not
// remove, and that anything unsupported is an error naming the PTX instruction.
#include <gtest/gtest.h>

#include <cstring>

#include <fmt/format.h>

#include "machine_test_util.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine::test {
namespace {

std::string kernel(const std::string& body) {
  return ".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_out)\n{\n"
         "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<8>;\n"
         "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n"
         "\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n" + body +
         "\tret;\n}\n";
}

std::string lowerError(const std::string& ptx) {
  Program p = decodeText(ptx);
  try {
    lowerKernel(p, "k");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Decode);
    return e.what();
  }
  return "";
}

TEST(MachineLower, UnsupportedInstructionsNameTheInstructionAndReason) {
  std::string e = lowerError(kernel("\tdiv.full.f32 %f1, %f2, %f3;\n\tst.global.f32 [%rd4], %f1;\n"));
  EXPECT_NE(e.find("not lowerable to the machine"), std::string::npos) << e;
  EXPECT_NE(e.find("snippet.ptx:"), std::string::npos) << e;
  EXPECT_NE(e.find("div.full.f32 %f1, %f2, %f3;"), std::string::npos) << e;
  e = lowerError(kernel("\tsqrt.approx.f32 %f1, %f2;\n\tst.global.f32 [%rd4], %f1;\n"));
  EXPECT_NE(e.find("sqrt.approx.f32"), std::string::npos) << e;
  e = lowerError(kernel("\tex2.approx.f32 %f1, %f2;\n\tst.global.f32 [%rd4], %f1;\n"));
  EXPECT_NE(e.find("ex2.approx.f32"), std::string::npos) << e;
  e = lowerError(kernel("\tsetp.lt.and.s32 %p1, %r1, 2, %p2;\n\tselp.u32 %r2, 1, 0, %p1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("boolean combination"), std::string::npos) << e;
  // The instructions of issue #11 the machine has no unit for (PTX ISA 7.6 for szext).
  auto kernel76 = [](const std::string& body) {
    std::string k = kernel(body);
    return k.replace(k.find(".version 7.0"), 12, ".version 7.6");
  };
  e = lowerError(kernel("\tsetp.lt.u32 %p1, %r1, 2;\n\tbar.red.popc.u32 %r2, 0, %p1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("bar.red (a block-wide reduction) is not lowered"), std::string::npos) << e;
  e = lowerError(kernel76("\tszext.clamp.s32 %r2, %r1, 3;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("'szext.clamp.s32' is not lowered"), std::string::npos) << e;
  e = lowerError(kernel76("\tmatch.any.sync.b32 %r2, %r1, -1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("'match.any.sync.b32' is not lowered"), std::string::npos) << e;
  e = lowerError(kernel("\tbar.arrive 1, 32;\n\tst.global.u32 [%rd4], %r1;\n"));
  EXPECT_NE(e.find("bar.arrive (arrival without waiting) is not lowered"), std::string::npos) << e;
  e = lowerError(kernel("\tvadd.u32.u32.u32.sat %r2, %r1.b1, %r1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("'vadd.u32.u32.u32.sat' is not lowered"), std::string::npos) << e;
  e = lowerError(kernel("\tvmad.u32.u32.u32 %r2, %r1, -%r1, %r1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("'vmad.u32.u32.u32' is not lowered"), std::string::npos) << e;
  e = lowerError(kernel("\tvavrg4.u32.u32.u32 %r2, %r1, %r1, %r1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("'vavrg4.u32.u32.u32' is not lowered"), std::string::npos) << e;
  auto kernel80 = [](const std::string& body) {
    std::string k = kernel(body);
    return k.replace(k.find(".target sm_75"), 13, ".target sm_80");
  };
  e = lowerError(kernel80("\tcvt.rna.tf32.f32 %r2, %f1;\n\tst.global.u32 [%rd4], %r2;\n"));
  EXPECT_NE(e.find("'cvt.rna.tf32.f32' is not lowered (no fp8 or tf32 conversions)"), std::string::npos) << e;
}

TEST(MachineLower, ConstantsAndCopiesCostNoSteps) {
  BothResult r = runBoth(kernel("\tmov.u32 %r2, 7;\n\tmov.b32 %r3, %r1;\n\tadd.s32 %r4, %r3, %r2;\n"
                                "\tst.global.u32 [%rd4], %r4;\n"),
                         "k", oneBufferLaunch(4, 4));
  EXPECT_EQ(r.oracle, r.machine);
  // ld.param, mul.wide, add.s64, add.s32, st, ret: the two movs, the cvta and mov %tid are gone.
  EXPECT_EQ(r.program.code.size(), 6u);
  for (const MInstr& in : r.program.code) EXPECT_NE(in.op, MOp::Mov) << disassemble(in);
}

TEST(MachineLower, CopyIsKeptWhenItsSourceChangesBeforeAUse) {
  // %r3 = %r1 then %r1 changes: %r3 must keep the old value.
  BothResult r = runBoth(kernel("\tmov.b32 %r3, %r1;\n\tadd.s32 %r1, %r1, 100;\n\tadd.s32 %r4, %r3, %r1;\n"
                                "\tst.global.u32 [%rd4], %r4;\n"),
                         "k", oneBufferLaunch(4, 4));
  EXPECT_EQ(r.oracle, r.machine);
  bool hasMov = false;
  for (const MInstr& in : r.program.code) hasMov = hasMov || in.op == MOp::Mov;
  EXPECT_TRUE(hasMov);
}

TEST(MachineLower, CopyIsKeptWhenItDoesNotDominateTheUse) {
  std::string body =
      "\tsetp.eq.s32 %p1, %r1, 2;\n\t@%p1 bra L1;\n\tmov.u32 %r5, 9;\nL1:\n"
      "\tst.global.u32 [%rd4], %r5;\n";
  BothResult r = runBoth(kernel(body), "k", oneBufferLaunch(4, 4));
  EXPECT_EQ(r.oracle, r.machine);  // lane 2 stores the initial 0, the others 9
  uint32_t lane2 = 0;
  std::memcpy(&lane2, r.machine[0].data() + 8, 4);
  EXPECT_EQ(lane2, 0u);
}

TEST(MachineLower, DeadWritesAreDropped) {
  BothResult r = runBoth(kernel("\tmul.lo.s32 %r6, %r1, %r1;\n\tadd.s32 %r7, %r1, 1;\n"
                                "\tst.global.u32 [%rd4], %r7;\n"),
                         "k", oneBufferLaunch(4, 4));
  EXPECT_EQ(r.oracle, r.machine);
  for (const MInstr& in : r.program.code) EXPECT_NE(in.op, MOp::MulLo) << "dead mul.lo kept";
}

TEST(MachineLower, VectorAccessesBecomeOneStepPerElement) {
  BothResult r = runBoth(kernel("\tmov.u32 %r2, 5;\n\tadd.s32 %r3, %r1, 1;\n"
                                "\tmul.wide.u32 %rd5, %r1, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n"
                                "\tst.global.v2.u32 [%rd6], {%r2, %r3};\n"
                                "\tld.global.v2.u32 {%r4, %r5}, [%rd6];\n\tadd.s32 %r6, %r4, %r5;\n"
                                "\tst.global.u32 [%rd6+4], %r6;\n"),
                         "k", oneBufferLaunch(4, 8));
  EXPECT_EQ(r.oracle, r.machine);
  int st = 0, ld = 0;
  for (const MInstr& in : r.program.code) {
    st += in.op == MOp::St;
    ld += in.op == MOp::Ld;
  }
  EXPECT_EQ(st, 3);
  EXPECT_EQ(ld, 3);  // ld.param + 2 elements
}

TEST(MachineLower, EveryMachineInstructionKnowsItsPtx) {
  BothResult r = runBoth(kernel("\tst.global.u32 [%rd4], %r1;\n"), "k", oneBufferLaunch(4, 4));
  ASSERT_EQ(r.program.ptxText.size(), r.program.code.size());
  EXPECT_NE(r.program.ptxText.back().find("ret;"), std::string::npos);
}

}  // namespace
}  // namespace qgpu::machine::test
