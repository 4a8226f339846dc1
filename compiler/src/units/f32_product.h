// Shared by the f32 multiplier and FFMA: an f32 operand's fields and class flags, and the
// exact 48-bit product of two significands (hidden bits included) in six MLP levels.
#pragma once

#include <string>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// One f32 operand: its bits, field sums and the level-1 class flags (steps).
struct F32Operand {
  Bus bits;      // 32 wires, least significant first
  Expr exp;      // the exponent field E (0..255)
  Expr fracOnes; // the number of set fraction bits (0..23): zero / NaN tests
  Expr sign;
  WireId expZero = 0;  // [E = 0]: no hidden bit, effective exponent 1
  WireId nan = 0, inf = 0;
  WireId zero = 0;     // an exact zero, or a subnormal under ftz
  /// max(E, 1): the exponent the significand is scaled by (biased).
  Expr effExp() const { return exp + w(expZero); }
};

/// The level-1 flags of one operand (`ftz` the selector form).
F32Operand unpackF32(Circuit& c, const std::string& name, const Bus& bits, const Expr& ftz);

/// (Ea' + Eb') mod 256 of two operands' effective exponents (an 8-bit adder, levels 2-3).
Bus effectiveExponentSum(Circuit& c, const std::string& name, const F32Operand& a, const F32Operand& b);

/// The 48 bits of ma * mb, m = fraction + hidden bit * 2^23: partial products as level-1
/// gates and steps (the hidden bits are [E >= 1], folded into steps so that every digit
/// is ready at level 1), then digitsToBits: bits at level 6.
Bus significandProduct(Circuit& c, const std::string& name, const F32Operand& a, const F32Operand& b,
                       bool chainLowBits = false);

}  // namespace qgpu::compiler
