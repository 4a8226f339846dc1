// Functional-unit dispatch (ops.def: Family and Write decide who computes an op and what it
// writes) and the rounding and unpacking every unit family shares (docs/machine.md §1.4).
// The families: units_integer.cpp, units_f32.cpp, units_f64.cpp, units_convert.cpp,
// units_memory.cpp.
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/machine/units.h"
#include "unit_common.h"

namespace qgpu::machine {

uint64_t widthMask(uint32_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

namespace units {

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

uint64_t out32(const MInstr& in, float r) {
  if (std::isnan(r)) return (in.fl & kFlSat) ? 0 : kNaN32;  // .sat: NaN -> +0
  if (in.fl & kFlFtz) r = flush(r);
  if (in.fl & kFlSat) r = r <= 0.0f ? 0.0f : r >= 1.0f ? 1.0f : r;
  return bits32(r);
}

// Bits of (-1)^sign * (s + sticky) * 2^x in format f, s > 0 with at least fracBits + 2 bits,
// rounded in mode (0 rn, 1 rz, 2 rm, 3 rp), subnormal and overflow results included.
uint64_t roundSignificand(bool sign, uint64_t s, bool sticky, int x, uint32_t mode, BinaryFormat f) {
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

void notLaneLocal(const MInstr& in) {
  throw Error(ErrorKind::Input, fmt::format("{} is not a lane-local operation", opName(in.op)));
}

}  // namespace units

uint32_t writeBytes(const MInstr& in) {
  switch (opInfo(in.op).write) {
    case MWrite::W: return in.bytes();
    case MWrite::TwoW: return 2 * in.bytes();
    case MWrite::One: return 1;
    case MWrite::Two: return 2;
    case MWrite::Four: return 4;
    case MWrite::Eight: return 8;
    case MWrite::RegWidth: return 1u << (in.c & 3);
    case MWrite::I2FDest: return (in.fl & kFlI2FDest64) ? 8 : 4;
    case MWrite::None: return 0;
  }
  return in.bytes();
}

bool isUnitOp(MOp op) {
  return op < MOp::Count && (opInfo(op).exec == MExec::Unit || opInfo(op).exec == MExec::LaneSerial);
}

uint64_t computeLane(const MInstr& in, uint64_t a, uint64_t b, uint64_t c) {
  if (!isUnitOp(in.op)) units::notLaneLocal(in);
  switch (opInfo(in.op).family) {
    case MFamily::Integer: return units::integerUnit(in, a, b, c);
    case MFamily::Float32: return units::float32Unit(in, a, b, c);
    case MFamily::Float64: return units::float64Unit(in, a, b, c);
    case MFamily::Convert: return units::convertUnit(in, a, b, c);
    case MFamily::Memory: return units::memoryUnit(in, a, b, c);
    case MFamily::Warp: break;
  }
  units::notLaneLocal(in);
}

uint64_t evaluateUnit(MOp op, uint8_t ty, uint8_t fl, uint64_t a, uint64_t b, uint64_t c, uint32_t destBytes) {
  MInstr in;
  in.op = op;
  in.ty = static_cast<uint8_t>(ty & 7);
  in.fl = static_cast<uint8_t>(fl & 15);
  if (isUnitOp(op) && opInfo(op).write == MWrite::RegWidth)
    in.c = static_cast<uint16_t>(typeCode(destBytes ? destBytes : in.bytes(), false));
  return computeLane(in, a, b, c);
}

}  // namespace qgpu::machine
