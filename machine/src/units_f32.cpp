// f32 functional units (docs/machine.md §1.4, §2.1): add/sub/mul/fma in every rounding mode
// with ftz and sat, min/max (f32 and f64), sign operations, compares, and the f32 division
// and square-root micro-code (significand digit recurrences).
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "unit_common.h"

namespace qgpu::machine::units {
namespace {

// x + y of doubles as s + e exactly (TwoSum).
double twoSum(double x, double y, double& e) {
  double s = x + y, bb = s - x;
  e = (x - (s - bb)) + (y - bb);
  return s;
}

// Rounded sum of two exact addends (f32 add, or an exact f32 product plus c).
float addRounded(double x, double y, uint32_t mode) {
  if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) return static_cast<float>(x + y);
  double e;
  double s = twoSum(x, y, e);
  if (s == 0 && e == 0) {
    // An exact zero: -0 only when both addends are -0, or (round down) when they cancel.
    bool bothZero = x == 0 && y == 0;
    if (bothZero && std::signbit(x) == std::signbit(y)) return std::signbit(x) ? -0.0f : 0.0f;
    return mode == 2 ? -0.0f : 0.0f;
  }
  return roundToF32(s, e, mode);
}

// ---- f32 division and square root micro-code (significand digit recurrences) ----
struct Unpacked {
  bool sign = false, nan = false, inf = false, zero = false;
  uint64_t m = 0;  // finite non-zero: significand in [2^23, 2^24), value = m * 2^(e - 23)
  int e = 0;
};

Unpacked unpack(float x) {
  Unpacked u;
  uint32_t bits = std::bit_cast<uint32_t>(x);
  u.sign = bits >> 31;
  uint32_t ex = (bits >> 23) & 0xff, frac = bits & 0x7fffff;
  if (ex == 255) {
    (frac ? u.nan : u.inf) = true;
    return u;
  }
  if (ex == 0 && frac == 0) {
    u.zero = true;
    return u;
  }
  if (ex == 0) {  // subnormal: normalise
    u.m = frac;
    u.e = -126;
    while (u.m < (1u << 23)) {
      u.m <<= 1;
      --u.e;
    }
  } else {
    u.m = frac | (1u << 23);
    u.e = static_cast<int>(ex) - 127;
  }
  return u;
}

float finishFloat(const MInstr& in, uint32_t bits) {
  float r = std::bit_cast<float>(bits);
  if (std::isnan(r)) return std::bit_cast<float>(kNaN32);
  if (in.fl & kFlFtz) r = flush(r);
  return r;
}

// FDIV state: R << 28 | Q. FDIVINIT puts the (doubled if smaller) dividend significand in R.
uint64_t fdivInit(const MInstr& in, uint64_t a, uint64_t b) {
  Unpacked ua = unpack(in32(in, a)), ub = unpack(in32(in, b));
  uint64_t ma = ua.m, mb = ub.m;
  if (ma < mb) ma <<= 1;
  return ma << 28;
}
uint64_t fdivStep(const MInstr& in, uint64_t t, uint64_t b) {
  uint64_t r = t >> 28, q = t & ((1ull << 28) - 1), mb = unpack(in32(in, b)).m;
  for (int i = 0; i < 4; ++i) {  // four restoring steps: one quotient bit each
    uint64_t bit = mb != 0 && r >= mb;
    if (bit) r -= mb;
    q = (q << 1 | bit) & ((1ull << 28) - 1);
    r <<= 1;
  }
  return r << 28 | q;
}
uint64_t fdivFin(const MInstr& in, uint64_t t, uint64_t a, uint64_t b) {
  Unpacked ua = unpack(in32(in, a)), ub = unpack(in32(in, b));
  bool sign = ua.sign != ub.sign;
  uint32_t s = sign ? 0x80000000u : 0;
  if (ua.nan || ub.nan || (ua.inf && ub.inf) || (ua.zero && ub.zero)) return kNaN32;
  if (ua.inf || ub.zero) return s | 0x7f800000u;
  if (ua.zero || ub.inf) return s;
  int shift = ua.m < ub.m ? 1 : 0;
  uint64_t q = t & ((1ull << 28) - 1);  // floor(ma' / mb * 2^27)
  bool sticky = (t >> 28) != 0;
  return bits32(finishFloat(in, static_cast<uint32_t>(roundSignificand(sign, q, sticky, ua.e - ub.e - shift - 27, roundingOf(in)))));
}

// FSQRT state: counter << 61 | R << 28 | Q; N = M << 30 with M = m or 2m so the exponent is even.
uint64_t sqrtRadicand(const Unpacked& u, int& k) {
  int x = u.e - 23;  // value = m * 2^x
  uint64_t m = u.m;
  if (x & 1) {
    m <<= 1;
    --x;
  }
  k = x / 2;
  return m << 30;
}
uint64_t fsqrtStep(const MInstr& in, uint64_t t, uint64_t a) {
  int k;
  uint64_t n = sqrtRadicand(unpack(in32(in, a)), k);
  uint64_t count = t >> 61, r = (t >> 28) & ((1ull << 33) - 1), q = t & ((1ull << 28) - 1);
  for (int j = 0; j < 4; ++j) {  // four digit-recurrence steps: one root bit each
    int i = 27 - static_cast<int>(count * 4) - j;
    r = (r << 2) | ((n >> (2 * i)) & 3);
    uint64_t trial = (q << 2) | 1;
    if (r >= trial) {
      r -= trial;
      q = (q << 1) | 1;
    } else {
      q <<= 1;
    }
  }
  return (count + 1) << 61 | r << 28 | q;
}
uint64_t fsqrtFin(const MInstr& in, uint64_t t, uint64_t a) {
  Unpacked u = unpack(in32(in, a));
  if (u.nan || (u.sign && !u.zero)) return kNaN32;
  if (u.zero) return u.sign ? 0x80000000u : 0;
  if (u.inf) return 0x7f800000u;
  int k;
  sqrtRadicand(u, k);
  uint64_t q = t & ((1ull << 28) - 1);  // floor(sqrt(M * 2^30)) = floor(sqrt(M) * 2^15)
  bool sticky = ((t >> 28) & ((1ull << 33) - 1)) != 0;
  return bits32(finishFloat(in, static_cast<uint32_t>(roundSignificand(false, q, sticky, k - 15, roundingOf(in)))));
}

// FSETP codes: eq..ge 0-5, equ..geu 6-11, num 12, nan 13.
bool compareFloat(uint8_t op, float a, float b) {
  bool un = std::isnan(a) || std::isnan(b);
  switch (op) {
    case 0: return !un && a == b;
    case 1: return !un && a != b;
    case 2: return !un && a < b;
    case 3: return !un && a <= b;
    case 4: return !un && a > b;
    case 5: return !un && a >= b;
    case 6: return un || a == b;
    case 7: return un || a != b;
    case 8: return un || a < b;
    case 9: return un || a <= b;
    case 10: return un || a > b;
    case 11: return un || a >= b;
    case 12: return !un;
    case 13: return un;
  }
  throw Error(ErrorKind::Input, fmt::format("FSETP: compare code {} does not exist", op));
}

// min/max of f32 or f64: one NaN gives the other operand, two the canonical NaN; -0 < +0.
template <class F>
F fminmax(F a, F b, bool isMax, F canonicalNaN) {
  if (std::isnan(a) && std::isnan(b)) return canonicalNaN;
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return (std::signbit(a) != isMax) ? a : b;
  return (a < b) != isMax ? a : b;
}

uint64_t minMax(const MInstr& in, uint64_t a, uint64_t b) {
  if (in.bytes() == 8)
    return std::bit_cast<uint64_t>(fminmax(std::bit_cast<double>(a), std::bit_cast<double>(b), in.op == MOp::FMax,
                                           std::bit_cast<double>(kNaN64)));
  float r = fminmax(in32(in, a), in32(in, b), in.op == MOp::FMax, std::bit_cast<float>(kNaN32));
  return std::isnan(r) ? kNaN32 : out32(in, r);
}

}  // namespace

uint64_t float32Unit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  switch (in.op) {
    case MOp::FAdd: case MOp::FSub:
      if (in.bytes() == 8) return daddRounded(a, in.op == MOp::FSub ? negateUnlessNaN(b) : b, roundingOf(in));
      return out32(in, addRounded(in32(in, a), in.op == MOp::FSub ? -static_cast<double>(in32(in, b)) : in32(in, b),
                                  roundingOf(in)));
    case MOp::FMul: {
      double p = static_cast<double>(in32(in, a)) * static_cast<double>(in32(in, b));  // exact
      return out32(in, std::isnan(p) || std::isinf(p) ? static_cast<float>(p) : roundToF32(p, 0, roundingOf(in)));
    }
    case MOp::FFma: {
      double p = static_cast<double>(in32(in, a)) * static_cast<double>(in32(in, b));  // exact
      return out32(in, addRounded(p, in32(in, c), roundingOf(in)));
    }
    case MOp::FMin: case MOp::FMax: return minMax(in, a, b);
    case MOp::FNeg: case MOp::FAbs: {
      float x = f32(a);
      if (std::isnan(x)) return kNaN32;
      float r = in.op == MOp::FNeg ? -x : std::fabs(x);
      return bits32((in.fl & kFlFtz) ? flush(r) : r);
    }
    case MOp::FSetp: {
      float x = f32(a), y = f32(b);
      if (in.ty & 4) { x = flush(x); y = flush(y); }
      return compareFloat(in.fl, x, y) ? 1 : 0;
    }
    case MOp::FDivInit: return fdivInit(in, a, b);
    case MOp::FDivStep: return fdivStep(in, a, b);
    case MOp::FDivFin: return fdivFin(in, a, b, c);
    case MOp::FSqrtStep: return fsqrtStep(in, a, b);
    case MOp::FSqrtFin: return fsqrtFin(in, a, b);
    default: break;
  }
  notLaneLocal(in);
}

}  // namespace qgpu::machine::units
