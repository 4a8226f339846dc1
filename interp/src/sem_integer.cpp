// Integer arithmetic, logic, shifts and bit manipulation (PTX ISA §9.7.1,
// §9.7.2 extended precision, §9.7.7 logic, §9.7.8 shifts). Results wrap
// modulo 2^n; the corner cases the ISA leaves "machine-specific" follow what
// NVIDIA hardware is documented or reported to do (docs/semantics.md).
#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"

namespace qgpu {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

namespace {

template <class T>
using U = std::make_unsigned_t<T>;
template <class T>
constexpr uint32_t kBits = sizeof(T) * 8;

// ------------------------------------------------------------------ ops
template <class T> struct AddOp {
  static T apply(const Instr& in, T a, T b) {
    if constexpr (std::is_same_v<T, int32_t>) {
      if (in.sat) {
        int64_t r = int64_t{a} + b;
        return static_cast<T>(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
      }
    }
    return static_cast<T>(static_cast<U<T>>(a) + static_cast<U<T>>(b));
  }
};
template <class T> struct SubOp {
  static T apply(const Instr& in, T a, T b) {
    if constexpr (std::is_same_v<T, int32_t>) {
      if (in.sat) {
        int64_t r = int64_t{a} - b;
        return static_cast<T>(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
      }
    }
    return static_cast<T>(static_cast<U<T>>(a) - static_cast<U<T>>(b));
  }
};

// Full 2n-bit product as a signed or unsigned 128-bit value.
template <class T>
u128 wideProduct(T a, T b) {
  if constexpr (std::is_signed_v<T>) return static_cast<u128>(s128{a} * s128{b});
  else return u128{a} * u128{b};
}

template <class T> struct MulLoOp {
  static T apply(const Instr&, T a, T b) { return static_cast<T>(wideProduct(a, b)); }
};
template <class T> struct MulHiOp {
  static T apply(const Instr&, T a, T b) { return static_cast<T>(wideProduct(a, b) >> kBits<T>); }
};
template <class T> struct MadLoOp {
  static T apply(const Instr&, T a, T b, T c) {
    return static_cast<T>(static_cast<U<T>>(wideProduct(a, b)) + static_cast<U<T>>(c));
  }
};
template <class T> struct MadHiOp {
  static T apply(const Instr& in, T a, T b, T c) {
    U<T> hi = static_cast<U<T>>(wideProduct(a, b) >> kBits<T>);
    if constexpr (std::is_same_v<T, int32_t>) {
      if (in.sat) {
        int64_t r = int64_t{static_cast<int32_t>(hi)} + c;
        return static_cast<T>(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
      }
    }
    return static_cast<T>(hi + static_cast<U<T>>(c));
  }
};

// mul.wide / mad.wide: 16->32 and 32->64 bits.
template <class T>
using Wide = std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                                std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
template <class T>
void mulWide(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  forLanes(c, m, [&](uint32_t l) {
    d[l] = bitsOf(static_cast<Wide<T>>(Wide<T>{as<T>(a[l])} * Wide<T>{as<T>(b[l])}));
  });
}
template <class T>
void madWide(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  using W = Wide<T>;
  forLanes(c, m, [&](uint32_t l) {
    using UW = std::make_unsigned_t<W>;
    UW p = static_cast<UW>(W{as<T>(a[l])} * W{as<T>(b[l])});
    d[l] = bitsOf(static_cast<W>(p + static_cast<UW>(as<W>(x[l]))));
  });
}

// mul24/mad24: 48-bit product of the low 24 bits (sign- or zero-extended).
template <class T>
int64_t low24(T v) {
  if constexpr (std::is_signed_v<T>) return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v) << 8) >> 8);
  else return static_cast<int64_t>(v & 0xffffffu);
}
template <class T> struct Mul24Op {
  static T apply(const Instr& in, T a, T b) {
    uint64_t p = static_cast<uint64_t>(low24(a) * low24(b));
    return static_cast<T>(in.mode ? (p >> 16) : p);  // .hi: bits 47..16
  }
};
template <class T> struct Mad24Op {
  static T apply(const Instr& in, T a, T b, T c) {
    uint64_t p = static_cast<uint64_t>(low24(a) * low24(b));
    uint32_t part = static_cast<uint32_t>(in.mode ? (p >> 16) : p);
    if constexpr (std::is_same_v<T, int32_t>) {
      if (in.sat) {
        int64_t r = int64_t{static_cast<int32_t>(part)} + c;
        return static_cast<T>(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
      }
    }
    return static_cast<T>(part + static_cast<uint32_t>(c));
  }
};
template <class T> struct SadOp {
  static T apply(const Instr&, T a, T b, T c) {
    U<T> diff = a < b ? static_cast<U<T>>(static_cast<U<T>>(b) - static_cast<U<T>>(a))
                      : static_cast<U<T>>(static_cast<U<T>>(a) - static_cast<U<T>>(b));
    return static_cast<T>(static_cast<U<T>>(c) + diff);
  }
};

// Division by zero gives all ones (as NVIDIA GPUs do); MIN / -1 gives MIN.
template <class T> struct DivOp {
  static T apply(const Instr&, T a, T b) {
    if (b == 0) return static_cast<T>(~U<T>{0});
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == -1) return a;
    return static_cast<T>(a / b);
  }
};
template <class T> struct RemOp {
  static T apply(const Instr&, T a, T b) {
    if (b == 0) return static_cast<T>(~U<T>{0});
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == -1) return 0;
    return static_cast<T>(a % b);
  }
};
template <class T> struct AbsOp {
  static T apply(const Instr&, T a) {
    if constexpr (std::is_signed_v<T>)
      return a < 0 ? static_cast<T>(U<T>{0} - static_cast<U<T>>(a)) : a;
    else return a;
  }
};
template <class T> struct NegOp {
  static T apply(const Instr&, T a) { return static_cast<T>(U<T>{0} - static_cast<U<T>>(a)); }
};
template <class T> struct MinOp {
  static T apply(const Instr&, T a, T b) { return a < b ? a : b; }
};
template <class T> struct MaxOp {
  static T apply(const Instr&, T a, T b) { return a > b ? a : b; }
};
template <class T> struct AndOp {
  static T apply(const Instr&, T a, T b) { return a & b; }
};
template <class T> struct OrOp {
  static T apply(const Instr&, T a, T b) { return a | b; }
};
template <class T> struct XorOp {
  static T apply(const Instr&, T a, T b) { return a ^ b; }
};
template <class T> struct NotOp {
  static T apply(const Instr&, T a) { return static_cast<T>(~a); }
};
template <class T> struct CnotOp {
  static T apply(const Instr&, T a) { return a == 0 ? 1 : 0; }
};
template <class T> struct BrevOp {
  static T apply(const Instr&, T a) {
    U<T> v = static_cast<U<T>>(a), r = 0;
    for (uint32_t i = 0; i < kBits<T>; ++i) r = static_cast<U<T>>(r | (((v >> i) & 1u) << (kBits<T> - 1 - i)));
    return static_cast<T>(r);
  }
};

// Ops whose result is u32 regardless of the operand type.
template <class T>
void popcHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = static_cast<uint32_t>(std::popcount(static_cast<U<T>>(as<T>(a[l])))); });
}
template <class T>
void clzHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = static_cast<uint32_t>(std::countl_zero(static_cast<U<T>>(as<T>(a[l])))); });
}
template <class T>
void bfindHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) {
    T v = as<T>(a[l]);
    U<T> u = static_cast<U<T>>(v);
    if constexpr (std::is_signed_v<T>)
      if (v < 0) u = static_cast<U<T>>(~u);
    uint32_t result;
    if (u == 0) {
      result = 0xffffffffu;
    } else {
      uint32_t pos = kBits<T> - 1 - static_cast<uint32_t>(std::countl_zero(u));
      result = in.mode ? (kBits<T> - 1 - pos) : pos;  // .shiftamt
    }
    d[l] = result;
  });
}

template <class T>
void bfeHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  constexpr uint32_t msb = kBits<T> - 1;
  forLanes(c, m, [&](uint32_t l) {
    U<T> v = static_cast<U<T>>(as<T>(a[l]));
    uint32_t pos = as<uint32_t>(b[l]) & 0xff, len = as<uint32_t>(x[l]) & 0xff;
    bool sbit = false;
    if constexpr (std::is_signed_v<T>) {
      if (len != 0) sbit = (v >> std::min(pos + len - 1, msb)) & 1;
    }
    U<T> r = 0;
    for (uint32_t i = 0; i <= msb; ++i) {
      bool bit = (i < len && pos + i <= msb) ? ((v >> (pos + i)) & 1) : sbit;
      if (bit) r = static_cast<U<T>>(r | (U<T>{1} << i));
    }
    d[l] = bitsOf(static_cast<T>(r));
  });
}

template <class T>
void bfiHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* p = c.reg(in.s[2]);
  const uint64_t* n = c.reg(in.s[3]);
  constexpr uint32_t msb = kBits<T> - 1;
  forLanes(c, m, [&](uint32_t l) {
    T av = as<T>(a[l]);
    T r = as<T>(b[l]);
    uint32_t pos = as<uint32_t>(p[l]) & 0xff, len = as<uint32_t>(n[l]) & 0xff;
    for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
      T bit = static_cast<T>(T{1} << (pos + i));
      r = static_cast<T>(((av >> i) & 1) ? (r | bit) : (r & ~bit));
    }
    d[l] = bitsOf(r);
  });
}

// Shifts: the amount is an unsigned 32-bit value; amounts >= width clamp.
template <class T> struct ShlOp {
  static T apply(const Instr&, T a, uint32_t n) {
    return n >= kBits<T> ? T{0} : static_cast<T>(static_cast<U<T>>(a) << n);
  }
};
template <class T> struct ShrOp {
  static T apply(const Instr&, T a, uint32_t n) {
    if constexpr (std::is_signed_v<T>) return static_cast<T>(a >> std::min(n, kBits<T> - 1));
    else return n >= kBits<T> ? T{0} : static_cast<T>(a >> n);
  }
};
template <class T, class Op>
void shiftHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  forLanes(c, m, [&](uint32_t l) { d[l] = bitsOf(Op::apply(in, as<T>(a[l]), as<uint32_t>(b[l]))); });
}

// shf.{l,r}.{clamp,wrap}.b32: mode bit 0 = right, bit 1 = clamp.
void shfHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  bool right = in.mode & 1, clamp = in.mode & 2;
  forLanes(c, m, [&](uint32_t l) {
    uint32_t lo = as<uint32_t>(a[l]), hi = as<uint32_t>(b[l]), n = as<uint32_t>(x[l]);
    n = clamp ? std::min(n, 32u) : (n & 31);
    uint64_t both = (uint64_t{hi} << 32) | lo;
    uint32_t r = right ? static_cast<uint32_t>(both >> n) : static_cast<uint32_t>((both << n) >> 32);
    d[l] = r;
  });
}

// bmsk.{clamp,wrap}.b32 (PTX ISA 7.6): a mask of b bits from bit a; mode 1 = clamp (a, b
// above 31 saturate: no bits from a >= 32, all bits from a on for b >= 32), else a and b
// wrap modulo 32. Bits above 31 are dropped.
void bmskHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const bool clamp = in.mode == 1;
  forLanes(c, m, [&](uint32_t l) {
    const uint32_t av = as<uint32_t>(a[l]), bv = as<uint32_t>(b[l]);
    const uint32_t a1 = av & 31, b1 = bv & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1;
    bool overflow = sum >= 32;
    if (clamp && av >= 32) overflow = true, mask0 = 0;
    if (clamp && bv >= 32) overflow = true;
    const uint32_t mask1 = overflow ? 0u : b1 == 0 ? ~0u : ~0u << sum;
    d[l] = mask0 & ~mask1;
  });
}

// szext.{clamp,wrap}.{u32,s32} (PTX ISA 7.6): the low N bits of a, zero- (u32) or sign-
// extended (s32) to 32 bits, N = b mod 32 (.wrap) or min(b, 32) (.clamp); N = 0 gives 0,
// N = 32 gives a. Instr::mode bit 0: clamp, bit 1: signed.
void szextHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const bool clamp = in.mode & 1, sgn = in.mode & 2;
  forLanes(c, m, [&](uint32_t l) {
    const uint32_t av = as<uint32_t>(a[l]), bv = as<uint32_t>(b[l]);
    const uint32_t n = clamp ? std::min(bv, 32u) : (bv & 31);
    uint32_t r;
    if (n == 32) r = av;
    else if (n == 0) r = 0;
    else {
      const uint32_t low = av & ((1u << n) - 1);
      r = (sgn && ((av >> (n - 1)) & 1)) ? (low | (~0u << n)) : low;
    }
    d[l] = r;
  });
}

// prmt: mode 0 = generic, 1..6 = f4e b4e rc8 ecl ecr rc16.
uint32_t permute(uint32_t a, uint32_t b, uint32_t sel, uint8_t mode) {
  uint64_t src = (uint64_t{b} << 32) | a;
  auto byte = [&](uint32_t i) { return static_cast<uint32_t>((src >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  if (mode == 0) {
    for (uint32_t k = 0; k < 4; ++k) {
      uint32_t nib = (sel >> (4 * k)) & 0xf;
      uint32_t v = byte(nib & 7);
      if (nib & 8) v = (v & 0x80) ? 0xff : 0;
      r |= v << (8 * k);
    }
    return r;
  }
  static const uint8_t kModes[6][4][4] = {
      // [mode][c&3][d.b0..d.b3]
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  const uint8_t* pick = kModes[mode - 1][sel & 3];
  for (uint32_t k = 0; k < 4; ++k) r |= byte(pick[k]) << (8 * k);
  return r;
}
void prmtHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  forLanes(c, m, [&](uint32_t l) {
    d[l] = permute(as<uint32_t>(a[l]), as<uint32_t>(b[l]), as<uint32_t>(x[l]), in.mode);
  });
}

void lop3Handler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  uint32_t lut = static_cast<uint32_t>(in.imm);
  forLanes(c, m, [&](uint32_t l) {
    uint32_t av = as<uint32_t>(a[l]), bv = as<uint32_t>(b[l]), cv = as<uint32_t>(x[l]), r = 0;
    for (uint32_t i = 0; i < 32; ++i) {
      uint32_t idx = (((av >> i) & 1) << 2) | (((bv >> i) & 1) << 1) | ((cv >> i) & 1);
      r |= ((lut >> idx) & 1) << i;
    }
    d[l] = r;
  });
}

// Extended precision: mode bit 0 = read CC.CF, bit 1 = write CC.CF,
// bit 2 = subtract (a + ~b + carry, CF = carry out, i.e. NOT borrow).
template <class T>
void carryAddHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  uint64_t* cf = c.reg(in.s[3]);
  bool readCf = in.mode & 1, writeCf = in.mode & 2, sub = in.mode & 4;
  forLanes(c, m, [&](uint32_t l) {
    U<T> av = static_cast<U<T>>(as<T>(a[l])), bv = static_cast<U<T>>(as<T>(b[l]));
    if (sub) bv = static_cast<U<T>>(~bv);
    u128 carryIn = readCf ? (cf[l] & 1) : (sub ? 1 : 0);
    u128 full = u128{av} + bv + carryIn;
    d[l] = bitsOf(static_cast<T>(static_cast<U<T>>(full)));
    if (writeCf) cf[l] = static_cast<uint64_t>(full >> kBits<T>) & 1;
  });
}
// mad{.lo,.hi}{.cc} / madc: carry out of the final addition.
template <class T>
void carryMadHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  uint64_t* cf = c.reg(in.s[3]);
  bool readCf = in.mode & 1, writeCf = in.mode & 2, hi = in.mode & 8;
  forLanes(c, m, [&](uint32_t l) {
    u128 p = wideProduct(as<T>(a[l]), as<T>(b[l]));
    U<T> part = static_cast<U<T>>(hi ? (p >> kBits<T>) : p);
    u128 full = u128{part} + static_cast<U<T>>(as<T>(x[l])) + (readCf ? (cf[l] & 1) : 0);
    d[l] = bitsOf(static_cast<T>(static_cast<U<T>>(full)));
    if (writeCf) cf[l] = static_cast<uint64_t>(full >> kBits<T>) & 1;
  });
}

// dp4a / dp2a: mode bit 0 = a signed, bit 1 = b signed, bit 2 = dp2a.hi.
void dpHandler(const Instr& in, ExecContext& c, uint32_t m, bool four) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  bool as_ = in.mode & 1, bs = in.mode & 2, hi = in.mode & 4;
  forLanes(c, m, [&](uint32_t l) {
    uint32_t av = as<uint32_t>(a[l]), bv = as<uint32_t>(b[l]);
    auto ext = [](uint32_t v, uint32_t bits, bool s) -> int64_t {
      uint32_t mask = (1u << bits) - 1;
      v &= mask;
      if (s && (v >> (bits - 1))) return static_cast<int64_t>(v) - (int64_t{1} << bits);
      return v;
    };
    int64_t acc = static_cast<int32_t>(as<uint32_t>(x[l]));
    if (four) {
      for (uint32_t i = 0; i < 4; ++i)
        acc += ext(av >> (8 * i), 8, as_) * ext(bv >> (8 * i), 8, bs);
    } else {
      uint32_t k = hi ? 2 : 0;
      for (uint32_t i = 0; i < 2; ++i)
        acc += ext(av >> (16 * i), 16, as_) * ext(bv >> (8 * (k + i)), 8, bs);
    }
    d[l] = static_cast<uint32_t>(acc);
  });
}
void dp4aHandler(const Instr& in, ExecContext& c, uint32_t m) { dpHandler(in, c, m, true); }
void dp2aHandler(const Instr& in, ExecContext& c, uint32_t m) { dpHandler(in, c, m, false); }

// ------------------------------------------------------------ decoding
ScalarType oneType(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail(fmt::format("'{}' needs exactly one type", ds.in.opcode));
  return types[0];
}

bool isIntegerType(ScalarType t) {
  switch (t) {
    case ScalarType::U16: case ScalarType::S16: case ScalarType::U32: case ScalarType::S32:
    case ScalarType::U64: case ScalarType::S64: case ScalarType::B16: case ScalarType::B32:
    case ScalarType::B64:
      return true;
    default:
      return false;
  }
}

void requireInteger(DecodeState& ds, ScalarType t) {
  if (!isIntegerType(t))
    ds.fail(fmt::format("type .{} is not supported by '{}'", scalarTypeName(t), ds.in.opcode));
}

template <template <class> class Op, template <class, class> class Shape>
void setHandler(DecodeState& ds, ScalarType t) {
  requireInteger(ds, t);
  ds.out.fn = pickByType<Bind<Op, Shape>::template As>(t);
  if (!ds.out.fn) ds.fail(fmt::format("type .{} is not supported by '{}'", scalarTypeName(t), ds.in.opcode));
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(t));
}


template <template <class> class Op>
void binary(DecodeState& ds, ScalarType t) {
  setHandler<Op, Binary>(ds, t);
  ds.destinationAndSources(t, 2);
  ds.requireRegisterType(t, 0, 3);
}
template <template <class> class Op>
void unary(DecodeState& ds, ScalarType t) {
  setHandler<Op, Unary>(ds, t);
  ds.destinationAndSources(t, 1);
  ds.requireRegisterType(t, 0, 2);
}
template <template <class> class Op>
void ternary(DecodeState& ds, ScalarType t) {
  setHandler<Op, Ternary>(ds, t);
  ds.destinationAndSources(t, 3);
  ds.requireRegisterType(t, 0, 4);
}

#define QGPU_TYPED_HANDLER(name, fn)                                         \
  template <class T>                                                         \
  struct name {                                                              \
    static void run(const Instr& in, ExecContext& c, uint32_t m) { fn<T>(in, c, m); } \
  };
QGPU_TYPED_HANDLER(MulWideH, mulWide)
QGPU_TYPED_HANDLER(MadWideH, madWide)
QGPU_TYPED_HANDLER(PopcH, popcHandler)
QGPU_TYPED_HANDLER(ClzH, clzHandler)
QGPU_TYPED_HANDLER(BfindH, bfindHandler)
QGPU_TYPED_HANDLER(BfeH, bfeHandler)
QGPU_TYPED_HANDLER(BfiH, bfiHandler)
QGPU_TYPED_HANDLER(CarryAddH, carryAddHandler)
QGPU_TYPED_HANDLER(CarryMadH, carryMadHandler)
template <class T> struct ShlH {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { shiftHandler<T, ShlOp<T>>(in, c, m); }
};
template <class T> struct ShrH {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { shiftHandler<T, ShrOp<T>>(in, c, m); }
};
#undef QGPU_TYPED_HANDLER

template <template <class> class H>
void setTyped(DecodeState& ds, ScalarType t) {
  requireInteger(ds, t);
  ds.out.fn = pickByType<H>(t);
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(t));
}

void decodeCarry(DecodeState& ds, bool readCf, bool sub) {
  bool writeCf = ds.mods.take("cc");
  ScalarType t = oneType(ds);
  if (t != ScalarType::U32 && t != ScalarType::S32 && t != ScalarType::U64 && t != ScalarType::S64)
    ds.fail("extended-precision arithmetic needs .u32, .s32, .u64 or .s64");
  setTyped<CarryAddH>(ds, t);
  ds.destinationAndSources(t, 2);
  ds.requireRegisterType(t, 0, 3);
  ds.out.s[3] = ds.carry();
  ds.out.mode = static_cast<uint8_t>((readCf ? 1 : 0) | (writeCf ? 2 : 0) | (sub ? 4 : 0));
}

}  // namespace

static ScalarType peekType(DecodeState& ds) {
  for (auto it = ds.in.modifiers.rbegin(); it != ds.in.modifiers.rend(); ++it)
    if (auto t = parseScalarType(*it)) return *t;
  for (const std::string& m : ds.in.modifiers)
    if (!parseScalarType(m)) {
      static const char* kKnown[] = {"cc", "sat", "lo", "hi", "wide", "rn", "rz", "rm", "rp", "ftz", "approx", "full", "shiftamt"};
      if (std::find(std::begin(kKnown), std::end(kKnown), m) == std::end(kKnown))
        ds.fail(fmt::format("'{}' has no valid type (unknown modifier .{})", ds.in.opcode, m));
    }
  ds.fail(fmt::format("'{}' needs a type", ds.in.opcode));
}

void decodeAdd(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  if (ds.in.modifiers.size() > 1 && std::find(ds.in.modifiers.begin(), ds.in.modifiers.end(), "cc") != ds.in.modifiers.end())
    return decodeCarry(ds, false, false);
  ds.out.sat = ds.mods.take("sat");
  t = oneType(ds);
  if (ds.out.sat && t != ScalarType::S32) ds.fail("add.sat needs .s32");
  binary<AddOp>(ds, t);
}
void decodeSub(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  if (std::find(ds.in.modifiers.begin(), ds.in.modifiers.end(), "cc") != ds.in.modifiers.end())
    return decodeCarry(ds, false, true);
  ds.out.sat = ds.mods.take("sat");
  t = oneType(ds);
  if (ds.out.sat && t != ScalarType::S32) ds.fail("sub.sat needs .s32");
  binary<SubOp>(ds, t);
}

void decodeMul(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  int mode = ds.mods.takeOneOf({"lo", "hi", "wide"});
  t = oneType(ds);
  if (mode < 0) ds.fail("integer mul needs .lo, .hi or .wide");
  if (mode == 2) {
    if (scalarTypeBytes(t) > 4) ds.fail("mul.wide needs a 16- or 32-bit type");
    setTyped<MulWideH>(ds, t);
    ds.destinationAndSources(t, 2);
    return;
  }
  if (mode == 0) binary<MulLoOp>(ds, t);
  else binary<MulHiOp>(ds, t);
}

void decodeMad(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  int mode = ds.mods.takeOneOf({"lo", "hi", "wide"});
  bool cc = ds.mods.take("cc");
  ds.out.sat = ds.mods.take("sat");
  t = oneType(ds);
  if (mode < 0) ds.fail("integer mad needs .lo, .hi or .wide");
  if (ds.out.sat && !(mode == 1 && t == ScalarType::S32)) ds.fail(".sat is only valid for mad.hi.s32");
  if (cc) {
    if (mode == 2) ds.fail("mad.wide has no .cc form");
    setTyped<CarryMadH>(ds, t);
    ds.destinationAndSources(t, 3);
    ds.out.s[3] = ds.carry();
    ds.out.mode = static_cast<uint8_t>(2 | (mode == 1 ? 8 : 0));
    return;
  }
  if (mode == 2) {
    if (scalarTypeBytes(t) > 4) ds.fail("mad.wide needs a 16- or 32-bit type");
    setTyped<MadWideH>(ds, t);
    ds.expectOperands(4);
    ds.out.d[0] = ds.destination(ds.in.operands[0]);
    ds.out.s[0] = ds.source(ds.in.operands[1], t);
    ds.out.s[1] = ds.source(ds.in.operands[2], t);
    ScalarType wide = t == ScalarType::U16 ? ScalarType::U32 : t == ScalarType::S16 ? ScalarType::S32
                    : t == ScalarType::U32 ? ScalarType::U64 : ScalarType::S64;
    ds.out.s[2] = ds.source(ds.in.operands[3], wide);
    return;
  }
  if (mode == 0) ternary<MadLoOp>(ds, t);
  else ternary<MadHiOp>(ds, t);
}

void decodeMadc(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"lo", "hi"});
  bool cc = ds.mods.take("cc");
  ScalarType t = oneType(ds);
  if (mode < 0) ds.fail("madc needs .lo or .hi");
  setTyped<CarryMadH>(ds, t);
  ds.destinationAndSources(t, 3);
  ds.out.s[3] = ds.carry();
  ds.out.mode = static_cast<uint8_t>(1 | (cc ? 2 : 0) | (mode == 1 ? 8 : 0));
}

void decodeMul24(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"lo", "hi"});
  ScalarType t = oneType(ds);
  if (mode < 0) ds.fail("mul24 needs .lo or .hi");
  if (t != ScalarType::U32 && t != ScalarType::S32) ds.fail("mul24 needs .u32 or .s32");
  ds.out.mode = static_cast<uint8_t>(mode);
  binary<Mul24Op>(ds, t);
}
void decodeMad24(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"lo", "hi"});
  ds.out.sat = ds.mods.take("sat");
  ScalarType t = oneType(ds);
  if (mode < 0) ds.fail("mad24 needs .lo or .hi");
  if (t != ScalarType::U32 && t != ScalarType::S32) ds.fail("mad24 needs .u32 or .s32");
  ds.out.mode = static_cast<uint8_t>(mode);
  ternary<Mad24Op>(ds, t);
}

void decodeDiv(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  binary<DivOp>(ds, oneType(ds));
}
void decodeRem(DecodeState& ds) { binary<RemOp>(ds, oneType(ds)); }
void decodeAbs(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  t = oneType(ds);
  if (!isSigned(t)) ds.fail("integer abs needs a signed type");
  unary<AbsOp>(ds, t);
}
void decodeNeg(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  t = oneType(ds);
  if (!isSigned(t)) ds.fail("integer neg needs a signed type");
  unary<NegOp>(ds, t);
}
void decodeMin(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  binary<MinOp>(ds, oneType(ds));
}
void decodeMax(DecodeState& ds) {
  ScalarType t = peekType(ds);
  if (isFloat(t)) return decodeFloatArithmetic(ds, t);
  binary<MaxOp>(ds, oneType(ds));
}
void decodeSad(DecodeState& ds) { ternary<SadOp>(ds, oneType(ds)); }

static void decodeLogic2(DecodeState& ds, int which) {
  if (peekType(ds) == ScalarType::Pred) return decodePredicateLogic(ds);
  ScalarType t = oneType(ds);
  if (which == 0) binary<AndOp>(ds, t);
  else if (which == 1) binary<OrOp>(ds, t);
  else binary<XorOp>(ds, t);
}
void decodeAnd(DecodeState& ds) { decodeLogic2(ds, 0); }
void decodeOr(DecodeState& ds) { decodeLogic2(ds, 1); }
void decodeXor(DecodeState& ds) { decodeLogic2(ds, 2); }
void decodeNot(DecodeState& ds) {
  if (peekType(ds) == ScalarType::Pred) return decodePredicateLogic(ds);
  unary<NotOp>(ds, oneType(ds));
}
void decodeCnot(DecodeState& ds) { unary<CnotOp>(ds, oneType(ds)); }

static void decodeBitCount(DecodeState& ds, bool popc) {
  ScalarType t = oneType(ds);
  if (t != ScalarType::B32 && t != ScalarType::B64) ds.fail("needs .b32 or .b64");
  if (popc) setTyped<PopcH>(ds, t);
  else setTyped<ClzH>(ds, t);
  ds.destinationAndSources(t, 1);
}
void decodePopc(DecodeState& ds) { decodeBitCount(ds, true); }
void decodeClz(DecodeState& ds) { decodeBitCount(ds, false); }
void decodeBfind(DecodeState& ds) {
  ds.out.mode = ds.mods.take("shiftamt") ? 1 : 0;
  ScalarType t = oneType(ds);
  if (isBits(t) || scalarTypeBytes(t) < 4) ds.fail("bfind needs .u32, .s32, .u64 or .s64");
  setTyped<BfindH>(ds, t);
  ds.destinationAndSources(t, 1);
}
void decodeBrev(DecodeState& ds) {
  ScalarType t = oneType(ds);
  if (t != ScalarType::B32 && t != ScalarType::B64) ds.fail("brev needs .b32 or .b64");
  unary<BrevOp>(ds, t);
}
void decodeBfe(DecodeState& ds) {
  ScalarType t = oneType(ds);
  if (isBits(t) || scalarTypeBytes(t) < 4) ds.fail("bfe needs .u32, .s32, .u64 or .s64");
  setTyped<BfeH>(ds, t);
  ds.expectOperands(4);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], t);
  ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::U32);
  ds.out.s[2] = ds.source(ds.in.operands[3], ScalarType::U32);
}
void decodeBfi(DecodeState& ds) {
  ScalarType t = oneType(ds);
  if (t != ScalarType::B32 && t != ScalarType::B64) ds.fail("bfi needs .b32 or .b64");
  setTyped<BfiH>(ds, t);
  ds.expectOperands(5);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], t);
  ds.out.s[1] = ds.source(ds.in.operands[2], t);
  ds.out.s[2] = ds.source(ds.in.operands[3], ScalarType::U32);
  ds.out.s[3] = ds.source(ds.in.operands[4], ScalarType::U32);
}
static void decodeShift(DecodeState& ds, bool left) {
  ScalarType t = oneType(ds);
  if (left && !isBits(t)) ds.fail("shl needs .b16, .b32 or .b64");
  if (left) setTyped<ShlH>(ds, t);
  else setTyped<ShrH>(ds, t);
  ds.expectOperands(3);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], t);
  ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::U32);
}
void decodeShl(DecodeState& ds) { decodeShift(ds, true); }
void decodeShr(DecodeState& ds) { decodeShift(ds, false); }
void decodeShf(DecodeState& ds) {
  int dir = ds.mods.takeOneOf({"l", "r"});
  int wrap = ds.mods.takeOneOf({"wrap", "clamp"});
  ScalarType t = oneType(ds);
  if (dir < 0 || wrap < 0 || t != ScalarType::B32) ds.fail("shf needs .l/.r, .wrap/.clamp and .b32");
  ds.out.fn = &shfHandler;
  ds.out.mode = static_cast<uint8_t>((dir == 1 ? 1 : 0) | (wrap == 1 ? 2 : 0));
  ds.out.typeBytes = 4;
  ds.destinationAndSources(t, 3);
}
void decodePrmt(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
  ScalarType t = oneType(ds);
  if (t != ScalarType::B32) ds.fail("prmt needs .b32");
  ds.out.fn = &prmtHandler;
  ds.out.mode = static_cast<uint8_t>(mode + 1);
  ds.out.typeBytes = 4;
  ds.destinationAndSources(t, 3);
}
void decodeLop3(DecodeState& ds) {
  ScalarType t = oneType(ds);
  if (t != ScalarType::B32) ds.fail("lop3 needs .b32");
  ds.expectOperands(5);
  if (ds.in.operands[4].kind != ptx::Operand::Kind::Immediate) ds.fail("lop3 needs an immediate LUT");
  ds.out.fn = &lop3Handler;
  ds.out.imm = ds.in.operands[4].value & 0xff;
  ds.out.typeBytes = 4;
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  for (int i = 0; i < 3; ++i) ds.out.s[i] = ds.source(ds.in.operands[i + 1], t);
}
void decodeAddc(DecodeState& ds) { decodeCarry(ds, true, false); }
void decodeSubc(DecodeState& ds) { decodeCarry(ds, true, true); }
static void decodeDp(DecodeState& ds, bool four) {
  bool hi = false;
  if (!four) {
    int part = ds.mods.takeOneOf({"lo", "hi"});
    if (part < 0) ds.fail("dp2a needs .lo or .hi");
    hi = part == 1;
  }
  auto types = ds.mods.takeTypes();
  if (types.size() != 2) ds.fail("needs two types (.atype.btype)");
  for (ScalarType t : types)
    if (t != ScalarType::U32 && t != ScalarType::S32) ds.fail("types must be .u32 or .s32");
  ds.out.fn = four ? &dp4aHandler : &dp2aHandler;
  ds.out.mode = static_cast<uint8_t>((isSigned(types[0]) ? 1 : 0) | (isSigned(types[1]) ? 2 : 0) | (hi ? 4 : 0));
  ds.destinationAndSources(ScalarType::U32, 3);
}
void decodeDp4a(DecodeState& ds) { decodeDp(ds, true); }
void decodeDp2a(DecodeState& ds) { decodeDp(ds, false); }
void decodeBmsk(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"wrap", "clamp"});
  ScalarType t = oneType(ds);
  if (mode < 0 || t != ScalarType::B32) ds.fail("bmsk needs .clamp or .wrap and .b32");
  ds.out.fn = &bmskHandler;
  ds.out.mode = static_cast<uint8_t>(mode);
  ds.out.typeBytes = 4;
  ds.destinationAndSources(t, 2);
}

void decodeSzext(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"wrap", "clamp"});
  ScalarType t = oneType(ds);
  if (mode < 0 || (t != ScalarType::U32 && t != ScalarType::S32)) ds.fail("szext needs .clamp or .wrap and .u32 or .s32");
  ds.out.fn = &szextHandler;
  ds.out.mode = static_cast<uint8_t>((mode == 1 ? 1 : 0) | (t == ScalarType::S32 ? 2 : 0));
  ds.out.typeBytes = 4;
  ds.destinationAndSources(t, 2);
}

}  // namespace qgpu
