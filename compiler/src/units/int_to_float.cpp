// I2F of a 4-byte integer to f32 on the lane-serial operand (float_lane.h,
// buildLaneSerialI2F): the magnitude, its leading one, the 23 bits after it with the guard
// and sticky bits, the rounding mode's decision and one increment — seven levels beside the
// FFMA datapath, checked against machine::computeLane (units_convert.cpp's intToFloat). The
// result is 32 forms whose values are bits (the caller sums them into its channels).
//
//   1  the sign (signed and bit 31) and, per bit, [a lower bit is set]
//   2  the magnitude: bit j of -a is a_j XOR [a lower bit is set]; one exclusiveOr a bit
//   3  the leading one (one-hot: m_p and no higher bit); the magnitude's count of ones
//   4  mantissa and guard as gates on the leading one; the exponent 127 + p is a linear
//      form of the one-hot
//   5  sticky: more ones in the magnitude than the leading one, mantissa and guard hold
//   6  the rounding mode's increment, and per bit [every bit below is 1] of the value
//   7  the increment's carries: bit j flips where it and every bit below are 1
#include <fmt/format.h>

#include "qgpu/compiler/float_lane.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

std::vector<Expr> buildLaneSerialI2F(Circuit& c, const Bus& word, const Bus& a, const Expr& i2f) {
  const std::string n = "I2F";
  const Expr isSigned = w(word[machine::kWordTyAt + 2]);
  // Level 1.
  const Expr negative = w(c.step(n + " negative", isSigned + w(a[31]) + i2f - 3));
  std::vector<Expr> lowerSet(32);  // [a_i for some i < j]
  Expr below;
  for (uint32_t j = 1; j < 32; ++j) {
    below += w(a[j - 1]);
    lowerSet[j] = w(c.step(fmt::format("{} a below bit {}", n, j), below - 1));
  }
  // Level 2: m = |a| (two's complement: flip every bit above the lowest set one).
  std::vector<Expr> m;
  for (uint32_t j = 0; j < 32; ++j) {
    if (j == 0) {
      m.push_back(w(a[0]));
      continue;
    }
    const Expr flip = w(c.step(fmt::format("{} flip {}", n, j), negative + lowerSet[j] - 2));
    const Expr both = w(c.step(fmt::format("{} flip {} and a", n, j), negative + lowerSet[j] + w(a[j]) - 3));
    m.push_back(w(c.exclusiveOr(fmt::format("{} magnitude[{}]", n, j), w(a[j]) + flip - 2 * both)));
  }
  // Level 3: the leading one p (0 unless I2F runs); the magnitude's count of ones, for the
  // sticky bit (one channel where a prefix OR per bit would take 31).
  std::vector<Expr> lead(32);
  Expr above;
  for (int p = 31; p >= 0; --p) {
    lead[p] = w(c.step(fmt::format("{} leading one at {}", n, p), m[p] - above + i2f - 2));
    above += m[p];
  }
  const Expr ones = w(c.channel(n + " magnitude's ones", above));
  // Level 4: the value before rounding, V = (127 + p) * 2^23 + the 23 bits after the leading
  // one; the guard bit (the next one) and the sticky bit (any below it).
  std::vector<Expr> v(31);
  for (uint32_t j = 0; j < 23; ++j) {
    Expr terms;
    for (uint32_t p = 0; p < 32; ++p)
      if (p + j >= 23) terms += w(c.step(fmt::format("{} mantissa[{}] at {}", n, j, p), lead[p] + m[p + j - 23] - 2));
    v[j] = w(c.exclusiveOr(fmt::format("{} mantissa[{}]", n, j), terms));
  }
  for (uint32_t k = 0; k < 8; ++k) {
    Expr e;
    for (uint32_t p = 0; p < 32; ++p)
      if (((127 + p) >> k) & 1) e += lead[p];
    v[23 + k] = e;
  }
  Expr guardTerms;
  for (uint32_t p = 24; p < 32; ++p) guardTerms += w(c.step(fmt::format("{} guard at {}", n, p), lead[p] + m[p - 24] - 2));
  const Expr guard = w(c.exclusiveOr(n + " guard", guardTerms));
  // Level 5: the sticky bit — a one below the guard: more ones than the leading one, the
  // mantissa's and the guard's (0 unless I2F runs: no leading one, no mantissa).
  Expr kept = guard;
  for (uint32_t j = 0; j < 23; ++j) kept += v[j];
  Expr anyLead;
  for (uint32_t p = 0; p < 32; ++p) anyLead += lead[p];
  const Expr sticky = w(c.step(n + " sticky", ones - kept - anyLead - 1 + 32 * (anyLead - 1)));
  // Level 6: the increment by the mode (fl bits 0-1: rn rz rm rp).
  // guard, sticky: 0 unless I2F runs.
  const Expr inc = roundingIncrement(c, n, guard, sticky, v[0], negative,
                                     modeOffsets({word[machine::kWordFlAt], word[machine::kWordFlAt + 1]}));
  // Level 7: V + inc; the sign.
  std::vector<Expr> out = addIncrement(c, n, v, inc, 31);
  out.push_back(negative);
  return out;
}

}  // namespace qgpu::compiler
