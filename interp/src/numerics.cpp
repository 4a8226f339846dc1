#include "numerics.h"

#include <bit>
#include <cfloat>
#include <cmath>

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

// Directed rounding of a double whose nearest value is s and exact error e.
double directed(double s, double e, Rounding r, bool overflowed, bool positive) {
  if (overflowed) {
    switch (r) {
      case Rounding::Zero: return positive ? DBL_MAX : -DBL_MAX;
      case Rounding::Down: return positive ? DBL_MAX : -INFINITY;
      case Rounding::Up: return positive ? INFINITY : -DBL_MAX;
      default: return s;
    }
  }
  if (e == 0) return s;
  switch (r) {
    case Rounding::Zero: return ((e < 0) != std::signbit(s)) ? std::nextafter(s, 0.0) : s;
    case Rounding::Down: return e < 0 ? std::nextafter(s, -INFINITY) : s;
    case Rounding::Up: return e > 0 ? std::nextafter(s, INFINITY) : s;
    default: return s;
  }
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

[[noreturn]] void tinyDirected(const char* op) {
  throw Error(ErrorKind::Undefined,
              std::string("directed-rounding f64 ") + op +
                  " with a result below 2^-969 is not implemented exactly in this interpreter");
}

constexpr double kTinyLimit = 0x1p-969;

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
  double s, e;
  twoSum(a, b, s, e);
  if (std::isnan(s)) return canonical64(s);
  if (s == 0 && e == 0) return exactZeroSum(a, b, r);
  bool overflow = std::isinf(s) && std::isfinite(a) && std::isfinite(b);
  return directed(s, overflow ? 0.0 : e, effective(r), overflow, s > 0);
}

double mul(double a, double b, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  double p = a * b;
  if (effective(r) == Rounding::Nearest || std::isnan(p)) return canonical64(p);
  bool overflow = std::isinf(p) && std::isfinite(a) && std::isfinite(b);
  if (!overflow && p != 0 && std::fabs(p) < kTinyLimit) tinyDirected("mul");
  if (!overflow && p == 0 && a != 0 && b != 0) tinyDirected("mul");
  double e = overflow || std::isinf(p) ? 0.0 : std::fma(a, b, -p);
  return directed(p, e, effective(r), overflow, p > 0);
}

double fma(double a, double b, double c, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  if (std::isnan(c)) return std::bit_cast<double>(std::bit_cast<uint64_t>(c) | 0x0008000000000000ull);
  double s = std::fma(a, b, c);
  if (effective(r) == Rounding::Nearest || std::isnan(s)) return canonical64(s);
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c)) return s;
  if (s == 0) {
    double p0 = a * b;
    double s0, e0;
    twoSum(p0, c, s0, e0);
    if (std::fma(a, b, -p0) == 0 && s0 == 0 && e0 == 0) return exactZeroSum(p0, c, r);
  }
  bool overflow = std::isinf(s);
  if (overflow) return directed(s, 0.0, effective(r), true, s > 0);
  // Exact error of fma: x = a*b + c; p + pe = a*b exactly, then two sums.
  double p = a * b;
  double pe = std::fma(a, b, -p);
  if ((p != 0 && std::fabs(p) < kTinyLimit) || (s != 0 && std::fabs(s) < kTinyLimit) ||
      (s == 0 && (a * b != 0 || c != 0)))
    tinyDirected("fma");
  // x - s = (p - s + c) + pe, evaluated exactly via TwoSum chains.
  double t1, t1e;
  twoSum(p, c, t1, t1e);  // t1 + t1e = p + c
  double u, ue;
  twoSum(t1, -s, u, ue);  // u + ue = t1 - s
  double rest = u + (ue + (t1e + pe));  // sign of the total is what matters
  double e = rest;
  if (e == 0 && (ue != 0 || t1e != 0 || pe != 0)) e = ue + t1e + pe;
  return directed(s, e, effective(r), false, s > 0);
}

double div(double a, double b, Rounding r) {
  double out;
  if (nanResult(out, a, b)) return out;
  double q = a / b;
  if (effective(r) == Rounding::Nearest || std::isnan(q)) return canonical64(q);
  if (!std::isfinite(a) || !std::isfinite(b) || b == 0 || a == 0) return q;
  bool overflow = std::isinf(q);
  if (overflow) return directed(q, 0.0, effective(r), true, q > 0);
  if (std::fabs(q) < kTinyLimit || std::fabs(a) < kTinyLimit * 0x1p53) tinyDirected("div");
  double rem = std::fma(-q, b, a);
  double e = rem == 0 ? 0.0 : ((rem < 0) != (b < 0) ? -1.0 : 1.0);
  return directed(q, e, effective(r), false, q > 0);
}

double sqrt(double a, Rounding r) {
  if (std::isnan(a)) return std::bit_cast<double>(std::bit_cast<uint64_t>(a) | 0x0008000000000000ull);
  double s = std::sqrt(a);
  if (effective(r) == Rounding::Nearest || std::isnan(s)) return canonical64(s);
  if (!std::isfinite(s) || s == 0) return s;
  if (a < kTinyLimit * 0x1p53) tinyDirected("sqrt");
  double rem = std::fma(-s, s, a);
  return directed(s, rem, effective(r), false, true);
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

}  // namespace qgpu::fp
