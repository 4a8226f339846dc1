// IEEE-754 arithmetic with explicit rounding, ftz and the GPU NaN rules (docs/numerics.md).
#include "numerics.h"

#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

#include <mpfr.h>

#include "qgpu/interp/error.h"

namespace qgpu::fp {
namespace {

Rounding effective(Rounding r) { return r == Rounding::None ? Rounding::Nearest : r; }

// Double with the lowest mantissa bit forced to 1 when `inexact`: the
// round-to-odd value of an exact result lying strictly between t and the next
// double away from zero.
double toOdd(double truncated, bool inexact) {
  if (!inexact) return truncated;
  return std::bit_cast<double>(std::bit_cast<uint64_t>(truncated) | 1u);
}

// Exact x = s + e (|e| <= ulp(s)/2, s = RN(x)); returns round-to-odd(x).
double roundToOddFromSum(double s, double e) {
  if (e == 0 || std::isinf(s)) return s;
  bool towardZero = (e < 0) != std::signbit(s);
  double t = towardZero ? std::nextafter(s, 0.0) : s;
  return toOdd(t, true);
}

// TwoSum (Knuth): s = RN(a+b), e exact error.
void twoSum(double a, double b, double& s, double& e) {
  s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

float finishFloat(double exactOrOdd, Rounding r) {
  float f = roundToFloat(exactOrOdd, r);
  return canonical(f);
}

double canonical64(double x) {
  return std::isnan(x) ? std::bit_cast<double>(kCanonicalNaN64) : x;
}

// f64 NaN rule: an input NaN propagates (quieted), a generated NaN is canonical.
bool nanResult(double& out, double a, double b) {
  if (std::isnan(a)) {
    out = std::bit_cast<double>(std::bit_cast<uint64_t>(a) | 0x0008000000000000ull);
    return true;
  }
  if (std::isnan(b)) {
    out = std::bit_cast<double>(std::bit_cast<uint64_t>(b) | 0x0008000000000000ull);
    return true;
  }
  return false;
}

enum class Op64 { Add, Mul, Fma, Div, Sqrt };

// Correctly rounded f64 result of a directed-rounding operation on non-NaN
// inputs, computed by MPFR at 53 bits with the exponent range of binary64
// (emin -1073, emax 1024) and subnormalisation: the exact result rounded
// once, subnormal and overflow cases included. A NaN result (inf - inf,
// 0 * inf, sqrt(-x), 0/0, inf/inf) is the canonical f64 NaN.
double exactDirected(Op64 op, double a, double b, double c, Rounding r) {
  mpfr_rnd_t rnd = r == Rounding::Zero ? MPFR_RNDZ : r == Rounding::Down ? MPFR_RNDD : MPFR_RNDU;
  // Four 53-bit registers per thread, allocated once.
  struct Regs {
    mpfr_t x, y, z, res;
    Regs() { mpfr_inits2(53, x, y, z, res, static_cast<mpfr_ptr>(nullptr)); }
    ~Regs() { mpfr_clears(x, y, z, res, static_cast<mpfr_ptr>(nullptr)); }
  };
  thread_local Regs regs;
  mpfr_exp_t savedMin = mpfr_get_emin(), savedMax = mpfr_get_emax();
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  mpfr_set_d(regs.x, a, MPFR_RNDN);  // exact: 53-bit precision holds any double
  mpfr_set_d(regs.y, b, MPFR_RNDN);
  mpfr_set_d(regs.z, c, MPFR_RNDN);
  int t = 0;
  switch (op) {
    case Op64::Add: t = mpfr_add(regs.res, regs.x, regs.y, rnd); break;
    case Op64::Mul: t = mpfr_mul(regs.res, regs.x, regs.y, rnd); break;
    case Op64::Fma: t = mpfr_fma(regs.res, regs.x, regs.y, regs.z, rnd); break;
    case Op64::Div: t = mpfr_div(regs.res, regs.x, regs.y, rnd); break;
    case Op64::Sqrt: t = mpfr_sqrt(regs.res, regs.x, rnd); break;
  }
  t = mpfr_check_range(regs.res, t, rnd);
  mpfr_subnormalize(regs.res, t, rnd);
  double out = mpfr_nan_p(regs.res) ? std::bit_cast<double>(kCanonicalNaN64) : mpfr_get_d(regs.res, rnd);
  mpfr_set_emin(savedMin);
  mpfr_set_emax(savedMax);
  return out;
}

}  // namespace

float flushSubnormal(float x) {
  if (std::fpclassify(x) == FP_SUBNORMAL) return std::copysign(0.0f, x);
  return x;
}

float saturate(float x) {
  if (std::isnan(x)) return 0.0f;
  if (x <= 0.0f) return 0.0f;
  if (x >= 1.0f) return 1.0f;
  return x;
}
double saturate(double x) {
  if (std::isnan(x)) return 0.0;
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  return x;
}

float canonical(float x) {
  return std::isnan(x) ? std::bit_cast<float>(kCanonicalNaN32) : x;
}

double sumToOdd(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return a + b;
  double s, e;
  twoSum(a, b, s, e);
  return roundToOddFromSum(s, e);
}

float roundToFloat(double x, Rounding r) {
  float f = static_cast<float>(x);  // nearest even (SSE, default MXCSR)
  if (std::isnan(x)) return f;
  switch (effective(r)) {
    case Rounding::Zero:
      if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
      break;
    case Rounding::Down:
      if (static_cast<double>(f) > x) f = std::nextafter(f, -INFINITY);
      break;
    case Rounding::Up:
      if (static_cast<double>(f) < x) f = std::nextafter(f, INFINITY);
      break;
    default:
      break;
  }
  return f;
}

// IEEE sign of an exact zero sum x + y: same-signed zeros keep their sign,
// otherwise +0, except -0 when rounding down.
template <class T>
T exactZeroSum(T x, T y, Rounding r) {
  if (x == 0 && y == 0 && std::signbit(x) == std::signbit(y)) return x;
  return effective(r) == Rounding::Down ? T(-0.0) : T(0.0);
}

float add(float a, float b, Rounding r) {
  if (effective(r) == Rounding::Nearest) return canonical(a + b);
  double s, e;
  twoSum(a, b, s, e);
  if (s == 0 && e == 0) return exactZeroSum(a, b, r);
  return finishFloat(roundToOddFromSum(s, e), r);
}

float mul(float a, float b, Rounding r) {
  if (effective(r) == Rounding::Nearest) return canonical(a * b);
  return finishFloat(static_cast<double>(a) * static_cast<double>(b), r);  // exact product
}

float fma(float a, float b, float c, Rounding r) {
  if (effective(r) == Rounding::Nearest) return canonical(std::fma(a, b, c));
  double p = static_cast<double>(a) * static_cast<double>(b);  // exact
  if (std::isinf(p) || std::isnan(p) || std::isinf(c) || std::isnan(c))
    return finishFloat(p + c, r);
  double s, e;
  twoSum(p, c, s, e);
  if (s == 0 && e == 0) return static_cast<float>(exactZeroSum(p, static_cast<double>(c), r));
  return finishFloat(roundToOddFromSum(s, e), r);
}

float div(float a, float b, Rounding r) {
  if (effective(r) == Rounding::Nearest) return canonical(a / b);
  double q = static_cast<double>(a) / static_cast<double>(b);
  if (!std::isfinite(q) || q == 0) return finishFloat(q, r);
  double rem = std::fma(-q, static_cast<double>(b), static_cast<double>(a));  // exact
  // exact a/b - q has the sign of rem/b
  double err = (rem == 0) ? 0.0 : ((rem < 0) != (b < 0) ? -1.0 : 1.0);
  return finishFloat(roundToOddFromSum(q, err), r);
}

float sqrt(float a, Rounding r) {
  if (effective(r) == Rounding::Nearest) return canonical(std::sqrt(a));
  double s = std::sqrt(static_cast<double>(a));
  if (!std::isfinite(s) || s == 0) return finishFloat(s, r);
  double rem = std::fma(-s, s, static_cast<double>(a));  // exact
  return finishFloat(roundToOddFromSum(s, rem), r);
}

double add(double a, double b, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  if (effective(r) == Rounding::Nearest) return canonical64(a + b);
  return exactDirected(Op64::Add, a, b, 0.0, r);
}

double mul(double a, double b, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  if (effective(r) == Rounding::Nearest) return canonical64(a * b);
  return exactDirected(Op64::Mul, a, b, 0.0, r);
}

double fma(double a, double b, double c, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  if (std::isnan(c)) return std::bit_cast<double>(std::bit_cast<uint64_t>(c) | 0x0008000000000000ull);
  if (effective(r) == Rounding::Nearest) return canonical64(std::fma(a, b, c));
  return exactDirected(Op64::Fma, a, b, c, r);
}

double div(double a, double b, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  if (effective(r) == Rounding::Nearest) return canonical64(a / b);
  return exactDirected(Op64::Div, a, b, 0.0, r);
}

double sqrt(double a, Rounding r) {
  if (std::isnan(a)) return std::bit_cast<double>(std::bit_cast<uint64_t>(a) | 0x0008000000000000ull);
  if (effective(r) == Rounding::Nearest) return canonical64(std::sqrt(a));
  return exactDirected(Op64::Sqrt, a, 0.0, 0.0, r);
}

double roundToIntegral(double x, Rounding r) {
  switch (effective(r)) {
    case Rounding::Zero: return std::trunc(x);
    case Rounding::Down: return std::floor(x);
    case Rounding::Up: return std::ceil(x);
    default: return std::nearbyint(x);  // default MXCSR mode: nearest even
  }
}

uint16_t floatToHalf(double x, Rounding r) {
  uint64_t bits = std::bit_cast<uint64_t>(x);
  uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  if (std::isnan(x)) return 0x7fff;  // canonical f16 NaN
  double ax = std::fabs(x);
  Rounding mode = effective(r);
  bool neg = sign != 0;
  auto overflowValue = [&]() -> uint16_t {
    bool toInf = mode == Rounding::Nearest || (mode == Rounding::Up && !neg) ||
                 (mode == Rounding::Down && neg);
    return static_cast<uint16_t>(sign | (toInf ? 0x7c00 : 0x7bff));
  };
  if (std::isinf(x)) return static_cast<uint16_t>(sign | 0x7c00);
  if (ax == 0) return sign;
  int exp;
  std::frexp(ax, &exp);  // ax = m * 2^exp, m in [0.5, 1)
  // Quantum: normal f16 has 11 significant bits; exponent of ulp = exp - 11,
  // but not below the subnormal quantum 2^-24.
  int ulpExp = std::max(exp - 11, -24);
  double scaled = std::ldexp(ax, -ulpExp);  // exact (power-of-two scaling)
  double integral;
  double frac = std::modf(scaled, &integral);
  bool roundUp = false;
  switch (mode) {
    case Rounding::Zero: break;
    case Rounding::Down: roundUp = neg && frac != 0; break;
    case Rounding::Up: roundUp = !neg && frac != 0; break;
    default:
      roundUp = frac > 0.5 || (frac == 0.5 && std::fmod(integral, 2.0) != 0);
  }
  double mag = std::ldexp(integral + (roundUp ? 1 : 0), ulpExp);
  if (mag > 65504.0) return overflowValue();
  if (mag == 0) return sign;
  // Encode mag exactly.
  int e2;
  std::frexp(mag, &e2);
  int biased = e2 - 1 + 15;
  if (biased <= 0) {
    uint16_t m = static_cast<uint16_t>(std::ldexp(mag, 24));
    return static_cast<uint16_t>(sign | m);
  }
  uint16_t m = static_cast<uint16_t>(std::ldexp(mag, 10 - (e2 - 1)) - 1024.0);
  return static_cast<uint16_t>(sign | (biased << 10) | m);
}

double halfToDouble(uint16_t h) {
  bool neg = h & 0x8000;
  int e = (h >> 10) & 0x1f;
  int m = h & 0x3ff;
  double v;
  if (e == 0x1f) {
    if (m == 0) v = INFINITY;
    else return std::bit_cast<double>(0x7ff8000000000000ull | (uint64_t{static_cast<uint32_t>(m)} << 42) |
                                      (neg ? 0x8000000000000000ull : 0));
  } else if (e == 0) {
    v = std::ldexp(m, -24);
  } else {
    v = std::ldexp(m + 1024, e - 25);
  }
  return neg ? -v : v;
}

uint16_t doubleToBf16(double x) {
  if (std::isnan(x)) return 0x7fff;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double ax = std::fabs(x);
  if (std::isinf(x)) return static_cast<uint16_t>(sign | 0x7f80);
  if (ax == 0) return sign;
  int exp;
  std::frexp(ax, &exp);  // ax = m * 2^exp, m in [0.5, 1)
  // 8 significant bits; the quantum is not below the subnormal one, 2^-133.
  const int ulpExp = std::max(exp - 8, -133);
  double integral;
  const double frac = std::modf(std::ldexp(ax, -ulpExp), &integral);  // exact scaling
  if (frac > 0.5 || (frac == 0.5 && std::fmod(integral, 2.0) != 0)) integral += 1;
  const double mag = std::ldexp(integral, ulpExp);
  if (mag > 0x1.fep127) return static_cast<uint16_t>(sign | 0x7f80);  // above the largest finite
  if (mag == 0) return sign;
  int e2;
  std::frexp(mag, &e2);
  const int biased = e2 - 1 + 127;
  if (biased <= 0) return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(mag, 133)));
  const uint16_t m = static_cast<uint16_t>(std::ldexp(mag, 7 - (e2 - 1)) - 128.0);
  return static_cast<uint16_t>(sign | (biased << 7) | m);
}

double bf16ToDouble(uint16_t h) { return static_cast<double>(std::bit_cast<float>(uint32_t{h} << 16)); }

uint32_t roundToSmall(double x, Rounding r, const SmallFormat& f, bool satfinite) {
  const uint32_t sign = std::signbit(x) ? 1u << (f.ebits + f.mant) : 0u;
  const bool neg = sign != 0;
  const Rounding mode = effective(r);
  const uint32_t top = (1u << f.ebits) - 1, mantMask = (1u << f.mant) - 1;
  // The largest finite pattern: below the top exponent, or (e4m3) the top one less the NaN.
  const uint32_t maxBits = sign | (f.hasInf ? ((top - 1) << f.mant) | mantMask : (top << f.mant) | (mantMask - 1));
  const uint32_t infBits = sign | (top << f.mant);
  auto overflow = [&]() -> uint32_t {
    if (satfinite || !f.hasInf) return maxBits;
    const bool toInf = mode == Rounding::Nearest || (mode == Rounding::Up && !neg) || (mode == Rounding::Down && neg);
    return toInf ? infBits : maxBits;
  };
  if (std::isinf(x)) return satfinite || !f.hasInf ? maxBits : infBits;
  const double ax = std::fabs(x);
  if (ax == 0) return sign;
  if (ax > f.maxFinite && satfinite) return maxBits;
  int exp;
  std::frexp(ax, &exp);  // ax = m * 2^exp, m in [0.5, 1)
  // The quantum: mant + 1 significant bits, not below the subnormal quantum.
  const int ulpExp = std::max(exp - (f.mant + 1), 1 - f.bias - f.mant);
  double integral;
  const double frac = std::modf(std::ldexp(ax, -ulpExp), &integral);  // exact scaling
  bool up = false;
  switch (mode) {
    case Rounding::Zero: break;
    case Rounding::Down: up = neg && frac != 0; break;
    case Rounding::Up: up = !neg && frac != 0; break;
    default: up = frac > 0.5 || (frac == 0.5 && std::fmod(integral, 2.0) != 0);
  }
  const double mag = std::ldexp(integral + (up ? 1 : 0), ulpExp);
  if (mag > f.maxFinite) return overflow();
  if (mag == 0) return sign;
  int e2;
  std::frexp(mag, &e2);
  const int biased = e2 - 1 + f.bias;
  if (biased <= 0) return sign | static_cast<uint32_t>(std::ldexp(mag, f.bias - 1 + f.mant));
  const uint32_t m = static_cast<uint32_t>(std::ldexp(mag, f.mant - (e2 - 1))) - (1u << f.mant);
  return sign | (static_cast<uint32_t>(biased) << f.mant) | m;
}

double smallToDouble(uint32_t b, const SmallFormat& f) {
  const bool neg = (b >> (f.ebits + f.mant)) & 1;
  const uint32_t e = (b >> f.mant) & ((1u << f.ebits) - 1), m = b & ((1u << f.mant) - 1);
  const uint32_t top = (1u << f.ebits) - 1;
  double v;
  if (e == top && f.hasInf) v = m ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else if (e == top && m == (1u << f.mant) - 1) v = std::numeric_limits<double>::quiet_NaN();  // e4m3: only S.1111.111
  else if (e == 0) v = std::ldexp(m, 1 - f.bias - f.mant);
  else v = std::ldexp(m + (1u << f.mant), static_cast<int>(e) - f.bias - f.mant);
  return neg ? -v : v;
}

}  // namespace qgpu::fp
