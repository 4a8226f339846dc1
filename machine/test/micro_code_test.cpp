// The shift-and-mask micro-codes of the lowering (mul24/mad24, sad, dp4a/dp2a, bfi with a
// register field, the generic prmt, mul.hi.64, min/max.f64: docs/machine.md §2.1) against
// the interpreter, form by form, on edge values and random ones; and that the lowering
// really spells them with the ALU's ops (none of the units they replace is left).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <random>

#include "machine_test_util.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine::test {
namespace {

// One form: a statement reading %r1-%r4 (the inputs' low halves) and %rd1-%rd4 (the 64-bit
// inputs), writing %r10 (32-bit result) or %rd10 (64-bit result).
struct Form {
  std::string statement;
  bool wide;
};

std::vector<Form> forms() {
  std::vector<Form> f;
  for (const char* t : {"s32", "u32"}) {
    for (const char* h : {"lo", "hi"}) {
      f.push_back({fmt::format("mul24.{}.{} %r10, %r1, %r2;", h, t), false});
      f.push_back({fmt::format("mul24.{}.{} %r10, %r1, -8388607;", h, t), false});
      f.push_back({fmt::format("mad24.{}.{} %r10, %r1, %r2, %r3;", h, t), false});
    }
    f.push_back({fmt::format("sad.{} %r10, %r1, %r2, %r3;", t), false});
    for (const char* u : {"s32", "u32"}) {
      f.push_back({fmt::format("dp4a.{}.{} %r10, %r1, %r2, %r3;", t, u), false});
      f.push_back({fmt::format("dp4a.{}.{} %r10, %r1, 0x80ff017f, %r3;", t, u), false});
      for (const char* h : {"lo", "hi"}) f.push_back({fmt::format("dp2a.{}.{}.{} %r10, %r1, %r2, %r3;", h, t, u), false});
    }
  }
  for (const char* t : {"s64", "u64"}) f.push_back({fmt::format("sad.{} %rd10, %rd1, %rd2, %rd3;", t), true});
  f.push_back({"cvt.u16.u32 %rs1, %r1;\n\tcvt.u16.u32 %rs2, %r2;\n\tcvt.u16.u32 %rs3, %r3;\n"
               "\tsad.s16 %rs4, %rs1, %rs2, %rs3;\n\tcvt.u32.u16 %r10, %rs4;", false});
  f.push_back({"bfi.b32 %r10, %r1, %r2, %r3, %r4;", false});
  f.push_back({"bfi.b32 %r10, %r1, %r2, 5, %r4;", false});
  f.push_back({"bfi.b32 %r10, %r1, %r2, %r3, 12;", false});
  f.push_back({"bfi.b64 %rd10, %rd1, %rd2, %r3, %r4;", true});
  f.push_back({"prmt.b32 %r10, %r1, %r2, %r3;", false});
  for (const char* sel : {"0x3210", "0x7654", "0x0123", "0x89ab", "0xfedc", "0x1c4f", "0x0040"})
    f.push_back({fmt::format("prmt.b32 %r10, %r1, %r2, {};", sel), false});
  for (const char* t : {"s64", "u64"}) {
    f.push_back({fmt::format("mul.hi.{} %rd10, %rd1, %rd2;", t), true});
    f.push_back({fmt::format("mul.hi.{} %rd10, %rd1, -3;", t), true});
    f.push_back({fmt::format("mad.hi.cc.{} %rd10, %rd1, %rd2, %rd3;\n\taddc.{} %rd10, %rd10, %rd4;", t, t), true});
  }
  for (const char* m : {"min", "max"}) {
    f.push_back({fmt::format("mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\t{}.f64 %fd3, %fd1, %fd2;\n\tmov.b64 %rd10, %fd3;", m), true});
    f.push_back({fmt::format("mov.b64 %fd1, %rd1;\n\t{}.f64 %fd3, %fd1, 0d8000000000000000;\n\tmov.b64 %rd10, %fd3;", m), true});
  }
  return f;
}

std::string kernelOf(const Form& form) {
  std::string s = ".version 7.0\n.target sm_75\n.address_size 64\n"
                  ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
                  "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<16>;\n\t.reg .f64 %fd<4>;\n\t.reg .b64 %rd<24>;\n"
                  "\tld.param.u64 %rd11, [k_in];\n\tcvta.to.global.u64 %rd12, %rd11;\n"
                  "\tld.param.u64 %rd13, [k_out];\n\tcvta.to.global.u64 %rd14, %rd13;\n"
                  "\tmov.u32 %r11, %tid.x;\n\tmul.wide.u32 %rd15, %r11, 32;\n\tadd.s64 %rd16, %rd12, %rd15;\n"
                  "\tmul.wide.u32 %rd17, %r11, 8;\n\tadd.s64 %rd18, %rd14, %rd17;\n";
  for (int i = 1; i <= 4; ++i) s += fmt::format("\tld.global.u64 %rd{}, [%rd16+{}];\n\tcvt.u32.u64 %r{}, %rd{};\n", i, 8 * (i - 1), i, i);
  s += "\t" + form.statement + "\n";
  s += form.wide ? "\tst.global.u64 [%rd18], %rd10;\n" : "\tcvt.u64.u32 %rd19, %r10;\n\tst.global.u64 [%rd18], %rd19;\n";
  return s + "\tret;\n}\n";
}

uint64_t input(std::mt19937_64& rng) {
  static const uint64_t kEdge[] = {
      0, 1, 2, 3, 7, 8, 31, 32, 33, 63, 64, 65, 255, 256, 0x7f, 0x80, 0xff, 0xffff, 0x8000, 0x00ffffff, 0x00800000,
      0xff800000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff, 0x8000000000000000,
      0xffffffffffffffff, 0xfffffffffffffffe, 0x3ff0000000000000, 0xbff0000000000000, 0x7ff0000000000000,
      0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001, 0x000fffffffffffff,
      0x800fffffffffffff, 0x7fefffffffffffff, 0x0010000000000000, 0x4000000000000000, 0xc000000000000000};
  switch (rng() % 4) {
    case 0: return kEdge[rng() % std::size(kEdge)];
    case 1: return rng() % 300;  // positions, lengths, small products
    case 2: return 0 - (rng() % 300);
    default: return rng();
  }
}

TEST(MachineMicroCode, EveryFormEqualsTheInterpreterOnEdgeAndRandomValues) {
  std::mt19937_64 rng(20261207);
  constexpr uint32_t kThreads = 64, kLaunches = 4;
  uint64_t lanes = 0;
  for (const Form& form : forms()) {
    const std::string ptx = kernelOf(form);
    for (uint32_t launchIndex = 0; launchIndex < kLaunches; ++launchIndex) {
      Launch l;
      l.block = {kThreads, 1, 1};
      std::vector<uint8_t> in(kThreads * 32);
      for (size_t i = 0; i < kThreads * 4; ++i) {
        const uint64_t v = input(rng);
        std::memcpy(in.data() + 8 * i, &v, 8);
      }
      l.buffers = {{"in", in}, {"out", std::vector<uint8_t>(kThreads * 8)}};
      l.args = {bufferArg(0), bufferArg(1)};
      BothResult r;
      try {
        r = runBoth(ptx, "k", l);
      } catch (const std::exception& e) {
        FAIL() << form.statement << ": " << e.what();
      }
      ASSERT_EQ(r.machine, r.replayed) << form.statement;
      for (uint32_t t = 0; t < kThreads; ++t) {
        uint64_t x = 0, y = 0, a[4];
        std::memcpy(&x, r.oracle[1].data() + 8 * t, 8);
        std::memcpy(&y, r.machine[1].data() + 8 * t, 8);
        std::memcpy(a, in.data() + 32 * t, 32);
        ASSERT_EQ(x, y) << form.statement << " thread " << t << fmt::format(" inputs {:#x} {:#x} {:#x} {:#x}", a[0], a[1], a[2], a[3]);
        ++lanes;
      }
      // The micro-code is spelled with the compiled ALU's ops: none of the replaced units.
      for (const MInstr& m : r.program.code) {
        ASSERT_NE(m.op, MOp::Mul24) << form.statement;
        ASSERT_NE(m.op, MOp::Sad) << form.statement;
        ASSERT_NE(m.op, MOp::Dp) << form.statement;
        ASSERT_NE(m.op, MOp::Bfi) << form.statement;
        ASSERT_NE(m.op, MOp::Prmt) << form.statement;
        ASSERT_NE(m.op, MOp::MulP) << form.statement;
        ASSERT_NE(m.op, MOp::MulPC) << form.statement;
        ASSERT_NE(m.op, MOp::FMin) << form.statement;
        ASSERT_NE(m.op, MOp::FMax) << form.statement;
      }
    }
  }
  EXPECT_EQ(lanes, forms().size() * kThreads * kLaunches);
}

TEST(MachineMicroCode, NamedPermuteModesStayOneStep) {
  const std::string ptx = kernelOf({"prmt.b32.f4e %r10, %r1, %r2, %r3;", false});
  const MachineProgram p = lowerKernel(decodeText(ptx), "k");
  size_t prmt = 0;
  for (const MInstr& m : p.code) prmt += m.op == MOp::Prmt;
  EXPECT_EQ(prmt, 1u);
}

}  // namespace
}  // namespace qgpu::machine::test
