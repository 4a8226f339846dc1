// Conversion units (docs/machine.md §1.4): integer <-> integer (CVTI), integer <-> float
// (I2F, F2I), f16 <-> f32 (H2F, F2H), f32 <-> f64 (F2D, D2F) and rounding to integral (FRNDI).
#include <algorithm>
#include <bit>
#include <cmath>

#include "unit_common.h"

namespace qgpu::machine::units {
namespace {

uint64_t convertInt(const MInstr& in, uint64_t a) {
  const uint32_t dbytes = in.bytes();
  const uint8_t src = in.fl & 7;
  const uint32_t sbytes = 1u << (src & 3);
  s128 v = (src & 4) ? s128{sext(a, sbytes)} : static_cast<s128>(a & widthMask(sbytes));
  if (in.fl & 8) {  // .sat: clamp to the destination range
    s128 lo = in.isSigned() ? -(s128{1} << (8 * dbytes - 1)) : 0;
    s128 hi = in.isSigned() ? (s128{1} << (8 * dbytes - 1)) - 1 : (s128{1} << (8 * dbytes)) - 1;
    v = v < lo ? lo : v > hi ? hi : v;
  }
  uint64_t r = static_cast<uint64_t>(v) & widthMask(dbytes);
  if (in.isSigned()) r = static_cast<uint64_t>(sext(r, dbytes));
  return r & widthMask(1u << (in.c & 3));
}

uint64_t floatToInt(const MInstr& in, uint64_t a) {
  const uint32_t dbytes = in.bytes(), dbits = 8 * dbytes;
  const bool source64 = in.fl & kFlF2ISource64;
  double x = source64 ? std::bit_cast<double>(a) : (in.fl & 4) ? flush(f32(a)) : f32(a);
  s128 v;
  if (std::isnan(x)) {
    v = dbits == 64 || source64 ? (s128{1} << (dbits - 1)) : 0;
  } else {
    double d = x;
    switch (in.fl & 3) {
      case 0: d = std::nearbyint(d); break;  // ties to even (default rounding mode)
      case 1: d = std::trunc(d); break;
      case 2: d = std::floor(d); break;
      default: d = std::ceil(d); break;
    }
    if (d >= 0x1p100) v = s128{1} << 100;
    else if (d <= -0x1p100) v = -(s128{1} << 100);
    else v = static_cast<s128>(d);
    s128 lo = in.isSigned() ? -(s128{1} << (dbits - 1)) : 0;
    s128 hi = in.isSigned() ? (s128{1} << (dbits - 1)) - 1 : (s128{1} << dbits) - 1;
    v = v < lo ? lo : v > hi ? hi : v;
  }
  uint64_t r = static_cast<uint64_t>(v) & widthMask(dbytes);
  if (in.isSigned()) r = static_cast<uint64_t>(sext(r, dbytes));
  return r & widthMask(1u << (in.c & 3));
}

uint64_t intToFloat(const MInstr& in, uint64_t a) {
  const uint32_t sbytes = in.bytes();
  s128 v = in.isSigned() ? s128{sext(a, sbytes)} : static_cast<s128>(a & widthMask(sbytes));
  if (in.fl & kFlI2FDest64) {  // to f64: exact below 2^53, else one rounding of the magnitude
    if (v == 0) return 0;
    const uint64_t mag = static_cast<uint64_t>(v < 0 ? -v : v);
    const int shift = std::countl_zero(mag);
    return roundSignificand(v < 0, mag << shift, false, -shift, in.fl & 3, kF64);
  }
  double x = static_cast<double>(v);  // exact below 2^53; else e's sign comes from the integers
  s128 back = static_cast<s128>(x);
  double e = v > back ? 1.0 : v < back ? -1.0 : 0.0;
  return bits32(roundToF32(x, e, in.fl & 3));
}

// ---- f16 <-> f32 and rounding to integral: small conversion units ----
float halfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));  // inf, NaN
  float v = e == 0 ? std::ldexp(static_cast<float>(m), -24) : std::ldexp(static_cast<float>(m | 0x400u), static_cast<int>(e) - 25);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(v) | sign);
}

/// f32 -> f16 in rounding mode fl bits 2-3 (rn rz rm rp), .sat (fl bit 1) first; NaN -> 0x7fff.
uint64_t floatToHalfBits(const MInstr& in, float x) {
  if (in.fl & kFlSat) x = std::isnan(x) || x <= 0.0f ? 0.0f : x >= 1.0f ? 1.0f : x;
  if (std::isnan(x)) return 0x7fff;
  const uint32_t mode = roundingOf(in);
  const bool neg = std::signbit(x);
  const uint64_t sign = neg ? 0x8000 : 0;
  const double ax = std::fabs(static_cast<double>(x));
  if (std::isinf(ax)) return sign | 0x7c00;
  if (ax == 0) return sign;
  int exp;
  std::frexp(ax, &exp);                        // ax in [2^(exp-1), 2^exp)
  const int ulp = std::max(exp - 11, -24);     // 11 significant bits, subnormal quantum 2^-24
  const double scaled = std::ldexp(ax, -ulp);  // exact
  double n = std::floor(scaled);
  const double frac = scaled - n;
  bool up = false;
  switch (mode) {
    case 0: up = frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) == 1.0); break;
    case 1: break;
    case 2: up = neg && frac != 0; break;
    default: up = !neg && frac != 0; break;
  }
  if (up) n += 1;
  const uint64_t bits = n < 1024 ? static_cast<uint64_t>(n)
                                 : (static_cast<uint64_t>(ulp + 25) << 10) + static_cast<uint64_t>(n) - 1024;
  if (bits >= 0x7c00) {  // overflow: infinity or the largest finite value, by mode
    bool toInf = mode == 0 || (mode == 2 && neg) || (mode == 3 && !neg);
    return sign | (toInf ? 0x7c00 : 0x7bff);
  }
  return sign | bits;
}

/// Round to an integral f32 (cvt.rni/rzi/rmi/rpi.f32.f32), keeping the sign of zero.
float roundToIntegral(float x, uint32_t mode) {
  if (std::isnan(x) || std::isinf(x) || std::fabs(x) >= 0x1p23f) return x;
  float t = std::trunc(x), frac = x - t;  // both exact
  float step = std::copysign(1.0f, x);
  switch (mode) {
    case 0:
      if (std::fabs(frac) > 0.5f || (std::fabs(frac) == 0.5f && std::fmod(t, 2.0f) != 0)) t += step;
      break;
    case 1: break;
    case 2: if (frac < 0) t -= 1; break;
    default: if (frac > 0) t += 1; break;
  }
  return std::copysign(t, x);
}

// f64 -> f32 in rounding mode fl bits 2-3, then sat and ftz.
uint64_t doubleToFloat(const MInstr& in, uint64_t a) {
  const Unpacked64 u = unpack64(a);
  if (u.nan) return (in.fl & kFlSat) ? 0 : kNaN32;
  float r = u.inf ? std::copysign(INFINITY, u.sign ? -1.0f : 1.0f)
          : u.zero ? std::copysign(0.0f, u.sign ? -1.0f : 1.0f)
                   : std::bit_cast<float>(static_cast<uint32_t>(roundSignificand(u.sign, u.m, false, u.e - 63, roundingOf(in))));
  if (in.fl & kFlSat) r = std::signbit(r) || r == 0.0f ? 0.0f : r >= 1.0f ? 1.0f : r;
  return out32(in, r);
}

}  // namespace

uint64_t convertUnit(const MInstr& in, uint64_t a, uint64_t, uint64_t) {
  switch (in.op) {
    case MOp::CvtI: return convertInt(in, a);
    case MOp::I2F: return intToFloat(in, a);
    case MOp::F2I: return floatToInt(in, a);
    case MOp::D2F: return doubleToFloat(in, a);
    case MOp::H2F: return out32(in, halfToFloat(static_cast<uint16_t>(a)));
    case MOp::F2H: return floatToHalfBits(in, in32(in, a));
    case MOp::F2D: {
      float x = in32(in, a);
      return std::isnan(x) ? kNaN64 : std::bit_cast<uint64_t>(static_cast<double>(x));
    }
    case MOp::FRndI: return out32(in, roundToIntegral(in32(in, a), roundingOf(in)));
    default: break;
  }
  notLaneLocal(in);
}

}  // namespace qgpu::machine::units
