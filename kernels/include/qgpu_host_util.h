// qgpu_host_util.h: PTX semantics that plain C++ lacks, for host references.
// Each helper states the PTX instruction it stands for. Host references are
// compiled with -ffp-contract=off; directed-rounding helpers switch the x87/SSE
// rounding mode around one volatile operation (the result is stored before the
// mode is restored).
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace qgpu_host {

inline uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t d2u(double f) {
  uint64_t u;
  std::memcpy(&u, &f, 8);
  return u;
}
inline double u2d(uint64_t u) {
  double f;
  std::memcpy(&f, &u, 8);
  return f;
}

// Rounding modes as PTX names them.
enum class Rnd { rn, rz, rm, rp };
inline int fenvOf(Rnd r) {
  switch (r) {
    case Rnd::rz: return FE_TOWARDZERO;
    case Rnd::rm: return FE_DOWNWARD;
    case Rnd::rp: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// add.r*.f32 / mul.r*.f32 / fma.r*.f32 / div.r*.f32 / sqrt.r*.f32 (IEEE, no ftz).
inline float addR(float a, float b, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile float va = a, vb = b;
  volatile float v = va + vb;
  std::fesetround(FE_TONEAREST);
  return v;
}
inline float mulR(float a, float b, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile float va = a, vb = b;
  volatile float v = va * vb;
  std::fesetround(FE_TONEAREST);
  return v;
}
inline float fmaR(float a, float b, float c, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile float va = a, vb = b, vc = c;
  volatile float v = std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc));
  std::fesetround(FE_TONEAREST);
  return v;
}
inline float divR(float a, float b, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile float va = a, vb = b;
  volatile float v = va / vb;
  std::fesetround(FE_TONEAREST);
  return v;
}
inline float sqrtR(float a, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile float va = a;
  volatile float v = std::sqrt(static_cast<float>(va));
  std::fesetround(FE_TONEAREST);
  return v;
}
// cvt.r*.f32.s32 / cvt.r*.f32.u32
inline float i2fR(int32_t a, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile int32_t va = a;
  volatile float v = static_cast<float>(va);
  std::fesetround(FE_TONEAREST);
  return v;
}
inline float u2fR(uint32_t a, Rnd r) {
  std::fesetround(fenvOf(r));
  volatile uint32_t va = a;
  volatile float v = static_cast<float>(va);
  std::fesetround(FE_TONEAREST);
  return v;
}

// Round a double to an integral value in the given mode (ties to even for rn).
inline double roundIntegral(double x, Rnd r) {
  switch (r) {
    case Rnd::rz: return std::trunc(x);
    case Rnd::rm: return std::floor(x);
    case Rnd::rp: return std::ceil(x);
    default: {
      double f = std::floor(x), d = x - f;
      if (d > 0.5) return f + 1;
      if (d < 0.5) return f;
      return std::fmod(f, 2.0) == 0 ? f : f + 1;
    }
  }
}
// cvt.r*i.{s32,u32,s64,u64}.{f32,f64}: round, saturate to the destination range.
// NaN: 0 for an f32 source and a 32-bit destination; 1 << (bits - 1) (the
// bit pattern of the most negative signed value) when the source is f64 or the
// destination is 64-bit, as the interpreter models the hardware
// (interp/src/sem_convert.cpp, "wideNaN").
template <class I>
I cvtFloatToInt(double x, Rnd r, bool f64Source = false) {
  if (std::isnan(x))
    return (f64Source || sizeof(I) == 8) ? static_cast<I>(uint64_t{1} << (8 * sizeof(I) - 1)) : I{0};
  double v = roundIntegral(x, r);
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  // 2^(bits) for unsigned, 2^(bits-1) for signed: the first value out of range.
  constexpr double hiExcl = std::numeric_limits<I>::is_signed
                                ? -static_cast<double>(std::numeric_limits<I>::min())
                                : 2.0 * static_cast<double>(std::numeric_limits<I>::max() / 2 + 1);
  if (v <= lo) return std::numeric_limits<I>::min();
  if (v >= hiExcl) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

// cvt.rn.f16.f32: round to nearest even, overflow to inf; returns the f16
// bits. NaN inputs give 0x7fff (callers in the corpus never store NaN bits:
// kernels canonicalise NaN results themselves).
inline uint16_t f32ToF16(float f) {
  uint32_t x = f2u(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | (man ? 0x7fffu : 0x7c00u));
  // value = 1.man * 2^(exp-127); f16 normal exponent range -14..15.
  int e = static_cast<int>(exp) - 127;
  if (exp == 0) return sign;  // f32 subnormals are far below the f16 range
  uint32_t m = man | 0x800000u;  // 24-bit significand
  int shift;                     // right shift of m to get the f16 significand
  uint32_t base;
  if (e >= -14) {
    if (e > 15) return static_cast<uint16_t>(sign | 0x7c00u);
    shift = 13;
    base = static_cast<uint32_t>(e + 15) << 10;  // exponent field; m's hidden bit adds 1<<10
    base -= 1u << 10;
  } else {
    shift = 13 + (-14 - e);
    base = 0;
    if (shift > 25) return sign;
  }
  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  uint32_t h = base + q;  // a carry out of the significand bumps the exponent
  if (h >= 0x7c00u) return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | h);
}
// cvt.f32.f16 (exact).
inline float f16ToF32(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return u2f(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return u2f(sign | ((exp + 112u) << 23) | (man << 13));
}

// .ftz: subnormal f32 inputs/outputs become zero of the same sign.
inline float ftz(float f) {
  return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f;
}

// The interpreter's model of the approximate instructions (correctly rounded
// f32 of the double-precision libm function); the _ftz forms flush input and
// output. Not hardware-verified: kernels using them say so in launch.json.
inline float ex2Approx(float x) { return static_cast<float>(std::exp2(static_cast<double>(x))); }
inline float lg2Approx(float x) { return static_cast<float>(std::log2(static_cast<double>(x))); }
inline float sinApprox(float x) { return static_cast<float>(std::sin(static_cast<double>(x))); }
inline float cosApprox(float x) { return static_cast<float>(std::cos(static_cast<double>(x))); }
inline float rsqrtApprox(float x) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
}
inline float ex2ApproxFtz(float x) { return ftz(static_cast<float>(std::exp2(static_cast<double>(ftz(x))))); }
inline float lg2ApproxFtz(float x) { return ftz(static_cast<float>(std::log2(static_cast<double>(ftz(x))))); }
inline float sinApproxFtz(float x) { return ftz(static_cast<float>(std::sin(static_cast<double>(ftz(x))))); }
inline float cosApproxFtz(float x) { return ftz(static_cast<float>(std::cos(static_cast<double>(ftz(x))))); }
inline float rcpApprox(float x) { return static_cast<float>(1.0 / static_cast<double>(x)); }
inline float rcpApproxFtz(float x) { return ftz(rcpApprox(ftz(x))); }
inline float rsqrtApproxFtz(float x) {
  return ftz(static_cast<float>(1.0 / std::sqrt(static_cast<double>(ftz(x)))));
}
// div.full.f32 a, b
inline float divFull(float a, float b) {
  return static_cast<float>(static_cast<double>(a) / static_cast<double>(b));
}
// div.approx.f32 a, b = a * rcp(b) (f32 multiply); the .ftz form flushes.
inline float divApprox(float a, float b) { return a * rcpApprox(b); }
inline float divApproxFtz(float a, float b) { return ftz(ftz(a) * rcpApproxFtz(b)); }

}  // namespace qgpu_host
