// The approximate instructions are modelled (docs/numerics.md): these tests
// pin the model to what the PTX ISA does fix — its special values and its
// error bounds — on the real decoded handlers. They do not claim hardware
// bit-exactness (that needs `qgpu sfu-probe` on a GPU).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <memory>

#include "oracle/harness.h"

namespace qgpu::oracle {
namespace {

constexpr uint32_t kNaN = 0x7fffffff, kInf = 0x7f800000, kNegInf = 0xff800000;
float f(uint32_t b) { return std::bit_cast<float>(b); }

uint32_t eval(const std::string& form, uint32_t a, uint32_t c = 0x3f800000) {
  static std::map<std::string, std::unique_ptr<OneInstr>> cache;  // decode each form once
  auto& slot = cache[form];
  if (!slot) {
    bool binary = form.rfind("div", 0) == 0;
    slot = std::make_unique<OneInstr>(form + " %r4, %r1" + (binary ? ", %r2;" : ";"));
  }
  OneInstr& k = *slot;
  k.lanes("%r1")[0] = a;
  k.lanes("%r2")[0] = c;
  k.run();
  return static_cast<uint32_t>(k.lanes("%r4")[0]);
}

struct Special {
  const char* form;
  uint32_t in, out;
};

TEST(ApproxModel, SpecialValuesFromTheIsa) {
  const Special table[] = {
      {"rcp.approx.f32", 0x00000000, kInf}, {"rcp.approx.f32", 0x80000000, kNegInf},
      {"rcp.approx.f32", kInf, 0}, {"rcp.approx.f32", kNegInf, 0x80000000}, {"rcp.approx.f32", 0x7fc00001, kNaN},
      {"sqrt.approx.f32", kNegInf, kNaN}, {"sqrt.approx.f32", 0xbf800000, kNaN},
      {"sqrt.approx.f32", 0x80000000, 0x80000000}, {"sqrt.approx.f32", 0, 0}, {"sqrt.approx.f32", kInf, kInf},
      {"rsqrt.approx.f32", kNegInf, kNaN}, {"rsqrt.approx.f32", 0xbf800000, kNaN},
      {"rsqrt.approx.f32", 0x80000000, kNegInf}, {"rsqrt.approx.f32", 0, kInf}, {"rsqrt.approx.f32", kInf, 0},
      {"sin.approx.f32", 0, 0}, {"sin.approx.f32", 0x80000000, 0x80000000}, {"sin.approx.f32", kInf, kNaN},
      {"sin.approx.f32", kNegInf, kNaN}, {"cos.approx.f32", 0, 0x3f800000}, {"cos.approx.f32", 0x80000000, 0x3f800000},
      {"cos.approx.f32", kInf, kNaN}, {"lg2.approx.f32", 0, kNegInf}, {"lg2.approx.f32", 0x80000000, kNegInf},
      {"lg2.approx.f32", kNegInf, kNaN}, {"lg2.approx.f32", 0xbf800000, kNaN}, {"lg2.approx.f32", kInf, kInf},
      {"ex2.approx.f32", kNegInf, 0}, {"ex2.approx.f32", 0, 0x3f800000}, {"ex2.approx.f32", 0x80000000, 0x3f800000},
      {"ex2.approx.f32", kInf, kInf}, {"tanh.approx.f32", 0, 0}, {"tanh.approx.f32", 0x80000000, 0x80000000},
      {"tanh.approx.f32", kInf, 0x3f800000}, {"tanh.approx.f32", kNegInf, 0xbf800000},
      {"tanh.approx.f32", 0x00000123, 0x00000123},  // subnormal input passes through
      {"ex2.approx.f32", 0xffc00000, kNaN},         {"tanh.approx.f32", 0x7f800001, kNaN},
  };
  for (const Special& s : table)
    EXPECT_EQ(eval(s.form, s.in), s.out) << s.form << " of " << std::hex << s.in;
}

TEST(ApproxModel, DivApproxFlushesTheReciprocalOfHugeDivisors) {
  // ISA: for 2^126 < |b| < 2^128, div.approx gives +-0, or NaN if a is infinite.
  EXPECT_EQ(eval("div.approx.f32", 0x3f800000, 0x7f000000), 0u);           // 1 / 2^127
  EXPECT_EQ(eval("div.approx.f32", 0xbf800000, 0x7f000000), 0x80000000u);  // -1 / 2^127
  EXPECT_EQ(eval("div.approx.f32", kInf, 0x7f000000), kNaN);
  EXPECT_EQ(eval("div.approx.f32", 0x40400000, 0x40000000), 0x3fc00000u);  // 3/2 exact
}

double ulpOf(float x) {
  float ax = std::fabs(x);
  return static_cast<double>(std::nextafter(ax, INFINITY)) - static_cast<double>(ax);
}

// Error bounds over sampled inputs, against long double libm.
TEST(ApproxModel, WithinTheIsaErrorBounds) {
  Gen gen(42);
  const int n = 100000;
  int checked = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t a = static_cast<uint32_t>(gen.floatBits(32));
    float x = f(a);
    if (!std::isfinite(x) || std::fpclassify(x) == FP_SUBNORMAL) continue;
    long double lx = x;
    ++checked;
    if (x != 0) {
      float r = f(eval("rcp.approx.f32", a));
      long double exact = 1.0L / lx;
      if (std::isfinite(r) && std::fabs(exact) < 3.4e38L && std::fabs(exact) > 1.2e-38L) {
        EXPECT_LE(std::fabs(r - exact), ulpOf(static_cast<float>(exact))) << "rcp " << std::hex << a;
      }
    }
    if (x > 0) {
      float s = f(eval("sqrt.approx.f32", a));
      EXPECT_LE(std::fabs((s - sqrtl(lx)) / sqrtl(lx)), std::ldexp(1.0L, -23)) << "sqrt " << std::hex << a;
      float q = f(eval("rsqrt.approx.f32", a));
      long double rq = 1.0L / sqrtl(lx);
      if (rq < 3.4e38L && rq > 1.2e-38L) {
        EXPECT_LE(std::fabs((q - rq) / rq), std::pow(2.0L, -22.9L)) << "rsqrt " << std::hex << a;
      }
      float l = f(eval("lg2.approx.f32", a));
      long double rl = log2l(lx);
      if (x > 0.5f && x < 2.0f) {
        EXPECT_LE(std::fabs(l - rl), std::ldexp(1.0L, -22)) << "lg2 " << std::hex << a;
      } else {
        EXPECT_LE(std::fabs((l - rl) / rl), std::ldexp(1.0L, -22)) << "lg2 " << std::hex << a;
      }
    }
    if (std::fabs(x) <= 2 * 3.14159265358979f) {
      EXPECT_LE(std::fabs(f(eval("sin.approx.f32", a)) - sinl(lx)), std::pow(2.0L, -20.5L)) << "sin " << std::hex << a;
      EXPECT_LE(std::fabs(f(eval("cos.approx.f32", a)) - cosl(lx)), std::pow(2.0L, -20.5L)) << "cos " << std::hex << a;
    }
    if (std::fabs(x) < 126) {
      float e = f(eval("ex2.approx.f32", a));
      long double re = exp2l(lx);
      if (re > 1.2e-38L) {
        EXPECT_LE(std::fabs(e - re), 2 * ulpOf(static_cast<float>(re))) << "ex2 " << std::hex << a;
      }
    }
    if (x != 0) {
      long double rt = tanhl(lx);
      EXPECT_LE(std::fabs((f(eval("tanh.approx.f32", a)) - rt) / rt), std::ldexp(1.0L, -11)) << "tanh " << std::hex << a;
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace qgpu::oracle
