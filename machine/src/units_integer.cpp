// Integer functional units (docs/machine.md §1.4, §2.1): add/sub, the 32x32 multiplier and
// the 64-bit multiply micro-code (MULP/MULPC), logic, shifts and bit fields, compares and
// selects, counts, dp4a/mul24/sad, extended-precision carries, and the 32- and 64-bit
// division micro-code.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "unit_common.h"

namespace qgpu::machine::units {
namespace {

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

// One 32x32 product of register halves, plus (part of) c (64-bit multiply micro-code).
uint64_t mulPartial(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  s128 p = half32(a, in.fl & kFlMulAHigh, in.isSigned()) * half32(b, in.fl & kFlMulBHigh, in.isSigned());
  if (in.op == MOp::MulP) {
    if (in.fl & kFlMulShl32) p *= s128{1} << 32;
    if (in.fl & kFlMulShr32) p >>= 32;  // floor: the exact product's bits 32 and up
    return static_cast<uint64_t>(static_cast<u128>(p) + c);
  }
  s128 addend = (in.fl & kFlMulCHigh) ? half32(c, true, in.isSigned()) : half32(c, false, false);
  return static_cast<uint64_t>(static_cast<u128>(p + addend));
}

uint64_t mulHigh(const MInstr& in, uint64_t a, uint64_t b) {
  const uint32_t w = in.bytes();
  s128 p = val(in, a, w) * val(in, b, w);
  if (w == 8 && !in.isSigned()) {
    u128 up = static_cast<u128>(a) * static_cast<u128>(b);
    return static_cast<uint64_t>(up >> 64);
  }
  return static_cast<uint64_t>(p >> (8 * w)) & widthMask(w);
}

// 32-bit division micro-code (radix 16): state T = R << 32 | Q.
uint64_t divStep(const MInstr& in, uint64_t a, uint64_t b) {
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

uint64_t divFinish(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {  // a = state, b = dividend, c = divisor; fl bit 0: remainder
  uint64_t bv = c & 0xffffffffu, av = b & 0xffffffffu;
  if (bv == 0) return 0xffffffffu;  // division by zero: all ones
  bool rem = in.fl & 1;
  uint64_t v = rem ? a >> 32 : a & 0xffffffffu;
  bool negA = in.isSigned() && (av >> 31), negB = in.isSigned() && (bv >> 31);
  bool negate = rem ? negA : (negA != negB);
  return (negate ? 0 - v : v) & 0xffffffffu;
}

// 64-bit division micro-code: Q starts as |dividend| (DIVINIT with ty 8), R as 0; each
// pair DIV64R / DIV64Q runs the same four restoring steps on (R, Q) and keeps R or Q.
uint64_t div64Step(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
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

uint64_t div64Finish(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {  // a = R (fl bit 0) or Q, b = dividend, c = divisor
  if (c == 0) return ~0ull;
  bool rem = in.fl & 1;
  bool negA = in.isSigned() && (b >> 63), negB = in.isSigned() && (c >> 63);
  bool negate = rem ? negA : (negA != negB);
  return negate ? 0 - a : a;
}

// dp4a / dp2a: fl bit 0 a signed, bit 1 b signed, bit 2 hi half (dp2a), bit 3 dp2a.
uint64_t dotProduct(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
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

// 24 x 24 -> 48-bit product; fl bit 0: bits 47..16 (.hi); + c (mad24).
uint64_t mul24(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  auto low24 = [&](uint64_t v) -> int64_t {
    int64_t x = static_cast<int64_t>(v & 0xffffff);
    return in.isSigned() && (x >> 23) ? x - (int64_t{1} << 24) : x;
  };
  uint64_t p = static_cast<uint64_t>(low24(a) * low24(b));
  return (((in.fl & 1) ? p >> 16 : p) + c) & 0xffffffffu;
}

// a + b + carry-in (sub: a + ~b + carry-in), or (CARRY) its carry-out; fl bit 0: c is CC.CF.
uint64_t carryAdd(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t w = in.bytes();
  const uint64_t m = widthMask(w);
  bool sub = in.fl & 4;
  u128 bv = (sub ? ~b : b) & m;
  u128 carryIn = (in.fl & 1) ? (c & 1) : (sub ? 1 : 0);
  u128 full = u128{a & m} + bv + carryIn;
  if (in.op == MOp::Carry) return static_cast<uint64_t>(full >> (8 * w)) & 1;
  return static_cast<uint64_t>(full) & m;
}

uint64_t bitReverse(uint64_t a, uint32_t w) {
  uint64_t r = 0;
  for (uint32_t i = 0; i < 8 * w; ++i) r |= ((a >> i) & 1) << (8 * w - 1 - i);
  return r;
}

uint64_t findBit(const MInstr& in, uint64_t a) {
  const uint32_t w = in.bytes();
  const uint64_t m = widthMask(w);
  uint64_t u = a & m;
  if (in.isSigned() && ((u >> (8 * w - 1)) & 1)) u = ~u & m;
  if (u == 0) return 0xffffffffu;
  uint32_t pos = 63 - static_cast<uint32_t>(std::countl_zero(u));
  return (in.fl & 1) ? 8 * w - 1 - pos : pos;  // .shiftamt
}

uint64_t funnelShift(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  uint32_t n = static_cast<uint32_t>(c);
  n = (in.fl & 2) ? std::min(n, 32u) : (n & 31);
  uint64_t both = (b & 0xffffffffu) << 32 | (a & 0xffffffffu);
  return (in.fl & 1) ? (both >> n) & 0xffffffffu : ((both << n) >> 32) & 0xffffffffu;
}

// BMSK: b bits of ones from bit a, bits above 31 dropped; fl bit 0 clamps a and b to 32,
// else they wrap modulo 32.
uint64_t bitMask(const MInstr& in, uint64_t a, uint64_t b) {
  const bool clamp = in.fl & 1;
  const uint64_t pos = clamp ? std::min<uint64_t>(a & 0xffffffffu, 32) : a & 31;
  const uint64_t len = clamp ? std::min<uint64_t>(b & 0xffffffffu, 32) : b & 31;
  return (((uint64_t{1} << len) - 1) << pos) & 0xffffffffu;
}

}  // namespace

uint64_t integerUnit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
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
    case MOp::MulHi: return mulHigh(in, a, b);
    case MOp::MulWide: return static_cast<uint64_t>(val(in, a, w) * val(in, b, w)) & widthMask(2 * w);
    case MOp::MadLo: return static_cast<uint64_t>(val(in, a, w) * val(in, b, w) + val(in, c, w)) & m;
    case MOp::MadWide:
      return (static_cast<uint64_t>(val(in, a, w) * val(in, b, w)) + c) & widthMask(2 * w);
    case MOp::MulP: case MOp::MulPC: return mulPartial(in, a, b, c);
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
    case MOp::DivInit: return w == 8 ? magnitude64(in, a) : magnitude32(in, a);  // R = 0, Q = |dividend|
    case MOp::DivStep: return divStep(in, a, b);
    case MOp::DivFin: return divFinish(in, a, b, c);
    case MOp::Div64R: case MOp::Div64Q: return div64Step(in, a, b, c);
    case MOp::Div64Fin: return div64Finish(in, a, b, c);
    case MOp::Dp: return dotProduct(in, a, b, c);
    case MOp::Mul24: return mul24(in, a, b, c);
    case MOp::Sad: {  // c + |a - b|
      s128 x = val(in, a, w), y = val(in, b, w);
      return (c + static_cast<uint64_t>(x < y ? y - x : x - y)) & m;
    }
    case MOp::CAdd: case MOp::Carry: return carryAdd(in, a, b, c);
    case MOp::Popc: return static_cast<uint64_t>(std::popcount(a & m));
    case MOp::Clz: return static_cast<uint64_t>(std::countl_zero(a & m)) - (64 - 8 * w);
    case MOp::Brev: return bitReverse(a, w);
    case MOp::Bfind: return findBit(in, a);
    case MOp::Bfe: return bitField(in, a, b, c);
    case MOp::Bfi: return bitInsert(in, a, b, c);
    case MOp::Shf: return funnelShift(in, a, b, c);
    case MOp::Bmsk: return bitMask(in, a, b);
    case MOp::Prmt:
      return permute(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c), in.fl);
    default: break;
  }
  notLaneLocal(in);
}

}  // namespace qgpu::machine::units
