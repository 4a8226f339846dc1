// The shift-and-mask micro-codes of the lowering (mul24/mad24, sad, dp4a/dp2a, bfi with a
// register field, the generic prmt, mul.hi.64, min/max.f64, div/rem, f32 div/rcp/sqrt, the f64
// arithmetic (add, sub, mul, div, rcp, sqrt, fma, cvt.f32.f64; inline and as shared routines), the
// conversions without a compiled I2F/F2I, 64-bit popc/clz/brev, mov pack/unpack lists:
// docs/machine.md §2.1) against the interpreter, form by form, on edge values and random ones;
// and that the lowering really spells them with the ALU's ops (none of the units they replace
// is left).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <iostream>
#include <map>
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

// f64 add/sub, div/rcp, sqrt, fma and cvt.f32.f64 in every mode, and with known operands
// (%fd1, %fd2, %fd0: the inputs %rd1, %rd2, %rd3).
std::vector<Form> f64Forms() {
  std::vector<Form> f;
  const std::string in3 = "mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\tmov.b64 %fd0, %rd3;\n\t";
  auto wide = [&](const std::string& statement) { return Form{in3 + statement + "\n\tmov.b64 %rd10, %fd3;", true}; };
  for (const char* rnd : {"rn", "rz", "rm", "rp"}) {
    for (const char* op : {"add", "sub", "div"}) f.push_back(wide(fmt::format("{}.{}.f64 %fd3, %fd1, %fd2;", op, rnd)));
    f.push_back(wide(fmt::format("rcp.{}.f64 %fd3, %fd2;", rnd)));
    f.push_back(wide(fmt::format("sqrt.{}.f64 %fd3, %fd1;", rnd)));
    f.push_back(wide(fmt::format("fma.{}.f64 %fd3, %fd1, %fd2, %fd0;", rnd)));
    for (const char* sfx : {"", ".ftz", ".sat", ".ftz.sat"})
      f.push_back({in3 + fmt::format("cvt.{}{}.f32.f64 %f3, %fd1;\n\tmov.b32 %r10, %f3;", rnd, sfx), false});
  }
  f.push_back(wide("add.f64 %fd3, %fd1, 0d3ff0000000000001;"));
  f.push_back(wide("sub.rm.f64 %fd3, 0d8000000000000000, %fd2;"));
  f.push_back(wide("div.rn.f64 %fd3, %fd1, 0d4008000000000000;"));
  f.push_back(wide("div.rz.f64 %fd3, 0d0000000000000001, %fd2;"));
  f.push_back(wide("fma.rn.f64 %fd3, %fd1, 0dbff0000000000000, %fd1;"));
  f.push_back(wide("fma.rp.f64 %fd3, %fd1, %fd1, 0d8000000000000000;"));
  f.push_back(wide("mad.rm.f64 %fd3, %fd1, %fd2, %fd2;"));
  f.push_back(wide("sqrt.rz.f64 %fd3, 0d4000000000000000;"));
  f.push_back(wide("add.rn.f64 %fd1, %fd1, %fd2;\n\tmov.f64 %fd3, %fd1;"));  // d is a
  f.push_back({in3 + "mov.b64 %fd3, %rd4;\n\tsetp.lt.u64 %p1, %rd3, %rd4;\n\t@%p1 div.rn.f64 %fd3, %fd1, %fd2;\n\t"
                     "mov.b64 %rd10, %fd3;", true});  // guarded
  return f;
}

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
  // div and rem: restoring division on the ALU, register and known operands, an aliased
  // destination, and a guard that leaves some lanes' destination as it was.
  for (const char* op : {"div", "rem"})
    for (const char* t : {"s32", "u32"}) {
      f.push_back({fmt::format("{}.{} %r10, %r1, %r2;", op, t), false});
      f.push_back({fmt::format("{}.{} %r10, %r1, -7;", op, t), false});
      f.push_back({fmt::format("{}.{} %r10, %r1, 0;", op, t), false});
      f.push_back({fmt::format("{}.{} %r10, -2147483648, %r2;", op, t), false});
      f.push_back({fmt::format("{}.{} %r2, %r2, %r1;\n\tmov.u32 %r10, %r2;", op, t), false});
      f.push_back({fmt::format("mov.u32 %r10, %r4;\n\tsetp.lt.u32 %p1, %r3, %r4;\n\t@%p1 {}.{} %r10, %r1, %r2;", op, t), false});
    }
  for (const char* op : {"div", "rem"})
    for (const char* t : {"s64", "u64"}) {
      f.push_back({fmt::format("{}.{} %rd10, %rd1, %rd2;", op, t), true});
      f.push_back({fmt::format("{}.{} %rd10, %rd1, -7;", op, t), true});
      f.push_back({fmt::format("{}.{} %rd10, %rd1, 0x8000000000000001;", op, t), true});
      f.push_back({fmt::format("{}.{} %rd10, %rd1, 0;", op, t), true});
      f.push_back({fmt::format("{}.{} %rd10, 0x8000000000000000, %rd2;", op, t), true});
      f.push_back({fmt::format("{}.{} %rd2, %rd2, %rd1;\n\tmov.u64 %rd10, %rd2;", op, t), true});
      f.push_back({fmt::format("mov.u64 %rd10, %rd4;\n\tsetp.lt.u64 %p1, %rd3, %rd4;\n\t@%p1 {}.{} %rd10, %rd1, %rd2;", op, t), true});
    }
  // f32 div, rcp and sqrt in every rounding mode, with and without .ftz; known operands
  for (const char* rnd : {"rn", "rz", "rm", "rp"})
    for (const char* ftz : {"", ".ftz"}) {
      const std::string in2 = "mov.b32 %f1, %r1;\n\tmov.b32 %f2, %r2;\n\t";
      f.push_back({in2 + fmt::format("div.{}{}.f32 %f3, %f1, %f2;\n\tmov.b32 %r10, %f3;", rnd, ftz), false});
      f.push_back({in2 + fmt::format("rcp.{}{}.f32 %f3, %f2;\n\tmov.b32 %r10, %f3;", rnd, ftz), false});
      f.push_back({in2 + fmt::format("sqrt.{}{}.f32 %f3, %f1;\n\tmov.b32 %r10, %f3;", rnd, ftz), false});
    }
  for (const char* k : {"0f40400000", "0f00000001", "0fff800000", "0f7f7fffff"}) {
    f.push_back({fmt::format("mov.b32 %f1, %r1;\n\tdiv.rn.f32 %f3, %f1, {};\n\tmov.b32 %r10, %f3;", k), false});
    f.push_back({fmt::format("mov.b32 %f2, %r2;\n\tdiv.rz.f32 %f3, {}, %f2;\n\tmov.b32 %r10, %f3;", k), false});
  }
  // mul.f64 in every mode; conversions the compiled step has no I2F/F2I for (64-bit and
  // 2-byte integer sources, f64 destinations and sources, 64-bit integer destinations)
  const std::string d2 = "mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\t";
  for (const char* rnd : {"rn", "rz", "rm", "rp"}) {
    f.push_back({d2 + fmt::format("mul.{}.f64 %fd3, %fd1, %fd2;\n\tmov.b64 %rd10, %fd3;", rnd), true});
    for (const char* t : {"s64", "u64"}) {
      f.push_back({fmt::format("cvt.{}.f32.{} %f3, %rd1;\n\tmov.b32 %r10, %f3;", rnd, t), false});
      f.push_back({fmt::format("cvt.{}.f64.{} %fd3, %rd1;\n\tmov.b64 %rd10, %fd3;", rnd, t), true});
    }
    f.push_back({fmt::format("cvt.{}.f64.s32 %fd3, %r1;\n\tmov.b64 %rd10, %fd3;", rnd), true});
    f.push_back({fmt::format("cvt.u16.u32 %rs1, %r1;\n\tcvt.{}.f32.s16 %f3, %rs1;\n\tmov.b32 %r10, %f3;", rnd), false});
  }
  f.push_back({d2 + "mul.rn.f64 %fd3, %fd1, 0d3ff8000000000001;\n\tmov.b64 %rd10, %fd3;", true});
  for (const Form& g : f64Forms()) f.push_back(g);
  for (const char* rnd : {"rni", "rzi", "rmi", "rpi"}) {
    for (const char* ftz : {"", ".ftz"})
      for (const char* t : {"s64", "u64"})
        f.push_back({fmt::format("mov.b32 %f1, %r1;\n\tcvt.{}{}.{}.f32 %rd10, %f1;", rnd, ftz, t), true});
    for (const char* t : {"s32", "u32"})
      f.push_back({d2 + fmt::format("cvt.{}.{}.f64 %r10, %fd1;", rnd, t), false});
    for (const char* t : {"s64", "u64"})
      f.push_back({d2 + fmt::format("cvt.{}.{}.f64 %rd10, %fd1;", rnd, t), true});
  }
  // 64-bit popc, clz and brev on the 32-bit op, half by half
  f.push_back({"popc.b64 %r10, %rd1;", false});
  f.push_back({"clz.b64 %r10, %rd1;", false});
  f.push_back({"brev.b64 %rd10, %rd1;", true});
  // mov pack and unpack lists (the bytes are in MachineLower.MovPackAndUnpack*): each unpack
  // packed again in another order, immediates among the parts, guarded, `_`
  const std::string rs4 = "cvt.u16.u32 %rs1, %r1;\n\tcvt.u16.u32 %rs2, %r2;\n\tcvt.u16.u32 %rs3, %r3;\n\t"
                          "cvt.u16.u32 %rs4, %r4;\n\t";
  f.push_back({"mov.b64 %rd10, {%r1, %r2};", true});
  f.push_back({"mov.b64 {%r5, %r6}, %rd1;\n\tmov.b64 %rd10, {%r6, %r5};", true});
  f.push_back({rs4 + "mov.b32 %r10, {%rs1, %rs2};", false});
  f.push_back({"mov.b32 {%rs1, %rs2}, %r1;\n\tmov.b32 %r10, {%rs2, %rs1};", false});
  f.push_back({rs4 + "mov.b64 %rd10, {%rs1, %rs2, %rs3, %rs4};", true});
  f.push_back({"mov.b64 {%rs1, %rs2, %rs3, %rs4}, %rd1;\n\tmov.b64 %rd10, {%rs3, %rs1, %rs4, %rs2};", true});
  f.push_back({"mov.b64 %rd10, {%r1, -3};", true});
  f.push_back({"mov.b64 %rd10, {0x80000000, %r2};", true});
  f.push_back({rs4 + "mov.b64 %rd10, {-1, %rs2, 0x8000, %rs4};", true});
  f.push_back({"mov.b64 %rd10, %rd4;\n\tsetp.lt.u64 %p1, %rd3, %rd4;\n\t@%p1 mov.b64 %rd10, {%r1, %r2};", true});
  f.push_back({"mov.u32 %r5, %r3;\n\tmov.u32 %r6, %r4;\n\tsetp.lt.u64 %p1, %rd3, %rd4;\n\t"
               "@%p1 mov.b64 {%r5, %r6}, %rd1;\n\tmov.b64 %rd10, {%r6, %r5};", true});
  f.push_back({"mov.b64 {_, %r10}, %rd1;", false});
  return f;
}

std::string kernelOf(const Form& form) {
  std::string s = ".version 7.0\n.target sm_75\n.address_size 64\n"
                  ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
                  "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<16>;\n\t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n\t.reg .b64 %rd<24>;\n"
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
      0x800fffffffffffff, 0x7fefffffffffffff, 0x0010000000000000, 0x4000000000000000, 0xc000000000000000,
      // f32: 1, 3, just below 1, the largest finite, subnormals, quiet and signalling NaNs
      0x3f800000, 0x40400000, 0x3f7fffff, 0x7f7fffff, 0xff7fffff, 0x00000001, 0x007fffff, 0x80000001,
      0x807fffff, 0x7fc00000, 0x7f800001, 0x00800001, 0x1f800000, 0x5f800000,
      // f64: 1.5, 2.5, -2.5, 2^31 - 0.5, 2^31, 2^32, 2^63, 2^64, -2^63, 1e-300, 1e300, the
      // largest subnormal, a signalling NaN with a payload
      0x3ff8000000000000, 0x4004000000000000, 0xc004000000000000, 0x41dfffffffe00000, 0x41e0000000000000,
      0x41f0000000000000, 0x43e0000000000000, 0x43f0000000000000, 0xc3e0000000000000, 0x01a56e1fc2f8f359,
      0x7e37e43c8800759c, 0x000fffffffffffff, 0x7ff0000000001234,
      // f32 near the 64-bit integer limits: 2^63, -2^63, 2^64, 2^62 + 2^39
      0x5f000000, 0xdf000000, 0x5f800000, 0x5e800001};
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
        ASSERT_NE(m.op, MOp::DivStep) << form.statement;
        ASSERT_NE(m.op, MOp::DivFin) << form.statement;
        ASSERT_NE(m.op, MOp::Div64R) << form.statement;
        ASSERT_NE(m.op, MOp::Div64Q) << form.statement;
        ASSERT_NE(m.op, MOp::Div64Fin) << form.statement;
        ASSERT_NE(m.op, MOp::FDivStep) << form.statement;
        ASSERT_NE(m.op, MOp::FSqrtStep) << form.statement;
        ASSERT_NE(m.op, MOp::FDivFin) << form.statement;
        ASSERT_NE(m.op, MOp::DMulFin) << form.statement;
        ASSERT_NE(m.op, MOp::DSticky) << form.statement;
        for (MOp unit : {MOp::D2F, MOp::DSig, MOp::DDivQ, MOp::DDivR, MOp::DDivFin, MOp::DSqrtN, MOp::DSqrtR,
                         MOp::DSqrtQ, MOp::DSqrtFin, MOp::DFmaPack, MOp::DFmaLo, MOp::DFmaSum, MOp::DFmaFin})
          ASSERT_NE(m.op, unit) << form.statement;
        if (m.op == MOp::FAdd || m.op == MOp::FSub) {
          ASSERT_EQ(m.bytes(), 4u) << form.statement;
        }
        if (m.op == MOp::I2F) {
          ASSERT_EQ(m.bytes(), 4u) << form.statement;
        }
        if (m.op == MOp::Popc || m.op == MOp::Clz || m.op == MOp::Brev) {
          ASSERT_EQ(m.bytes(), 4u) << form.statement;
        }
      }
    }
  }
  EXPECT_EQ(lanes, forms().size() * kThreads * kLaunches);
}

// `statement` on every pair (a, b) of `values` (in %rd1/%r1 and %rd2/%r2; two launches of
// half the pairs each): each result's low `bytes` bytes equal the interpreter's. Adds the
// results checked to `checked`.
void expectEveryPairAsTheInterpreter(const std::vector<uint64_t>& values, const std::string& statement, bool wide,
                                     uint32_t bytes, size_t& checked) {
  const uint32_t n = static_cast<uint32_t>(values.size()), pairs = n * n, perLaunch = pairs / 2;
  for (uint32_t first = 0; first < pairs; first += perLaunch) {
    std::vector<uint8_t> in(size_t{perLaunch} * 32);
    for (uint32_t t = 0; t < perLaunch; ++t) {
      std::memcpy(in.data() + 32 * size_t{t}, &values[(first + t) / n], 8);
      std::memcpy(in.data() + 32 * size_t{t} + 8, &values[(first + t) % n], 8);
    }
    Launch l;
    l.block = {perLaunch, 1, 1};
    l.buffers = {{"in", in}, {"out", std::vector<uint8_t>(size_t{perLaunch} * 8)}};
    l.args = {bufferArg(0), bufferArg(1)};
    BothResult r;
    try {
      r = runBoth(kernelOf({statement, wide}), "k", l);
    } catch (const std::exception& e) {
      FAIL() << statement << ": " << e.what();
    }
    for (uint32_t t = 0; t < perLaunch; ++t) {
      uint64_t want = 0, got = 0;
      std::memcpy(&want, r.oracle[1].data() + 8 * size_t{t}, bytes);
      std::memcpy(&got, r.machine[1].data() + 8 * size_t{t}, bytes);
      ASSERT_EQ(got, want) << statement
                           << fmt::format(" a {:#0{}x} b {:#0{}x}", values[(first + t) / n], 4 * bytes + 2,
                                          values[(first + t) % n], 4 * bytes + 2);
      ++checked;
    }
  }
}

// The f32 division and square-root micro-code on every pair of special and boundary values
// (signed zeros, subnormals, the smallest normal, 1, 3, the largest finite, infinities, NaNs;
// quotients that overflow, underflow to subnormals or round at the subnormal boundary), in
// every rounding mode, with and without .ftz.
TEST(MachineMicroCode, F32DivisionAndRootOnEverySpecialPair) {
  std::vector<uint64_t> values;
  for (uint32_t v : {0x00000000u, 0x00000001u, 0x00000003u, 0x00400000u, 0x007fffffu, 0x00800000u, 0x00800001u,
                     0x3f800000u, 0x3fc00000u, 0x40400000u, 0x3f7fffffu, 0x4b000001u, 0x7f000000u, 0x7f7fffffu,
                     0x7f800000u, 0x7fc00000u, 0x7f800001u, 0x0c000000u, 0x33800000u, 0x34000001u})
    for (uint32_t sign : {0u, 0x80000000u}) values.push_back(v | sign);
  const size_t n = values.size();
  size_t checked = 0;
  for (const char* rnd : {"rn", "rz", "rm", "rp"})
    for (const char* ftz : {"", ".ftz"})
      for (const char* op : {"div.{}{}.f32 %f3, %f1, %f2;", "sqrt.{}{}.f32 %f3, %f1;"}) {
        const std::string statement = "mov.b32 %f1, %r1;\n\tmov.b32 %f2, %r2;\n\t" +
                                      fmt::format(fmt::runtime(op), rnd, ftz) + "\n\tmov.b32 %r10, %f3;";
        ASSERT_NO_FATAL_FAILURE(expectEveryPairAsTheInterpreter(values, statement, false, 4, checked));
      }
  EXPECT_EQ(checked, size_t{16} * n * n);
}

// mul.f64 in every mode on every pair of special and boundary values (signed zeros,
// subnormals, the smallest normal, 1, 1.5, ties, integer limits, the largest finite,
// infinities, quiet and signalling NaNs with payloads; products that overflow or underflow),
// and f64 -> integer conversions of each value.
std::vector<uint64_t> f64SpecialValues() {
  std::vector<uint64_t> values;
  for (uint64_t v : {0x0000000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull, 0x0010000000000000ull,
                     0x3ff0000000000000ull, 0x3ff8000000000000ull, 0x4004000000000000ull, 0x3fe0000000000000ull,
                     0x41dfffffffe00000ull, 0x41e0000000000000ull, 0x43e0000000000000ull, 0x43f0000000000000ull,
                     0x7fefffffffffffffull, 0x7ff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000001234ull,
                     0x1ff0000000000000ull, 0x5ff0000000000001ull, 0x3cb0000000000000ull, 0x0020000000000003ull})
    for (uint64_t sign : {0ull, 1ull << 63}) values.push_back(v | sign);
  return values;
}

TEST(MachineMicroCode, F64MultiplyAndConversionsOnEverySpecialPair) {
  const std::vector<uint64_t> values = f64SpecialValues();
  const size_t n = values.size();
  const std::string d2 = "mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\t";
  std::vector<std::pair<std::string, bool>> statements;
  for (const char* rnd : {"rn", "rz", "rm", "rp"})
    statements.push_back({d2 + fmt::format("mul.{}.f64 %fd3, %fd1, %fd2;\n\tmov.b64 %rd10, %fd3;", rnd), true});
  for (const char* rnd : {"rni", "rzi", "rmi", "rpi"})
    for (const char* t : {"s32", "u32", "s64", "u64"}) {
      const bool wide = t[1] == '6';
      statements.push_back({d2 + fmt::format("cvt.{}.{}.f64 {}, %fd1;", rnd, t, wide ? "%rd10" : "%r10"), wide});
    }
  size_t checked = 0;
  for (const auto& [statement, wide] : statements)
    ASSERT_NO_FATAL_FAILURE(expectEveryPairAsTheInterpreter(values, statement, wide, 8, checked));
  EXPECT_EQ(checked, statements.size() * n * n);
}

// f64 add/sub, div, sqrt, fma (c one of the pair) and cvt.f32.f64 in every mode on every pair
// of the special and boundary values above: exact cancellations, signed zeros, inf - inf,
// 0 * inf, NaN payloads and their order, overflow, subnormal results, f32 overflow and
// underflow, .ftz and .sat.
TEST(MachineMicroCode, F64ArithmeticOnEverySpecialPair) {
  const std::vector<uint64_t> values = f64SpecialValues();
  const size_t n = values.size();
  const std::string d2 = "mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\t", out = "\n\tmov.b64 %rd10, %fd3;";
  std::vector<std::pair<std::string, bool>> statements;
  for (const char* rnd : {"rn", "rz", "rm", "rp"}) {
    for (const char* op : {"add.{}.f64 %fd3, %fd1, %fd2;", "sub.{}.f64 %fd3, %fd1, %fd2;", "div.{}.f64 %fd3, %fd1, %fd2;",
                           "sqrt.{}.f64 %fd3, %fd1;", "fma.{}.f64 %fd3, %fd1, %fd2, %fd1;", "fma.{}.f64 %fd3, %fd1, %fd1, %fd2;",
                           "fma.{}.f64 %fd3, %fd1, 0dbff0000000000000, %fd2;"})
      statements.push_back({d2 + fmt::format(fmt::runtime(op), rnd) + out, true});
    for (const char* sfx : {"", ".ftz", ".sat"})
      statements.push_back({d2 + fmt::format("cvt.{}{}.f32.f64 %f3, %fd2;\n\tmov.b32 %r10, %f3;", rnd, sfx), false});
  }
  size_t checked = 0;
  for (const auto& [statement, wide] : statements)
    ASSERT_NO_FATAL_FAILURE(expectEveryPairAsTheInterpreter(values, statement, wide, wide ? 8 : 4, checked));
  EXPECT_EQ(checked, statements.size() * n * n);
}

// Shared routines (LowerOptions::shareMicroCode; what a kernel too big for the ROM inlined
// gets): every f64 form called from a routine equals the interpreter, as inline; one kernel
// with several uses of each form holds each routine once, CALLs it from every use (a guarded
// use under a divergent predicate too) and is shorter than inline.
TEST(MachineMicroCode, SharedF64RoutinesEqualTheInterpreter) {
  std::mt19937_64 rng(20261209);
  constexpr uint32_t kThreads = 64;
  auto launchOf = [&](std::vector<uint8_t>& in) {
    Launch l;
    l.block = {kThreads, 1, 1};
    in.assign(kThreads * 32, 0);
    for (size_t i = 0; i < kThreads * 4; ++i) {
      const uint64_t v = input(rng);
      std::memcpy(in.data() + 8 * i, &v, 8);
    }
    l.buffers = {{"in", in}, {"out", std::vector<uint8_t>(kThreads * 8)}};
    l.args = {bufferArg(0), bufferArg(1)};
    return l;
  };
  for (const Form& form : f64Forms()) {
    std::vector<uint8_t> in;
    const Launch l = launchOf(in);
    BothResult r;
    try {
      r = runBoth(kernelOf(form), "k", l, true, true);
    } catch (const std::exception& e) {
      FAIL() << form.statement << ": " << e.what();
    }
    ASSERT_EQ(r.machine, r.replayed) << form.statement;
    ASSERT_EQ(r.machine[1], r.oracle[1]) << form.statement;
    size_t calls = 0;
    for (const MInstr& m : r.program.code) calls += m.op == MOp::Call;
    EXPECT_EQ(calls, 1u) << form.statement;
  }
  const std::string many =
      "mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\tmov.b64 %fd0, %rd3;\n\t"
      "add.rn.f64 %fd3, %fd1, %fd2;\n\tadd.rn.f64 %fd3, %fd3, %fd0;\n\tsqrt.rn.f64 %fd2, %fd2;\n\t"
      "and.b32 %r5, %r11, 1;\n\tsetp.eq.u32 %p2, %r5, 1;\n\t@%p2 div.rn.f64 %fd3, %fd3, %fd2;\n\t"
      "rcp.rn.f64 %fd1, %fd1;\n\tfma.rn.f64 %fd3, %fd3, %fd1, %fd0;\n\tmul.rn.f64 %fd3, %fd3, %fd3;\n\t"
      "cvt.rn.f32.f64 %f1, %fd3;\n\tcvt.f64.f32 %fd2, %f1;\n\tadd.rn.f64 %fd3, %fd3, %fd2;\n\tmov.b64 %rd10, %fd3;";
  std::vector<uint8_t> in;
  const Launch l = launchOf(in);
  const BothResult shared = runBoth(kernelOf({many, true}), "k", l, true, true);
  const BothResult inlined = runBoth(kernelOf({many, true}), "k", l, true, false);
  EXPECT_EQ(shared.machine, shared.replayed);
  EXPECT_EQ(shared.machine[1], shared.oracle[1]);
  EXPECT_EQ(inlined.machine[1], inlined.oracle[1]);
  std::map<uint16_t, size_t> callsTo;
  for (const MInstr& m : shared.program.code)
    if (m.op == MOp::Call) ++callsTo[m.b];
  EXPECT_EQ(callsTo.size(), 6u);  // add, sqrt, div (rcp too), fma, mul, cvt
  size_t calls = 0;
  for (const auto& [entry, count] : callsTo) calls += count;
  EXPECT_EQ(calls, 9u);
  for (const MInstr& m : inlined.program.code) EXPECT_NE(m.op, MOp::Call);
  EXPECT_LT(shared.program.code.size(), inlined.program.code.size());
  std::cout << "[ rom ] shared " << shared.program.code.size() << " instructions, inline " << inlined.program.code.size()
            << "\n";
}

// f64_arith inlined would not fit the ROM (10-bit pc): the lowering falls back to shared
// routines by itself.
TEST(MachineMicroCode, AKernelTooBigInlinedSharesItsF64Routines) {
  const CorpusExecution e = executeCorpusKernel("f64_arith");
  size_t calls = 0;
  for (const MInstr& m : e.program.code) calls += m.op == MOp::Call;
  EXPECT_GT(calls, 0u);
  EXPECT_LE(e.program.code.size(), 1023u);
  std::cout << "[ rom ] f64_arith: " << e.program.code.size() << " instructions, " << calls << " CALLs\n";
}

// Atomics other than an integer add are lane-serial micro-code (LD, ALU steps, ST per lane):
// 64 threads (16 warps) on 3 cells, so lanes of one warp and warps after warps meet at a
// cell; the cells and every thread's old value equal the interpreter's. A guarded form leaves
// odd threads out; a shared-memory form runs between barriers (threads 0-2 copy the cells
// in and out).
std::string atomicKernel(const std::string& statement, bool wide, bool shared) {
  const char* t = wide ? "u64" : "u32";
  const char* v = wide ? "%rd3" : "%r3";
  const uint32_t size = wide ? 8 : 4;
  std::string s = ".version 7.0\n.target sm_75\n.address_size 64\n"
                  ".visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u64 k_cells)\n{\n"
                  "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<24>;\n";
  if (shared) s += fmt::format("\t.shared .align 8 .b8 cells[{}];\n", 3 * size);
  s += "\tld.param.u64 %rd11, [k_in];\n\tcvta.to.global.u64 %rd12, %rd11;\n"
       "\tld.param.u64 %rd13, [k_out];\n\tcvta.to.global.u64 %rd14, %rd13;\n"
       "\tld.param.u64 %rd20, [k_cells];\n\tcvta.to.global.u64 %rd21, %rd20;\n"
       "\tmov.u32 %r11, %tid.x;\n\tmul.wide.u32 %rd15, %r11, 16;\n\tadd.s64 %rd16, %rd12, %rd15;\n"
       "\tld.global.u64 %rd1, [%rd16];\n\tld.global.u64 %rd2, [%rd16+8];\n"
       "\tcvt.u32.u64 %r1, %rd1;\n\tcvt.u32.u64 %r2, %rd2;\n\tmov.b32 %f1, %r1;\n"
       "\trem.u32 %r12, %r11, 3;\n\tsetp.ge.u32 %p3, %r11, 3;\n\tand.b32 %r13, %r11, 1;\n\tsetp.eq.u32 %p2, %r13, 0;\n";
  s += fmt::format("\tmul.wide.u32 %rd17, %r12, {};\n", size);
  if (shared) {
    s += "\tmov.u64 %rd22, cells;\n\tadd.s64 %rd18, %rd22, %rd17;\n\tadd.s64 %rd23, %rd21, %rd17;\n";
    s += fmt::format("\t@%p3 bra SKIP;\n\tld.global.{0} {1}, [%rd23];\n\tst.shared.{0} [%rd18], {1};\nSKIP:\n\tbar.sync 0;\n", t, v);
  } else {
    s += "\tadd.s64 %rd18, %rd21, %rd17;\n";
  }
  s += "\tmov.u64 %rd10, 0;\n\tmov.u32 %r10, 0;\n\t" + statement + "\n";
  if (shared) s += fmt::format("\tbar.sync 0;\n\t@%p3 bra DONE;\n\tld.shared.{0} {1}, [%rd18];\n\tst.global.{0} [%rd23], {1};\nDONE:\n", t, v);
  s += "\tmul.wide.u32 %rd19, %r11, 8;\n\tadd.s64 %rd19, %rd14, %rd19;\n";
  s += wide ? "\tst.global.u64 [%rd19], %rd10;\n" : "\tcvt.u64.u32 %rd10, %r10;\n\tst.global.u64 [%rd19], %rd10;\n";
  return s + "\tret;\n}\n";
}

TEST(MachineMicroCode, AtomicsOfEveryOpEqualTheInterpreter) {
  struct AtomicForm {
    std::string statement;
    bool wide, shared;
  };
  std::vector<AtomicForm> forms;
  for (const char* space : {"global", "shared"}) {
    const bool shared = std::string(space) == "shared";
    for (const char* op : {"and.b32", "or.b32", "xor.b32", "exch.b32", "min.s32", "min.u32", "max.s32", "max.u32", "inc.u32", "dec.u32"})
      forms.push_back({fmt::format("atom.{}.{} %r10, [%rd18], %r1;", space, op), false, shared});
    forms.push_back({fmt::format("atom.{}.cas.b32 %r10, [%rd18], %r1, %r2;", space), false, shared});
    forms.push_back({fmt::format("atom.{}.inc.u32 %r10, [%rd18], 9;", space), false, shared});
    for (const char* op : {"and.b64", "exch.b64", "min.s64", "max.u64"})
      forms.push_back({fmt::format("atom.{}.{} %rd10, [%rd18], %rd1;", space, op), true, shared});
    forms.push_back({fmt::format("atom.{}.cas.b64 %rd10, [%rd18], %rd1, %rd2;", space), true, shared});
    forms.push_back({fmt::format("@%p2 atom.{}.max.s32 %r10, [%rd18], %r1;", space), false, shared});
    forms.push_back({fmt::format("red.{}.or.b32 [%rd18], %r1;", space), false, shared});
    forms.push_back({fmt::format("atom.{}.add.f32 %f2, [%rd18], %f1;\n\tmov.b32 %r10, %f2;", space), false, shared});
  }
  std::mt19937_64 rng(20261208);
  constexpr uint32_t kThreads = 64;
  for (const AtomicForm& form : forms) {
    Launch l;
    l.block = {kThreads, 1, 1};
    std::vector<uint8_t> in(kThreads * 16), cells(24);
    for (size_t i = 0; i < kThreads * 2; ++i) {
      uint64_t v = input(rng);
      if (form.statement.find("inc") != std::string::npos || form.statement.find("dec") != std::string::npos) v %= 12;
      if (form.statement.find("cas") != std::string::npos) v %= 4;  // compares that match
      std::memcpy(in.data() + 8 * i, &v, 8);
    }
    for (size_t i = 0; i < 3; ++i) {
      const uint64_t v = form.statement.find("cas") != std::string::npos ? i : input(rng);
      std::memcpy(cells.data() + 8 * i, &v, 8);
    }
    l.buffers = {{"in", in}, {"out", std::vector<uint8_t>(kThreads * 8)}, {"cells", cells}};
    l.args = {bufferArg(0), bufferArg(1), bufferArg(2)};
    BothResult r;
    try {
      r = runBoth(atomicKernel(form.statement, form.wide, form.shared), "k", l);
    } catch (const std::exception& e) {
      FAIL() << form.statement << ": " << e.what();
    }
    ASSERT_EQ(r.machine, r.replayed) << form.statement;
    EXPECT_EQ(r.machine[1], r.oracle[1]) << form.statement << ": the old values";
    EXPECT_EQ(r.machine[2], r.oracle[2]) << form.statement << ": the cells";
    size_t atomics = 0;
    for (const MInstr& m : r.program.code) atomics += m.op == MOp::Atom || m.op == MOp::AtomS;
    EXPECT_EQ(atomics, 0u) << form.statement << ": spelled with LD, ALU steps and ST";
  }
}

// The recurrences are loops of one pass in the ROM (its pc has 10 bits): one BRA back per
// division or root, over a pass of at most a quarter of the recurrence (and the counter's
// three steps).
TEST(MachineMicroCode, DivisionLoopsHoldOnePassInTheRom) {
  const size_t base = lowerKernel(decodeText(kernelOf({"mov.u32 %r10, %r1;", false})), "k").code.size();
  struct Case {
    std::string name, statement;
    bool wide;
    size_t unrolled;  // the recurrence's steps written out
  };
  const std::string f = "mov.b32 %f1, %r1;\n\tmov.b32 %f2, %r2;\n\t";
  const std::string d = "mov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\t";
  for (const Case& c : {Case{"div.u32", "div.u32 %r10, %r1, %r2;", false, 96},
                        Case{"rem.s64", "rem.s64 %rd10, %rd1, %rd2;", true, 320},
                        Case{"div.rn.f32", f + "div.rn.f32 %f3, %f1, %f2;\n\tmov.b32 %r10, %f3;", false, 84},
                        Case{"sqrt.rn.f32", f + "sqrt.rn.f32 %f3, %f1;\n\tmov.b32 %r10, %f3;", false, 168},
                        Case{"div.rn.f64", d + "div.rn.f64 %fd3, %fd1, %fd2;\n\tmov.b64 %rd10, %fd3;", true, 228},
                        Case{"sqrt.rn.f64", d + "sqrt.rn.f64 %fd3, %fd1;\n\tmov.b64 %rd10, %fd3;", true, 513}}) {
    const MachineProgram p = lowerKernel(decodeText(kernelOf({c.statement, c.wide})), "k");
    size_t back = 0, pass = 0;
    for (size_t i = 0; i < p.code.size(); ++i)
      if (p.code[i].op == MOp::Bra && p.code[i].b <= i) {
        ++back;
        pass = i + 1 - p.code[i].b;
      }
    EXPECT_EQ(back, 1u) << c.name;
    EXPECT_LE(pass, c.unrolled / 4 + 3) << c.name;
    std::cout << "[ rom ] " << c.name << ": " << p.code.size() - base << " instructions, a pass of " << pass << "\n";
  }
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
