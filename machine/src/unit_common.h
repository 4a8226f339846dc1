// Shared internals of the machine's functional units (units_*.cpp): integer views of operand
// bits, f32/f64 unpacking and the one rounding routine, and each family's entry point.
// The public interface is qgpu/machine/units.h.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "qgpu/machine/isa.h"
#include "qgpu/machine/units.h"

namespace qgpu::machine::units {

__extension__ typedef __int128 s128;
__extension__ typedef unsigned __int128 u128;

constexpr uint32_t kNaN32 = 0x7fffffffu;
constexpr uint64_t kNaN64 = 0x7fffffffffffffffull;
constexpr uint64_t kInf64 = 0x7ff0000000000000ull;
constexpr uint64_t kQuietBit64 = 1ull << 51;

inline int64_t sext(uint64_t v, uint32_t bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  uint32_t bits = 8 * bytes;
  v &= widthMask(bytes);
  if ((v >> (bits - 1)) & 1) v |= ~0ull << bits;
  return static_cast<int64_t>(v);
}

/// The low (unsigned) or high (signed if asked) 32-bit half of a 64-bit register.
inline s128 half32(uint64_t v, bool high, bool isSigned) {
  if (!high) return static_cast<s128>(v & 0xffffffffu);
  return isSigned ? s128{static_cast<int32_t>(static_cast<uint32_t>(v >> 32))} : static_cast<s128>(v >> 32);
}

// Operand value in the instruction's type, widened to 128 bits.
inline s128 val(const MInstr& in, uint64_t v, uint32_t bytes) {
  if (in.isSigned()) return s128{sext(v, bytes)};
  return static_cast<s128>(v & widthMask(bytes));
}

inline float f32(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
inline uint64_t bits32(float f) { return std::bit_cast<uint32_t>(f); }
inline bool isSub(float x) { return std::fpclassify(x) == FP_SUBNORMAL; }
inline float flush(float x) { return isSub(x) ? std::copysign(0.0f, x) : x; }
inline float in32(const MInstr& in, uint64_t v) { return (in.fl & kFlFtz) ? flush(f32(v)) : f32(v); }
inline uint32_t roundingOf(const MInstr& in) { return (in.fl >> 2) & 3; }

// Directed rounding of x + e to f32 (mode 0 rn, 1 rz, 2 rm, 3 rp); see units.cpp.
float roundToF32(double x, double e, uint32_t mode);
/// An f32 result with the instruction's NaN, ftz and sat rules applied.
uint64_t out32(const MInstr& in, float r);

// An IEEE binary format for rounding: fraction bits and the normal exponent range.
struct BinaryFormat {
  int fracBits, emin, emax;
};
constexpr BinaryFormat kF32{23, -126, 127};
constexpr BinaryFormat kF64{52, -1022, 1023};

// Bits of (-1)^sign * (s + sticky) * 2^x in format f, s > 0 with at least fracBits + 2 bits,
// rounded in mode (0 rn, 1 rz, 2 rm, 3 rp), subnormal and overflow results included.
uint64_t roundSignificand(bool sign, uint64_t s, bool sticky, int x, uint32_t mode, BinaryFormat f = kF32);

struct Unpacked64 {
  bool sign = false, nan = false, inf = false, zero = false;
  uint64_t m = 0;  // finite non-zero: significand normalised to bit 63, value = m * 2^(e - 63)
  int e = 0;
};

Unpacked64 unpack64(uint64_t bits);

/// add.f64 correctly rounded in mode (units_f64.cpp); FADD/FSUB with w = 8.
uint64_t daddRounded(uint64_t a, uint64_t b, uint32_t mode);
/// b with its sign flipped unless it is a NaN (FSUB.f64 as FADD of -b).
uint64_t negateUnlessNaN(uint64_t b);

// Each family's lane-local ops (ops.def Family): integer, f32, f64, conversions, memory.
uint64_t integerUnit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);
uint64_t float32Unit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);
uint64_t float64Unit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);
uint64_t convertUnit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);
uint64_t memoryUnit(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);

/// Throws qgpu::Error(Input): `in`'s op is not a lane-local operation of this unit.
[[noreturn]] void notLaneLocal(const MInstr& in);

}  // namespace qgpu::machine::units
