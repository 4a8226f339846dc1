// The approximate instructions are modelled (docs/numerics.md): these tests
// pin the model to what the PTX ISA does fix — its special values and its
// error bounds — on the real decoded handlers. They do not claim hardware
// bit-exactness (that needs `qgpu sfu-probe` on a GPU).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

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

// The 16-bit forms (ex2.approx.f16/f16x2, ex2.approx.ftz.bf16/bf16x2, tanh.approx.f16/
// f16x2/bf16/bf16x2), over every input pattern: the ISA's special values, a result within
// one unit in the last place of the format from long-double libm (the model is the nearest
// value of the double function), and the x2 forms computing each element alone.
long double value16(bool bf, uint16_t h) {
  if (bf) return std::bit_cast<float>(uint32_t{h} << 16);
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const long double v = e == 0 ? std::ldexp(static_cast<long double>(m), -24)
                               : std::ldexp(static_cast<long double>(m + 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

TEST(ApproxModel, HalfPrecisionEx2AndTanhOverEveryInput) {
  struct Form {
    const char* scalar;
    const char* pair;
    bool bf, tanh, ftz;
  };
  const Form forms[] = {{"ex2.approx.f16", "ex2.approx.f16x2", false, false, false},
                        {"ex2.approx.ftz.bf16", "ex2.approx.ftz.bf16x2", true, false, true},
                        {"tanh.approx.f16", "tanh.approx.f16x2", false, true, false},
                        {"tanh.approx.bf16", "tanh.approx.bf16x2", true, true, false}};
  for (const Form& fm : forms) {
    OneInstr k(std::string(fm.scalar) + " %h4, %h1;\n  " + fm.pair + " %r4, %r1;");
    const uint16_t expMask = fm.bf ? 0x7f80 : 0x7c00, mantMask = fm.bf ? 0x7f : 0x3ff;
    const uint16_t one = fm.bf ? 0x3f80 : 0x3c00, inf = expMask;
    uint64_t checked = 0;
    std::vector<uint16_t> scalar(65536);
    std::vector<uint32_t> pair(65536);
    for (uint32_t base = 0; base < 65536; base += kLanes) {
      for (uint32_t l = 0; l < kLanes; ++l) {
        k.lanes("%h1")[l] = base + l;
        k.lanes("%r1")[l] = (base + l) | ((65535u - base - l) << 16);
      }
      k.run();
      for (uint32_t l = 0; l < kLanes; ++l) {
        scalar[base + l] = static_cast<uint16_t>(k.lanes("%h4")[l]);
        pair[base + l] = static_cast<uint32_t>(k.lanes("%r4")[l]);
      }
    }
    for (uint32_t i = 0; i < 65536; ++i) {
      // The x2 form computes each element alone: element 1 held the input 65535 - i.
      EXPECT_EQ(pair[i] & 0xffff, scalar[i]) << fm.pair << " element 0 of " << std::hex << i;
      EXPECT_EQ(pair[i] >> 16, scalar[65535 - i]) << fm.pair << " element 1 of " << std::hex << (65535 - i);
    }
    {
      for (uint32_t i = 0; i < 65536; ++i) {
        const uint16_t a = static_cast<uint16_t>(i);
        const uint16_t r = scalar[i];
        const bool nan = (a & expMask) == expMask && (a & mantMask);
        const bool sub = (a & expMask) == 0 && (a & mantMask);
        if (nan) {
          EXPECT_EQ(r, 0x7fff) << fm.scalar << " of NaN " << std::hex << a;
          continue;
        }
        long double x = value16(fm.bf, a);
        if (fm.ftz && sub) x = 0;
        if (fm.tanh) {
          if (a == inf) { EXPECT_EQ(r, one); }
          if (a == (inf | 0x8000)) { EXPECT_EQ(r, one | 0x8000); }
          if ((a & 0x7fff) == 0) { EXPECT_EQ(r, a) << "tanh of a zero keeps its sign"; }
        } else {
          if (a == (inf | 0x8000)) { EXPECT_EQ(r, 0u) << "ex2(-inf) = +0"; }
          if (a == inf) { EXPECT_EQ(r, inf) << "ex2(+inf) = +inf"; }
          if ((a & 0x7fff) == 0 || (fm.ftz && sub)) { EXPECT_EQ(r, one) << "ex2(+-0) = 1"; }
        }
        const long double want = fm.tanh ? tanhl(x) : exp2l(x);
        const long double got = value16(fm.bf, r);
        if (std::isinf(want) || (r & expMask) == expMask) {
          EXPECT_TRUE((r & expMask) == expMask || want > (fm.bf ? 3.3e38L : 65504.0L)) << fm.scalar << std::hex << a;
          continue;
        }
        // One unit in the last place of the format at the reference's magnitude (the
        // subnormal quantum below the normal range).
        int e;
        std::frexp(want, &e);
        const int mant = fm.bf ? 7 : 10, minExp = fm.bf ? -126 : -14;
        const long double ulp = std::ldexp(1.0L, std::max(e - 1, minExp) - mant);
        if (fm.ftz && std::fabs(want) < std::ldexp(1.0L, minExp)) continue;  // flushed results
        EXPECT_LE(std::fabs(got - want), ulp) << fm.scalar << " of " << std::hex << a << " -> " << r;
        ++checked;
      }
    }
    EXPECT_GT(checked, 30000u) << fm.scalar;  // the rest: NaN, overflowing or flushed results
  }
}

}  // namespace
}  // namespace qgpu::oracle
