// Lowering: what it produces for small snippets, what the dataflow pass may and may not
// remove, and that anything unsupported is an error naming the PTX instruction.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

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

// mov pack and unpack lists (machine/test/data/mov_pack.ptx, every shape the decoder takes):
// at W=4 on two warps the machine's outputs equal the interpreter's and a host reference
// (parts in distinct bit patterns, high bits set on odd threads, so swapped halves or a
// sign-extended part fail), and each list is spelled with steps the compiled ALU runs.
std::vector<uint64_t> movPackReference(const uint64_t x[4], uint64_t t, uint64_t ntid) {
  auto lo32 = [](uint64_t v) { return v & 0xffffffffu; };
  auto lo16 = [](uint64_t v) { return v & 0xffffu; };
  auto byte = [](uint64_t v, int i) { return (v >> (8 * i)) & 0xffu; };
  const uint64_t h5 = lo16(x[3]), h6 = lo16(x[3] >> 16), c5 = byte(x[3], 0), c6 = byte(x[3], 1);
  const uint64_t whole = lo32(x[0]) | lo32(x[1]) << 32;
  return {
      whole,
      x[2],
      (lo16(x[0]) | lo16(x[1]) << 16) | (lo16(x[1]) | lo16(x[0]) << 16) << 32,
      (h5 | h6 << 16) | (h6 | h5 << 16) << 32,
      lo16(x[0]) | lo16(x[1]) << 16 | lo16(x[2]) << 32 | lo16(x[3]) << 48,
      x[3],
      lo32(x[2]) | (byte(x[2], 3) | byte(x[2], 1) << 8 | byte(x[2], 0) << 16 | byte(x[2], 2) << 24) << 32,
      (c6 | c5 << 8) | c5 << 16 | c6 << 24,
      lo32(x[0]) | uint64_t{0x89abcdef} << 32,
      0xfedcba98u | lo32(x[1]) << 32,
      (lo16(x[0]) | 0xfffeu << 16) | (0x8001u | lo16(x[1]) << 16) << 32,
      0x7ffeu | 0x8001u << 16 | uint64_t{0x76543210u ^ 0xfedcba98u} << 32,
      (x[0] >> 32) | lo32(x[1]) << 32,
      t % 2 == 0 ? whole : x[3],
      t % 2 == 1 ? x[0] : 0x2222222211111111u,
      lo16(x[0]) | 0xbeefu << 16 | lo16(x[1]) << 32 | uint64_t{7} << 48,
      0xfffffffe80000001u,
      t | ntid << 32,
  };
}

TEST(MachineLower, MovPackAndUnpackEqualTheInterpreterAndTheHostReference) {
  std::ifstream f(std::string(QGPU_SOURCE_DIR) + "/machine/test/data/mov_pack.ptx");
  ASSERT_TRUE(f) << "machine/test/data/mov_pack.ptx";
  std::stringstream ptx;
  ptx << f.rdbuf();
  constexpr uint32_t kThreads = 8, kWords = 18;
  std::mt19937_64 rng(20261207);
  std::vector<uint64_t> inputs(kThreads * 4);
  for (uint32_t i = 0; i < inputs.size(); ++i) inputs[i] = rng() | ((i / 4) % 2 ? 0x8080808080808080u : 0);
  Launch l;
  l.block = {kThreads, 1, 1};
  std::vector<uint8_t> in(inputs.size() * 8);
  std::memcpy(in.data(), inputs.data(), in.size());
  l.buffers = {{"in", in}, {"out", std::vector<uint8_t>(kThreads * kWords * 8)}};
  l.args = {bufferArg(0), bufferArg(1)};
  BothResult r = runBoth(ptx.str(), "mov_pack", l);
  ASSERT_EQ(r.machine, r.replayed);
  ASSERT_EQ(r.oracle.size(), 2u);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const std::vector<uint64_t> want = movPackReference(&inputs[4 * t], t, kThreads);
    ASSERT_EQ(want.size(), kWords);
    for (uint32_t k = 0; k < kWords; ++k) {
      uint64_t oracle = 0, machine = 0;
      std::memcpy(&oracle, r.oracle[1].data() + 8 * (kWords * t + k), 8);
      std::memcpy(&machine, r.machine[1].data() + 8 * (kWords * t + k), 8);
      EXPECT_EQ(oracle, want[k]) << fmt::format("interpreter, thread {} word {}", t, k);
      EXPECT_EQ(machine, want[k]) << fmt::format("machine, thread {} word {}", t, k);
    }
  }
  EXPECT_EQ(r.oracle, r.machine);
  // The lists' steps: MOV, OR, MADLO at 2 or 4 bytes, SHL and SHR at 4 or 8 (SHR also at 2) —
  // ops and widths the compiled step's ALU runs (compiler/src/units/alu.cpp, aluComputes).
  ASSERT_EQ(r.program.ptxText.size(), r.program.code.size());
  std::map<std::string, uint32_t> steps;
  for (size_t k = 0; k < r.program.code.size(); ++k) {
    const std::string& text = r.program.ptxText[k];
    if (text.find("mov.b") == std::string::npos || text.find('{') == std::string::npos) continue;
    ++steps[text];
    const MInstr& m = r.program.code[k];
    const uint32_t w = m.bytes();
    const bool runs = m.op == MOp::Mov || m.op == MOp::Or || (m.op == MOp::MadLo && (w == 2 || w == 4)) ||
                      (m.op == MOp::Shl && w >= 4) || (m.op == MOp::Shr && w >= 2);
    EXPECT_TRUE(runs) << text << ": " << disassemble(m);
  }
  auto stepsOf = [&](const std::string& list) {
    for (const auto& [text, n] : steps)
      if (text.find(list) != std::string::npos) return n;
    return 0u;
  };
  EXPECT_EQ(stepsOf("%rd20, {%r2, %r3}"), 2u);                  // SHL.u64, OR
  EXPECT_EQ(stepsOf("{%r6, %r7}, %rd12"), 2u);                  // MOV.u32, SHR.u64
  EXPECT_EQ(stepsOf("%r8, {%h1, %h2}"), 1u);                    // MADLO.u32
  EXPECT_EQ(stepsOf("{%h5, %h6}, %r5"), 2u);                    // MOV.u16, SHR.u32
  EXPECT_EQ(stepsOf("%rd21, {%h1, %h2, %h3, %h4}"), 4u);        // 2 MADLO.u32, SHL.u64, OR
  EXPECT_EQ(stepsOf("{%h7, %h8, %h9, %h10}, %rd13"), 5u);       // MOV, SHR.u32, SHR.u64 + MOV, SHR.u64
  EXPECT_EQ(stepsOf("%r11, {%c4, %c2, %c1, %c3}"), 3u);         // 3 MADLO
  EXPECT_EQ(stepsOf("%rd22, {%r2, 0x89abcdef}"), 1u);           // OR with the known high half
  EXPECT_EQ(stepsOf("%rd26, {0x80000001, 0xfffffffe}"), 1u);    // MOV of the packed constant
  EXPECT_EQ(stepsOf("{_, %r17}, %rd10"), 1u);                   // SHR.u64 only
}

TEST(MachineLower, EveryMachineInstructionKnowsItsPtx) {
  BothResult r = runBoth(kernel("\tst.global.u32 [%rd4], %r1;\n"), "k", oneBufferLaunch(4, 4));
  ASSERT_EQ(r.program.ptxText.size(), r.program.code.size());
  EXPECT_NE(r.program.ptxText.back().find("ret;"), std::string::npos);
}

}  // namespace
}  // namespace qgpu::machine::test
