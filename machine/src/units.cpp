#include "units.h"

#include <bit>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu::machine {

__extension__ typedef __int128 s128;
__extension__ typedef unsigned __int128 u128;

uint64_t widthMask(uint32_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

namespace {

constexpr uint32_t kNaN32 = 0x7fffffffu;
constexpr uint64_t kNaN64 = 0x7fffffffffffffffull;
constexpr uint64_t kInf64 = 0x7ff0000000000000ull;
constexpr uint64_t kQuietBit64 = 1ull << 51;

int64_t sext(uint64_t v, uint32_t bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  uint32_t bits = 8 * bytes;
  v &= widthMask(bytes);
  if ((v >> (bits - 1)) & 1) v |= ~0ull << bits;
  return static_cast<int64_t>(v);
}
// Operand value in the instruction's type, widened to 128 bits.
/// The low (unsigned) or high (signed if asked) 32-bit half of a 64-bit register.
s128 half32(uint64_t v, bool high, bool isSigned) {
  if (!high) return static_cast<s128>(v & 0xffffffffu);
  return isSigned ? s128{static_cast<int32_t>(static_cast<uint32_t>(v >> 32))} : static_cast<s128>(v >> 32);
}

s128 val(const MInstr& in, uint64_t v, uint32_t bytes) {
  if (in.isSigned()) return s128{sext(v, bytes)};
  return static_cast<s128>(v & widthMask(bytes));
}

float f32(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
uint64_t bits32(float f) { return std::bit_cast<uint32_t>(f); }
bool isSub(float x) { return std::fpclassify(x) == FP_SUBNORMAL; }
float flush(float x) { return isSub(x) ? std::copysign(0.0f, x) : x; }
float in32(const MInstr& in, uint64_t v) { return (in.fl & kFlFtz) ? flush(f32(v)) : f32(v); }
// Directed rounding (fl bits 2-3 of FADD/FSUB/FMUL/FFMA: 0 rn, 1 rz, 2 rm, 3 rp). The exact
// result is x + e with |e| < ulp(x)/2 (only e's sign matters); x is turned into its
// round-to-odd double (53 >= 24 + 2 bits, so rounding that once more is exact) and then
// rounded to f32 in the requested mode without touching the host's rounding mode.
float roundToF32(double x, double e, uint32_t mode) {
  if (e != 0 && !(std::bit_cast<uint64_t>(x) & 1))
    x = std::nextafter(x, e > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  float f = static_cast<float>(x);
  double fd = f;
  switch (mode) {
    case 1: if (std::fabs(fd) > std::fabs(x)) f = std::nextafter(f, 0.0f); break;
    case 2: if (fd > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity()); break;
    case 3: if (fd < x) f = std::nextafter(f, std::numeric_limits<float>::infinity()); break;
    default: break;
  }
  return f;
}

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

uint32_t roundingOf(const MInstr& in) { return (in.fl >> 2) & 3; }

uint64_t out32(const MInstr& in, float r) {
  if (std::isnan(r)) return (in.fl & kFlSat) ? 0 : kNaN32;  // .sat: NaN -> +0
  if (in.fl & kFlFtz) r = flush(r);
  if (in.fl & kFlSat) r = r <= 0.0f ? 0.0f : r >= 1.0f ? 1.0f : r;
  return bits32(r);
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

// An IEEE binary format for rounding: fraction bits and the normal exponent range.
struct BinaryFormat {
  int fracBits, emin, emax;
};
constexpr BinaryFormat kF32{23, -126, 127};
constexpr BinaryFormat kF64{52, -1022, 1023};

// Bits of (-1)^sign * (s + sticky) * 2^x in format f, s > 0 with at least fracBits + 2 bits,
// rounded in mode (0 rn, 1 rz, 2 rm, 3 rp), subnormal and overflow results included.
uint64_t roundSignificand(bool sign, uint64_t s, bool sticky, int x, uint32_t mode, BinaryFormat f = kF32) {
  const int top = 63 - std::countl_zero(s);
  const int e = top + x;
  const uint64_t signBit = uint64_t{sign} << (f.fracBits + (f.fracBits == 23 ? 8 : 11));
  const uint64_t infBits = static_cast<uint64_t>(2 * f.emax + 1) << f.fracBits;
  if (e > f.emax) {
    bool toInf = mode == 0 || (mode == 3 && !sign) || (mode == 2 && sign);
    return signBit | (toInf ? infBits : infBits - 1);
  }
  int dropped = top - f.fracBits + (e < f.emin ? f.emin - e : 0);
  uint64_t keep, rem, half;
  if (dropped > 64) {
    keep = 0;
    rem = s;
    half = 0;  // below half the smallest subnormal: only the sticky part remains
  } else if (dropped == 64) {
    keep = 0;
    rem = s;
    half = 1ull << 63;
  } else {
    keep = s >> dropped;
    rem = s & ((1ull << dropped) - 1);
    half = 1ull << (dropped - 1);
  }
  bool inexact = rem != 0 || sticky;
  bool guard = half && (rem & half);
  bool rest = (rem & (half - 1)) != 0 || sticky || (!half && rem != 0);
  uint64_t inc = 0;
  switch (mode) {
    case 0: inc = guard && (rest || (keep & 1)); break;
    case 2: inc = sign && inexact; break;
    case 3: inc = !sign && inexact; break;
    default: break;
  }
  const uint64_t hidden = 1ull << f.fracBits;
  uint64_t bits = e >= f.emin ? (static_cast<uint64_t>(e - f.emin + 1) << f.fracBits) + (keep - hidden) : keep;
  return signBit | (bits + inc);
}

struct Unpacked64 {
  bool sign = false, nan = false, inf = false, zero = false;
  uint64_t m = 0;  // finite non-zero: significand normalised to bit 63, value = m * 2^(e - 63)
  int e = 0;
};

Unpacked64 unpack64(uint64_t bits) {
  Unpacked64 u;
  u.sign = bits >> 63;
  const uint64_t ex = (bits >> 52) & 0x7ff, frac = bits & ((1ull << 52) - 1);
  if (ex == 0x7ff) {
    (frac ? u.nan : u.inf) = true;
    return u;
  }
  if (ex == 0 && frac == 0) {
    u.zero = true;
    return u;
  }
  const uint64_t sig = ex ? frac | (1ull << 52) : frac;
  const int shift = std::countl_zero(sig);
  u.m = sig << shift;
  u.e = (ex ? static_cast<int>(ex) - 1023 : -1022) + 11 - shift;
  return u;
}

uint64_t negateUnlessNaN(uint64_t b) { return unpack64(b).nan ? b : b ^ (1ull << 63); }

/// The oracle's f64 NaN rule (docs/semantics.md): the first NaN operand propagates, quieted.
std::optional<uint64_t> propagatedNaN(std::initializer_list<uint64_t> operands) {
  for (uint64_t x : operands)
    if (unpack64(x).nan) return x | kQuietBit64;
  return std::nullopt;
}

// add.f64 correctly rounded in mode (0 rn, 1 rz, 2 rm, 3 rp): the operands' significands in a
// 128-bit frame (the larger at bits 126..63), the smaller shifted in with a sticky bit for
// what falls out, one rounding. NaN rule as in dmulFinish; inf - inf is the canonical NaN.
uint64_t daddRounded(uint64_t a, uint64_t b, uint32_t mode) {
  if (auto nan = propagatedNaN({a, b})) return *nan;
  Unpacked64 ua = unpack64(a), ub = unpack64(b);
  if (ua.inf && ub.inf) return ua.sign == ub.sign ? a : kNaN64;
  if (ua.inf) return a;
  if (ub.inf) return b;
  if (ua.zero && ub.zero) return uint64_t{mode == 2 ? (ua.sign || ub.sign) : (ua.sign && ub.sign)} << 63;
  if (ua.zero) return b;
  if (ub.zero) return a;
  if (ua.e < ub.e || (ua.e == ub.e && ua.m < ub.m)) std::swap(ua, ub);  // |a| >= |b|
  const int d = ua.e - ub.e;
  const u128 A = static_cast<u128>(ua.m) << 63;  // value = A * 2^(ea - 126)
  u128 B = 0;
  bool sticky = false;
  if (d >= 127) {
    sticky = true;
  } else {
    B = (static_cast<u128>(ub.m) << 63) >> d;
    sticky = d > 63 && (ub.m & ((1ull << (d - 63)) - 1)) != 0;
  }
  u128 S;
  if (ua.sign != ub.sign) {
    S = A - B - (sticky ? 1 : 0);  // the exact difference lies in (S, S + 1) when sticky
  } else {
    S = A + B;
  }
  if (S == 0) return uint64_t{mode == 2} << 63;  // exact cancellation
  const int top = 127 - (static_cast<uint64_t>(S >> 64) ? std::countl_zero(static_cast<uint64_t>(S >> 64))
                                                        : 64 + std::countl_zero(static_cast<uint64_t>(S)));
  uint64_t s64;
  if (top >= 63) {
    s64 = static_cast<uint64_t>(S >> (top - 63));
    sticky = sticky || (S & ((static_cast<u128>(1) << (top - 63)) - 1)) != 0;
  } else {
    s64 = static_cast<uint64_t>(S << (63 - top));
  }
  return roundSignificand(ua.sign, s64, sticky, ua.e + top - 189, mode, kF64);
}

// mul.f64 result from the top 64 bits of the product of the normalised significands (with the
// low half's sticky bit in bit 0) and the original operands a, b. NaN rule of the oracle
// (docs/semantics.md): an input NaN propagates quieted (a first), a generated one is canonical.
uint64_t dmulFinish(uint32_t mode, uint64_t hi, uint64_t a, uint64_t b) {
  if (auto nan = propagatedNaN({a, b})) return *nan;
  const Unpacked64 ua = unpack64(a), ub = unpack64(b);
  const uint64_t sign = uint64_t{ua.sign != ub.sign} << 63;
  if ((ua.inf && ub.zero) || (ua.zero && ub.inf)) return kNaN64;
  if (ua.inf || ub.inf) return sign | kInf64;
  if (ua.zero || ub.zero) return sign;
  // value = hi * 2^64 * 2^(ea + eb - 126) (+ sticky below bit 0)
  return roundSignificand(sign != 0, hi, false, ua.e + ub.e - 62, mode, kF64);
}

// ---- f64 division and square root micro-code (radix-16 restoring recurrences over two
// registers, R and Q, because 55-bit remainders and 60-bit quotients do not share one) ----

// div: R starts as a's 53-bit significand (from DSIG: >> 11), Q collects 60 quotient bits of
// a/b in [0.5, 2), so Q = floor(a/b * 2^59). DDIVQ returns the new Q, DDIVR the new R, both
// from the old R (a), old Q (b) and b's DSIG (c).
uint64_t ddivGroup(uint8_t fl, uint64_t r, uint64_t q, uint64_t sigB, bool wantQ) {
  const uint64_t mb = sigB >> 11;
  if (fl & kFlFirstGroup) {
    r >>= 11;  // a's DSIG
    q = 0;
  }
  for (int i = 0; i < 4; ++i) {
    const bool bit = r >= mb;
    if (bit) r -= mb;
    r <<= 1;
    q = q << 1 | bit;
  }
  if (fl & kFlLastGroup) q |= r != 0;
  return wantQ ? q : r;
}

uint64_t ddivFinish(uint32_t mode, uint64_t q, uint64_t a, uint64_t b) {
  if (auto nan = propagatedNaN({a, b})) return *nan;
  const Unpacked64 ua = unpack64(a), ub = unpack64(b);
  const uint64_t sign = uint64_t{ua.sign != ub.sign} << 63;
  if ((ua.inf && ub.inf) || (ua.zero && ub.zero)) return kNaN64;
  if (ua.inf || ub.zero) return sign | kInf64;
  if (ua.zero || ub.inf) return sign;
  return roundSignificand(sign != 0, q, false, ua.e - ub.e - 59, mode, kF64);
}

// sqrt: value = n * 2^(2k) with n the 53-bit significand, doubled when the exponent is odd.
// The root of N = n * 2^66 (< 2^120) has exactly 60 bits; each group brings in 8 bits of N.
struct SqrtRadicand {
  uint64_t n = 0;
  int k = 0;
};
SqrtRadicand dsqrtRadicand(const Unpacked64& u) {
  SqrtRadicand s;
  if (u.nan || u.inf || u.zero || u.sign) return s;
  int x = u.e - 52;  // value = (m >> 11) * 2^x
  s.n = u.m >> 11;
  if (x & 1) {
    s.n <<= 1;
    --x;
  }
  s.k = x / 2;
  return s;
}

// Q carries a sentinel 1 above its root bits, so the group count is its bit length / 4.
uint64_t dsqrtGroup(uint8_t fl, uint64_t r, uint64_t q, uint64_t n, bool wantQ) {
  if (fl & kFlFirstGroup) {
    r = 0;
    q = 1;
  }
  const int done = (63 - std::countl_zero(q)) / 4;  // groups so far
  uint64_t root = q & ((1ull << (4 * done)) - 1);
  for (int j = 0; j < 4; ++j) {
    const int i = 4 * done + j;        // root bit i (0 = most significant) takes bits 119-2i, 118-2i of N
    const int pos = 119 - 2 * i - 66;  // ... which are bits pos, pos - 1 of n
    const uint64_t pair = pos >= 1 ? (n >> (pos - 1)) & 3 : pos == 0 ? (n << 1) & 2 : 0;
    r = (r << 2) | pair;
    const uint64_t trial = (root << 2) | 1;
    if (r >= trial) {
      r -= trial;
      root = root << 1 | 1;
    } else {
      root <<= 1;
    }
  }
  if (fl & kFlLastGroup) root |= r != 0;
  return wantQ ? (uint64_t{1} << (4 * done + 4)) | root : r;
}

uint64_t dsqrtFinish(uint32_t mode, uint64_t q, uint64_t a) {
  const Unpacked64 u = unpack64(a);
  if (u.nan) return a | kQuietBit64;
  if (u.zero) return a;  // sqrt(-0) = -0
  if (u.sign) return kNaN64;
  if (u.inf) return a;
  const uint64_t root = q & ((1ull << 60) - 1);  // the sentinel is bit 60
  return roundSignificand(false, root, false, dsqrtRadicand(u).k - 33, mode, kF64);
}

// ---- fma.f64 micro-code. The exact product of the 53-bit significands (< 2^106) is the
// high half hi (< 2^42, MULP) and the low half lo; DFMAPACK packs the product's sign,
// exponent and class above hi, so that the two finishing steps see the whole product and c:
//   hi' bits 0-41 product bits 64-105, 42 sign, 43-55 exponent + 4096 (product = p * 2^e),
//   56 a is NaN, 57 b is NaN, 58 0 * inf, 59 product infinite, 60 product zero.
// DFMALO replaces lo by the quieted NaN operand when there is one. DFMASUM adds c exactly and
// packs the sum's top 54 bits with a sticky bit (bit 0), the shift from a reference exponent
// both steps compute (bits 55-62) and the sign (bit 63), or returns a special result whole;
// DFMAFIN rounds it.
constexpr int kPackExpBias = 4096;

uint64_t dfmaPack(uint64_t hi, uint64_t a, uint64_t b) {
  const Unpacked64 ua = unpack64(a), ub = unpack64(b);
  uint64_t flags = uint64_t{ua.nan} << 56 | uint64_t{ub.nan} << 57;
  flags |= uint64_t{(ua.zero && ub.inf) || (ua.inf && ub.zero)} << 58;
  flags |= uint64_t{ua.inf || ub.inf} << 59 | uint64_t{ua.zero || ub.zero} << 60;
  const int e = (ua.e - 52) + (ub.e - 52);  // p = ma53 * mb53, product = p * 2^e
  return flags | static_cast<uint64_t>(e + kPackExpBias) << 43 | uint64_t{ua.sign != ub.sign} << 42 |
         (hi & ((1ull << 42) - 1));
}

struct FmaParts {
  bool special = false;
  uint64_t result = 0;  // when special
  bool psign = false;
  u128 p = 0;  // product = p * 2^pe
  int pe = 0;
  Unpacked64 c;
  int ref = 0;  // exponent of the larger operand's leading bit, plus one
};

FmaParts fmaParts(uint32_t mode, uint64_t hiPacked, uint64_t lo, uint64_t c) {
  FmaParts f;
  f.c = unpack64(c);
  f.psign = (hiPacked >> 42) & 1;
  const bool nanAB = (hiPacked >> 56) & 3, invalid = (hiPacked >> 58) & 1, pinf = (hiPacked >> 59) & 1,
             pzero = (hiPacked >> 60) & 1;
  f.special = true;
  if (nanAB) { f.result = lo; return f; }  // DFMALO put the quieted NaN there
  if (f.c.nan) { f.result = c | kQuietBit64; return f; }
  if (invalid || (pinf && f.c.inf && f.c.sign != f.psign)) { f.result = kNaN64; return f; }
  if (pinf) { f.result = uint64_t{f.psign} << 63 | kInf64; return f; }
  if (f.c.inf) { f.result = c; return f; }
  if (pzero && f.c.zero) {
    f.result = uint64_t{mode == 2 ? (f.psign || f.c.sign) : (f.psign && f.c.sign)} << 63;
    return f;
  }
  if (pzero) { f.result = c; return f; }
  f.special = false;
  f.p = static_cast<u128>(hiPacked & ((1ull << 42) - 1)) << 64 | lo;
  f.pe = static_cast<int>((hiPacked >> 43) & 0x1fff) - kPackExpBias;
  f.ref = f.pe + 106;
  if (!f.c.zero) f.ref = std::max(f.ref, f.c.e + 1);
  return f;
}

// 256-bit unsigned helpers for the exact sum (two 128-bit halves).
struct U256 {
  u128 hi = 0, lo = 0;
};
U256 shl256(u128 v, int s) {  // v << s, s < 256
  if (s == 0) return {0, v};
  if (s >= 128) return {v << (s - 128), 0};
  return {v >> (128 - s), v << s};
}
bool less256(const U256& x, const U256& y) { return x.hi != y.hi ? x.hi < y.hi : x.lo < y.lo; }
U256 add256(const U256& x, const U256& y) {
  U256 r{x.hi + y.hi, x.lo + y.lo};
  if (r.lo < x.lo) ++r.hi;
  return r;
}
U256 sub256(const U256& x, const U256& y) {  // x >= y
  U256 r{x.hi - y.hi, x.lo - y.lo};
  if (x.lo < y.lo) --r.hi;
  return r;
}
int clz128(u128 v) {
  uint64_t h = static_cast<uint64_t>(v >> 64);
  return h ? std::countl_zero(h) : 64 + std::countl_zero(static_cast<uint64_t>(v));
}

uint64_t dfmaSum(uint32_t mode, uint64_t hiPacked, uint64_t lo, uint64_t c) {
  const FmaParts f = fmaParts(mode, hiPacked, lo, c);
  if (f.special) return f.result;
  const u128 cm = f.c.zero ? 0 : static_cast<u128>(f.c.m >> 11);  // c = cm * 2^ce
  const int ce = f.c.e - 52;
  const bool subtract = !f.c.zero && f.c.sign != f.psign;
  // Both terms on a common frame 2^e0 when they overlap; a term entirely below the other's
  // last bit by more than the frame allows only contributes a sticky bit.
  U256 big, small;
  bool sticky = false, bigIsP = true;
  int e0;
  const int kFrame = 140;
  if (cm == 0 || f.pe - ce > kFrame) {
    big = shl256(f.p, 2);
    e0 = f.pe - 2;
    sticky = cm != 0;
  } else if (ce - f.pe > kFrame) {
    big = shl256(cm, 2);
    e0 = ce - 2;
    sticky = true;
    bigIsP = false;
  } else {
    e0 = std::min(f.pe, ce);
    big = shl256(f.p, f.pe - e0);
    small = shl256(cm, ce - e0);
    if (less256(big, small)) {
      std::swap(big, small);
      bigIsP = false;
    }
  }
  bool sign = bigIsP ? f.psign : f.c.sign;
  U256 s;
  if (subtract) {
    s = sub256(big, small);
    if (sticky) s = sub256(s, U256{0, 1});  // the exact difference lies in (s, s + 1)
  } else {
    s = add256(big, small);
  }
  if (s.hi == 0 && s.lo == 0) return uint64_t{mode == 2} << 63;  // exact cancellation: +0 (-0 rounding down)
  const int top = s.hi ? 255 - clz128(s.hi) : 127 - clz128(s.lo);
  // The top 54 bits, and everything below as a sticky bit.
  const int drop = top - 54 + 1;  // bits below the kept 54 (drop may be negative: shift left)
  uint64_t s55;
  if (drop <= 0) {
    s55 = static_cast<uint64_t>(s.lo << (1 - drop)) | (sticky ? 1 : 0);
  } else {
    const u128 kept = drop >= 128 ? s.hi >> (drop - 128) : (s.lo >> drop) | (s.hi << (128 - drop));  // 54 bits
    const bool below = drop >= 128 ? (s.lo != 0 || (s.hi & ((static_cast<u128>(1) << (drop - 128)) - 1)) != 0)
                                   : (s.lo & ((static_cast<u128>(1) << drop) - 1)) != 0;
    s55 = static_cast<uint64_t>(kept) << 1 | (below || sticky ? 1 : 0);
  }
  const int lead = top + e0;  // exponent of the sum's leading bit
  const int adj = f.ref - lead;
  return uint64_t{sign} << 63 | static_cast<uint64_t>(adj) << 55 | s55;
}

uint64_t dfmaFinish(uint32_t mode, uint64_t packedSum, uint64_t hiPacked, uint64_t c) {
  const FmaParts f = fmaParts(mode, hiPacked, 0, c);
  if (f.special) return packedSum;
  const uint64_t s55 = packedSum & ((1ull << 55) - 1);
  if (s55 == 0) return packedSum;  // exact cancellation: the signed zero is already there
  const int lead = f.ref - static_cast<int>((packedSum >> 55) & 0xff);
  return roundSignificand(packedSum >> 63, s55, false, lead - 54, mode, kF64);
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


// lo/ls/hi/hs compare the bit patterns as unsigned whatever the type.
bool compareInt(uint8_t op, s128 a, s128 b, uint64_t ua, uint64_t ub) {
  switch (static_cast<MCmp>(op)) {
    case MCmp::Eq: return a == b;
    case MCmp::Ne: return a != b;
    case MCmp::Lt: return a < b;
    case MCmp::Le: return a <= b;
    case MCmp::Gt: return a > b;
    case MCmp::Ge: return a >= b;
    case MCmp::Lo: return ua < ub;
    case MCmp::Ls: return ua <= ub;
    case MCmp::Hi: return ua > ub;
    case MCmp::Hs: return ua >= ub;
    default: break;
  }
  throw Error(ErrorKind::Input, fmt::format("SETP: compare code {} is not an integer compare", op));
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

uint64_t shift(const MInstr& in, uint64_t a, uint64_t b, bool left) {
  const uint32_t bytes = in.bytes(), bits = 8 * bytes;
  uint32_t n = static_cast<uint32_t>(b & 0xffffffffu);
  if (left) return n >= bits ? 0 : (a << n) & widthMask(bytes);
  if (in.isSigned()) {
    int64_t v = sext(a, bytes);
    return static_cast<uint64_t>(v >> std::min(n, 63u)) & widthMask(bytes);
  }
  return n >= bits ? 0 : (a & widthMask(bytes)) >> n;
}

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

// min/max of f32 or f64: one NaN gives the other operand, two the canonical NaN; -0 < +0.
template <class F>
F fminmax(F a, F b, bool isMax, F canonicalNaN) {
  if (std::isnan(a) && std::isnan(b)) return canonicalNaN;
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return (std::signbit(a) != isMax) ? a : b;
  return (a < b) != isMax ? a : b;
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

uint64_t bitField(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t bits = 8 * in.bytes(), msb = bits - 1;
  uint64_t v = a & widthMask(in.bytes());
  uint32_t pos = static_cast<uint32_t>(b & 0xff), len = static_cast<uint32_t>(c & 0xff);
  bool sbit = in.isSigned() && len != 0 && ((v >> std::min(pos + len - 1, msb)) & 1);
  uint64_t r = 0;
  for (uint32_t i = 0; i <= msb; ++i) {
    bool bit = (i < len && pos + i <= msb) ? ((v >> (pos + i)) & 1) : sbit;
    if (bit) r |= 1ull << i;
  }
  return r;
}

uint64_t bitInsert(const MInstr& in, uint64_t a, uint64_t b, uint64_t packed) {
  const uint32_t msb = 8 * in.bytes() - 1;
  uint32_t pos = static_cast<uint32_t>(packed & 0xff), len = static_cast<uint32_t>((packed >> 8) & 0xff);
  uint64_t r = b & widthMask(in.bytes());
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
    uint64_t bit = 1ull << (pos + i);
    r = ((a >> i) & 1) ? (r | bit) : (r & ~bit);
  }
  return r;
}

uint32_t permute(uint32_t a, uint32_t b, uint32_t sel, uint8_t mode) {
  uint64_t src = (uint64_t{b} << 32) | a;
  auto byte = [&](uint32_t i) { return static_cast<uint32_t>((src >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  if (mode == 0) {
    for (uint32_t k = 0; k < 4; ++k) {
      uint32_t nib = (sel >> (4 * k)) & 0xf;
      uint32_t v = byte(nib & 7);
      if (nib & 8) v = (v & 0x80) ? 0xff : 0;  // replicate the sign bit
      r |= v << (8 * k);
    }
    return r;
  }
  // Byte selections of the named modes, indexed [mode-1][sel & 3][result byte].
  static const uint8_t kModes[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  if (mode > 6) throw Error(ErrorKind::Input, fmt::format("PRMT: mode {} does not exist", mode));
  for (uint32_t k = 0; k < 4; ++k) r |= byte(kModes[mode - 1][sel & 3][k]) << (8 * k);
  return r;
}

uint64_t magnitude64(const MInstr& in, uint64_t v) {
  return in.isSigned() && (v >> 63) ? 0 - v : v;
}

uint64_t magnitude32(const MInstr& in, uint64_t v) {
  v &= 0xffffffffu;
  if (in.isSigned() && (v >> 31)) v = (0 - v) & 0xffffffffu;
  return v;
}

}  // namespace

uint64_t atomicResult(const MInstr& in, uint64_t old, uint64_t b, uint64_t c) {
  const uint32_t w = in.bytes();
  const uint64_t m = widthMask(w);
  switch (static_cast<MAtom>(in.fl)) {
    case MAtom::And: return old & b & m;
    case MAtom::Or: return (old | b) & m;
    case MAtom::Xor: return (old ^ b) & m;
    case MAtom::Cas: return ((old & m) == (b & m) ? c : old) & m;
    case MAtom::Exch: return b & m;
    case MAtom::Add: return (old + b) & m;
    case MAtom::Inc: return (old & m) >= (b & m) ? 0 : (old + 1) & m;
    case MAtom::Dec: return ((old & m) == 0 || (old & m) > (b & m)) ? b & m : (old - 1) & m;
    case MAtom::Min: return static_cast<uint64_t>(std::min(val(in, old, w), val(in, b, w))) & m;
    case MAtom::Max: return static_cast<uint64_t>(std::max(val(in, old, w), val(in, b, w))) & m;
  }
  throw Error(ErrorKind::Input, fmt::format("ATOM: operation {} does not exist", in.fl));
}

uint32_t writeBytes(const MInstr& in) {
  switch (in.op) {
    case MOp::Setp: case MOp::FSetp: case MOp::Carry: return 1;
    case MOp::MulWide: case MOp::MadWide: return 2 * in.bytes();
    case MOp::Ld: case MOp::CvtI: case MOp::F2I: return 1u << (in.c & 3);
    case MOp::Div64R: case MOp::Div64Q: case MOp::Div64Fin: case MOp::MulP: case MOp::MulPC: case MOp::F2D:
    case MOp::DSig: case MOp::DSticky: case MOp::DMulFin: case MOp::DDivQ: case MOp::DDivR: case MOp::DDivFin:
    case MOp::DSqrtN: case MOp::DSqrtQ: case MOp::DSqrtR: case MOp::DSqrtFin: case MOp::DFmaPack: case MOp::DFmaLo:
    case MOp::DFmaSum: case MOp::DFmaFin: return 8;
    case MOp::F2H: return 2;
    case MOp::H2F: case MOp::FRndI: case MOp::D2F: return 4;
    case MOp::I2F: return (in.fl & kFlI2FDest64) ? 8 : 4;
    case MOp::DivInit: case MOp::DivStep: case MOp::FDivInit: case MOp::FDivStep: case MOp::FSqrtStep: return 8;
    case MOp::FDivFin: case MOp::FSqrtFin: return 4;
    case MOp::Shfl: case MOp::Popc: case MOp::DivFin: case MOp::Dp: case MOp::Clz: case MOp::Bfind: case MOp::Shf:
    case MOp::Prmt: return 4;
    case MOp::St: case MOp::Bar: case MOp::Bra: case MOp::Exit: case MOp::Call: return 0;
    default: return in.bytes();
  }
}

uint64_t computeLane(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t w = in.bytes();
  const uint64_t m = widthMask(w);
  switch (in.op) {
    case MOp::MulLo: case MOp::MulHi: case MOp::MadLo: case MOp::MulWide: case MOp::MadWide:
      // The multiplier is 32x32 (docs/machine.md §5.1); 64-bit products are MULP micro-code.
      if (w == 8) throw Error(ErrorKind::Input, fmt::format("{}: 64-bit operands are not a machine step (MULP micro-code)", opName(in.op)));
      break;
    default: break;
  }
  switch (in.op) {
    case MOp::Mov: return a & m;
    case MOp::Add: return (a + b) & m;
    case MOp::Sub: return (a - b) & m;
    case MOp::MulLo: return static_cast<uint64_t>(val(in, a, w) * val(in, b, w)) & m;
    case MOp::MulHi: {
      s128 p = val(in, a, w) * val(in, b, w);
      if (w == 8 && !in.isSigned()) {
        u128 up = static_cast<u128>(a) * static_cast<u128>(b);
        return static_cast<uint64_t>(up >> 64);
      }
      return static_cast<uint64_t>(p >> (8 * w)) & m;
    }
    case MOp::MulWide: return static_cast<uint64_t>(val(in, a, w) * val(in, b, w)) & widthMask(2 * w);
    case MOp::MadLo: return static_cast<uint64_t>(val(in, a, w) * val(in, b, w) + val(in, c, w)) & m;
    case MOp::MadWide:
      return (static_cast<uint64_t>(val(in, a, w) * val(in, b, w)) + c) & widthMask(2 * w);
    case MOp::MulP: case MOp::MulPC: {  // one 32x32 product of halves, plus (part of) c
      s128 p = half32(a, in.fl & kFlMulAHigh, in.isSigned()) * half32(b, in.fl & kFlMulBHigh, in.isSigned());
      if (in.op == MOp::MulP) {
        if (in.fl & kFlMulShl32) p *= s128{1} << 32;
        if (in.fl & kFlMulShr32) p >>= 32;  // floor: the exact product's bits 32 and up
        return static_cast<uint64_t>(static_cast<u128>(p) + c);
      }
      s128 addend = (in.fl & kFlMulCHigh) ? half32(c, true, in.isSigned()) : half32(c, false, false);
      return static_cast<uint64_t>(static_cast<u128>(p + addend));
    }
    case MOp::And: return a & b & m;
    case MOp::Or: return (a | b) & m;
    case MOp::Xor: return (a ^ b) & m;
    case MOp::Not: return ~a & m;
    case MOp::Shl: return shift(in, a, b, true);
    case MOp::Shr: return shift(in, a, b, false);
    case MOp::Min: return static_cast<uint64_t>(std::min(val(in, a, w), val(in, b, w))) & m;
    case MOp::Max: return static_cast<uint64_t>(std::max(val(in, a, w), val(in, b, w))) & m;
    case MOp::Neg: return (0 - a) & m;
    case MOp::Abs: {
      int64_t v = sext(a, w);
      return static_cast<uint64_t>(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)) & m;
    }
    case MOp::Setp: return compareInt(in.fl, val(in, a, w), val(in, b, w), a & m, b & m) ? 1 : 0;
    case MOp::Selp: return ((c & 1) ? a : b) & m;
    case MOp::CvtI: return convertInt(in, a);
    case MOp::I2F: return intToFloat(in, a);
    case MOp::F2I: return floatToInt(in, a);
    case MOp::FAdd: case MOp::FSub:
      if (w == 8) return daddRounded(a, in.op == MOp::FSub ? negateUnlessNaN(b) : b, roundingOf(in));
      return out32(in, addRounded(in32(in, a), in.op == MOp::FSub ? -static_cast<double>(in32(in, b)) : in32(in, b),
                                  roundingOf(in)));
    case MOp::D2F: {
      const Unpacked64 u = unpack64(a);
      if (u.nan) return (in.fl & kFlSat) ? 0 : kNaN32;
      float r = u.inf ? std::copysign(INFINITY, u.sign ? -1.0f : 1.0f)
              : u.zero ? std::copysign(0.0f, u.sign ? -1.0f : 1.0f)
                       : std::bit_cast<float>(static_cast<uint32_t>(roundSignificand(u.sign, u.m, false, u.e - 63, roundingOf(in))));
      if (in.fl & kFlSat) r = std::signbit(r) || r == 0.0f ? 0.0f : r >= 1.0f ? 1.0f : r;
      return out32(in, r);
    }
    case MOp::FMul: {
      double p = static_cast<double>(in32(in, a)) * static_cast<double>(in32(in, b));  // exact
      return out32(in, std::isnan(p) || std::isinf(p) ? static_cast<float>(p) : roundToF32(p, 0, roundingOf(in)));
    }
    case MOp::FFma: {
      double p = static_cast<double>(in32(in, a)) * static_cast<double>(in32(in, b));  // exact
      return out32(in, addRounded(p, in32(in, c), roundingOf(in)));
    }
    case MOp::FMin: case MOp::FMax: {
      if (w == 8)
        return std::bit_cast<uint64_t>(fminmax(std::bit_cast<double>(a), std::bit_cast<double>(b), in.op == MOp::FMax,
                                               std::bit_cast<double>(kNaN64)));
      float r = fminmax(in32(in, a), in32(in, b), in.op == MOp::FMax, std::bit_cast<float>(kNaN32));
      return std::isnan(r) ? kNaN32 : out32(in, r);
    }
    case MOp::H2F: return out32(in, halfToFloat(static_cast<uint16_t>(a)));
    case MOp::F2H: return floatToHalfBits(in, in32(in, a));
    case MOp::F2D: {
      float x = in32(in, a);
      return std::isnan(x) ? kNaN64 : std::bit_cast<uint64_t>(static_cast<double>(x));
    }
    case MOp::FRndI: return out32(in, roundToIntegral(in32(in, a), roundingOf(in)));
    // f64 multiply micro-code (docs/machine.md §2.1): significands normalised to bit 63, their
    // 128-bit product's high half (MULP), the low half's non-zero-ness as a sticky bit, then
    // exponent, rounding and special values.
    case MOp::DSig: return unpack64(a).m >> ((in.fl & kFlSig53) ? 11 : 0);
    case MOp::DFmaPack: return dfmaPack(a, b, c);
    case MOp::DFmaLo: return propagatedNaN({b, c}).value_or(a);
    case MOp::DFmaSum: return dfmaSum(roundingOf(in), a, b, c);
    case MOp::DFmaFin: return dfmaFinish(roundingOf(in), a, b, c);
    case MOp::DSticky: return a | (b != 0 && c != 0 && std::countr_zero(b) + std::countr_zero(c) < 64 ? 1 : 0);
    case MOp::DMulFin: return dmulFinish(roundingOf(in), a, b, c);
    case MOp::DDivQ: return ddivGroup(in.fl, a, b, c, true);
    case MOp::DDivR: return ddivGroup(in.fl, a, b, c, false);
    case MOp::DDivFin: return ddivFinish(roundingOf(in), a, b, c);
    case MOp::DSqrtN: return dsqrtRadicand(unpack64(a)).n;
    case MOp::DSqrtQ: return dsqrtGroup(in.fl, a, b, c, true);
    case MOp::DSqrtR: return dsqrtGroup(in.fl, a, b, c, false);
    case MOp::DSqrtFin: return dsqrtFinish(roundingOf(in), a, b);
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
    // 32-bit division micro-code (radix 16): state T = R << 32 | Q.
    case MOp::DivInit: return w == 8 ? magnitude64(in, a) : magnitude32(in, a);  // R = 0, Q = |dividend|
    case MOp::DivStep: {
      uint64_t r = a >> 32, q = a & 0xffffffffu, dv = magnitude32(in, b);
      for (int i = 0; i < 4; ++i) {  // four compare-subtract stages
        r = (r << 1) | (q >> 31);
        q = (q << 1) & 0xffffffffu;
        if (dv != 0 && r >= dv) {
          r -= dv;
          q |= 1;
        }
      }
      return r << 32 | q;
    }
    case MOp::DivFin: {  // a = state, b = dividend, c = divisor; fl bit 0: remainder
      uint64_t bv = c & 0xffffffffu, av = b & 0xffffffffu;
      if (bv == 0) return 0xffffffffu;  // division by zero: all ones
      bool rem = in.fl & 1;
      uint64_t v = rem ? a >> 32 : a & 0xffffffffu;
      bool negA = in.isSigned() && (av >> 31), negB = in.isSigned() && (bv >> 31);
      bool negate = rem ? negA : (negA != negB);
      return (negate ? 0 - v : v) & 0xffffffffu;
    }
    case MOp::Dp: {  // dp4a / dp2a: fl bit 0 a signed, bit 1 b signed, bit 2 hi half (dp2a), bit 3 dp2a
      auto part = [](uint64_t v, uint32_t shift, uint32_t bits, bool sgn) -> int64_t {
        int64_t x = static_cast<int64_t>((v >> shift) & ((1ull << bits) - 1));
        return sgn && (x >> (bits - 1)) ? x - (int64_t{1} << bits) : x;
      };
      bool sa = in.fl & 1, sb = in.fl & 2;
      int64_t acc = static_cast<int32_t>(static_cast<uint32_t>(c));
      if (in.fl & 8) {
        uint32_t k = (in.fl & 4) ? 2 : 0;
        for (uint32_t i = 0; i < 2; ++i) acc += part(a, 16 * i, 16, sa) * part(b, 8 * (k + i), 8, sb);
      } else {
        for (uint32_t i = 0; i < 4; ++i) acc += part(a, 8 * i, 8, sa) * part(b, 8 * i, 8, sb);
      }
      return static_cast<uint64_t>(acc) & 0xffffffffu;
    }
    case MOp::Mul24: {  // 24 x 24 -> 48-bit product; fl bit 0: bits 47..16 (.hi); + c (mad24)
      auto low24 = [&](uint64_t v) -> int64_t {
        int64_t x = static_cast<int64_t>(v & 0xffffff);
        return in.isSigned() && (x >> 23) ? x - (int64_t{1} << 24) : x;
      };
      uint64_t p = static_cast<uint64_t>(low24(a) * low24(b));
      return (((in.fl & 1) ? p >> 16 : p) + c) & 0xffffffffu;
    }
    case MOp::Sad: {  // c + |a - b|
      s128 x = val(in, a, w), y = val(in, b, w);
      return (c + static_cast<uint64_t>(x < y ? y - x : x - y)) & m;
    }
    case MOp::CAdd: case MOp::Carry: {  // a + b + carry-in (sub: a + ~b + carry-in); fl bit 0: c is CC.CF
      bool sub = in.fl & 4;
      u128 bv = (sub ? ~b : b) & m;
      u128 carryIn = (in.fl & 1) ? (c & 1) : (sub ? 1 : 0);
      u128 full = u128{a & m} + bv + carryIn;
      if (in.op == MOp::Carry) return static_cast<uint64_t>(full >> (8 * w)) & 1;
      return static_cast<uint64_t>(full) & m;
    }
    // 64-bit division micro-code: Q starts as |dividend| (DIVINIT with ty 8), R as 0; each
    // pair DIV64R / DIV64Q runs the same four restoring steps on (R, Q) and keeps R or Q.
    case MOp::Div64R: case MOp::Div64Q: {
      uint64_t r = a, q = b, dv = magnitude64(in, c);
      for (int i = 0; i < 4; ++i) {
        u128 wide = (u128{r} << 1) | (q >> 63);
        q <<= 1;
        if (dv != 0 && wide >= dv) {
          wide -= dv;
          q |= 1;
        }
        r = static_cast<uint64_t>(wide);
      }
      return in.op == MOp::Div64R ? r : q;
    }
    case MOp::Div64Fin: {  // a = R (fl bit 0) or Q, b = dividend, c = divisor
      if (c == 0) return ~0ull;
      bool rem = in.fl & 1;
      bool negA = in.isSigned() && (b >> 63), negB = in.isSigned() && (c >> 63);
      bool negate = rem ? negA : (negA != negB);
      return negate ? 0 - a : a;
    }
    case MOp::FDivInit: return fdivInit(in, a, b);
    case MOp::FDivStep: return fdivStep(in, a, b);
    case MOp::FDivFin: return fdivFin(in, a, b, c);
    case MOp::FSqrtStep: return fsqrtStep(in, a, b);
    case MOp::FSqrtFin: return fsqrtFin(in, a, b);
    case MOp::Popc: return static_cast<uint64_t>(std::popcount(a & m));
    case MOp::Clz: return static_cast<uint64_t>(std::countl_zero(a & m)) - (64 - 8 * w);
    case MOp::Brev: {
      uint64_t r = 0;
      for (uint32_t i = 0; i < 8 * w; ++i) r |= ((a >> i) & 1) << (8 * w - 1 - i);
      return r;
    }
    case MOp::Bfind: {
      uint64_t u = a & m;
      if (in.isSigned() && ((u >> (8 * w - 1)) & 1)) u = ~u & m;
      if (u == 0) return 0xffffffffu;
      uint32_t pos = 63 - static_cast<uint32_t>(std::countl_zero(u));
      return (in.fl & 1) ? 8 * w - 1 - pos : pos;  // .shiftamt
    }
    case MOp::Bfe: return bitField(in, a, b, c);
    case MOp::Bfi: return bitInsert(in, a, b, c);
    case MOp::Shf: {
      uint32_t n = static_cast<uint32_t>(c);
      n = (in.fl & 2) ? std::min(n, 32u) : (n & 31);
      uint64_t both = (b & 0xffffffffu) << 32 | (a & 0xffffffffu);
      return (in.fl & 1) ? (both >> n) & 0xffffffffu : ((both << n) >> 32) & 0xffffffffu;
    }
    case MOp::Prmt:
      return permute(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c), in.fl);
    case MOp::Cvta: {
      MSpace s = static_cast<MSpace>(in.fl & 7);
      uint64_t win = windowOf(s), v = a & m;
      if (in.fl & kFlCvtaTo) {
        bool inside = win ? (v >= win && v < win + kWindowBytes)
                          : !(v >= kSharedWindow && v < kParamWindow + kWindowBytes);
        if (!inside)
          throw Error(ErrorKind::Undefined,
                      fmt::format("cvta.to.{}: generic address {:#x} is not in that state space", spaceName(s), v));
        return (v - win) & m;
      }
      return (v + win) & m;
    }
    default: break;
  }
  throw Error(ErrorKind::Input, fmt::format("{} is not a lane-local operation", opName(in.op)));
}

}  // namespace qgpu::machine
