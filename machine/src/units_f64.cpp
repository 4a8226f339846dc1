// f64 functional units (docs/machine.md §1.4, §2.1): add.f64 correctly rounded, and the f64
// multiply, division, square-root and fma micro-code steps (unpacking, digit recurrences,
// exact sums in wide integers, one rounding at the end).
#include <algorithm>
#include <bit>
#include <initializer_list>
#include <optional>

#include "unit_common.h"

namespace qgpu::machine::units {
namespace {

/// The oracle's f64 NaN rule (docs/semantics.md): the first NaN operand propagates, quieted.
std::optional<uint64_t> propagatedNaN(std::initializer_list<uint64_t> operands) {
  for (uint64_t x : operands)
    if (unpack64(x).nan) return x | kQuietBit64;
  return std::nullopt;
}

}  // namespace

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

uint64_t negateUnlessNaN(uint64_t b) { return unpack64(b).nan ? b : b ^ (1ull << 63); }

namespace {

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

}  // namespace

uint64_t float64Unit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  switch (in.op) {
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
    default: break;
  }
  notLaneLocal(in);
}

}  // namespace qgpu::machine::units
