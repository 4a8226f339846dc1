// F2I of an f32 to a 4-byte integer on the lane-serial operand (float_lane.h,
// buildLaneSerialF2I): the integer part as a shift picked by the exponent, the guard and
// sticky bits below it, the rounding mode's decision, one increment, then the sign and the
// saturation — five levels beside the FFMA datapath, checked against machine::computeLane
// (units_convert.cpp's floatToInt). The result is 32 forms whose values are bits.
//
//   1  the exponent one-hot over the integer's leading one t = E - 127 (0 … 31), [E >= 159]
//      (too large: inf too), NaN, [E = 126], [E <= 125], [E = 0], and per mantissa bit
//      [a lower mantissa bit is set]
//   2  the integer part r (bit i: mantissa bit i + 23 - t, the implicit one at i = t), the
//      guard bit (the first below the point) and the sticky bit (any below the guard; a
//      value below 1/2 that is not 0 — or a subnormal flushed by .ftz — has only sticky)
//   3  the rounding mode's increment (rn: guard and (sticky or r's bit 0); rm, rp: guard or
//      sticky on their side; rz: none), and per bit [every bit of r below is 1]
//   4  v = r + the increment (bit j flips where it and every bit below are 1; a fraction
//      means r < 2^23, so only bits 0-23 can flip)
//   5  the result: v where it fits, -v (two's complement) for a negative s32, the saturated
//      values (s32: 0x7fffffff, 0x80000000; u32: 0xffffffff above, 0 for a negative), 0 for
//      NaN
#include <fmt/format.h>

#include "qgpu/compiler/float_lane.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

std::vector<Expr> buildLaneSerialF2I(Circuit& c, const Bus& word, const Bus& a, const Expr& f2i) {
  const std::string n = "F2I";
  const uint32_t fl = machine::kWordFlAt;
  const Expr isSigned = w(word[machine::kWordTyAt + 2]), ftz = w(word[fl + 2]), negative = w(a[31]);
  Expr E;
  for (uint32_t k = 0; k < 8; ++k) E += (int64_t{1} << k) * w(a[23 + k]);
  const Bus exponent(a.begin() + 23, a.begin() + 31);
  constexpr int64_t M = 1024;  // beyond any sum below: a missing condition closes a step
  const Expr off = M * (f2i - 1);  // every step closed unless F2I runs
  // Level 1.
  std::vector<Expr> at(32);  // [E = 127 + t]: the integer's leading one at bit t
  for (uint32_t t = 0; t < 32; ++t)
    at[t] = w(c.step(fmt::format("{} leading one at {}", n, t), bitsMatching(exponent, 127 + t) - 8 + off));
  const Expr tooLarge = w(c.step(n + " |a| >= 2^32 or inf", E - 159 + off));
  Expr mantissa;
  for (uint32_t j = 0; j < 23; ++j) mantissa += w(a[j]);
  const Expr nan = w(c.step(n + " NaN", 24 * (bitsMatching(exponent, 255) - 8) + mantissa - 1 + off));
  const Expr half = w(c.step(n + " 1/2 <= |a| < 1", bitsMatching(exponent, 126) - 8 + off));
  const Expr small = w(c.step(n + " |a| < 1/2", 125 - E + off));
  const Expr zeroExponent = w(c.step(n + " exponent 0", -E + off));
  std::vector<Expr> lowerSet(24);  // [a mantissa bit below j is set]
  Expr below;
  for (uint32_t j = 1; j < 24; ++j) {
    below += w(a[j - 1]);
    lowerSet[j] = w(c.step(fmt::format("{} mantissa below bit {}", n, j), below - 1 + off));
  }
  // Level 2: r, guard, sticky.
  std::vector<Expr> r(32);
  for (uint32_t i = 0; i < 32; ++i) {
    Expr terms;
    for (uint32_t t = i; t < 32 && t <= i + 23; ++t) {
      const uint32_t j = i + 23 - t;  // the mantissa bit that lands at i
      terms += j == 23 ? at[t] : w(c.step(fmt::format("{} r[{}] at {}", n, i, t), at[t] + w(a[j]) - 2));
    }
    r[i] = w(c.exclusiveOr(fmt::format("{} r[{}]", n, i), terms));
  }
  Expr guardTerms = half;  // 1/2 <= |a| < 1: the implicit one is the guard
  for (uint32_t t = 0; t <= 22; ++t) guardTerms += w(c.step(fmt::format("{} guard at {}", n, t), at[t] + w(a[22 - t]) - 2));
  const Expr guard = w(c.exclusiveOr(n + " guard", guardTerms));
  Expr stickyTerms = w(c.step(n + " sticky at 1/2", half + lowerSet[23] - 2));
  for (uint32_t t = 0; t <= 21; ++t)
    stickyTerms += w(c.step(fmt::format("{} sticky at {}", n, t), at[t] + lowerSet[22 - t] - 2));
  // Below 1/2 and not 0: a normal number, or a subnormal that .ftz does not flush.
  stickyTerms += w(c.step(n + " sticky (normal below 1/2)", small - zeroExponent - 1));
  stickyTerms += w(c.step(n + " sticky (subnormal)", zeroExponent + lowerSet[23] - ftz - 2));
  const Expr sticky = w(c.exclusiveOr(n + " sticky", stickyTerms));
  // Level 3: the increment by the mode (fl bits 0-1: rn rz rm rp), and r's runs of ones.
  const Expr inc = roundingIncrement(c, n, guard, sticky, r[0], negative, modeOffsets({word[fl], word[fl + 1]}));
  // Level 4: v = r + inc. An increment comes only with a fraction (t <= 22: r < 2^23), so
  // its carries stop at bit 23; above, v is r.
  constexpr uint32_t kCarried = 24;
  const std::vector<Expr> sum = addIncrement(c, n, r, inc, kCarried);
  std::vector<Expr> v;
  for (uint32_t j = 0; j < 32; ++j)
    // A channel of its own: r and the flips would be 96 channels into the last level.
    v.push_back(j < kCarried ? w(c.exclusiveOr(fmt::format("{} v[{}]", n, j), sum[j])) : r[j]);
  // Level 5. s32 saturates where v >= 2^31 (bit 31; -2^31 itself is the saturated value),
  // u32 where |a| >= 2^32; a negative u32 is 0 whatever v is, NaN is 0.
  const Expr overS32 = tooLarge + v[31];
  constexpr int64_t G = 128;  // closes a negation bit's two thresholds (v's lower bits: <= 31, 62 by intervals)
  const Expr unsignedFits = G * (-negative - tooLarge - isSigned);
  const Expr signedFits = G * (-negative - overS32 - (1 - isSigned));
  const Expr negate = G * (negative + isSigned - 2 - overS32 - nan);
  // The last level's steps that could come earlier (bits 24-31 read r, the saturations) wait
  // for it: else each would wait for the result's channel in a channel of its own.
  WireId level5 = 0;
  auto last = [&](WireId x) {
    c.notBefore(x, level5);
    return w(x);
  };
  std::vector<Expr> out;
  Expr lower, satUp, satDown, satU32;
  for (uint32_t i = 0; i < 32; ++i) {
    const std::string b = fmt::format("{} d[{}]", n, i);
    Expr bit = negationBit(c, b + " -v", v[i], lower, i > 0, negate, G);
    if (i == 0) level5 = bit.terms.at(0).wire;
    bit += last(c.step(b + " u32", v[i] - 1 + unsignedFits)) + last(c.step(b + " s32", v[i] - 1 + signedFits));
    if (i == 0) {
      satUp = last(c.step(n + " s32 saturates up", G * (isSigned - negative - nan - 1) + overS32 - 1));
      satDown = last(c.step(n + " s32 saturates down", G * (isSigned + negative - nan - 2) + overS32 - 1));
      satU32 = last(c.step(n + " u32 saturates", G * (-isSigned - negative - nan) + tooLarge - 1));
    }
    bit += i < 31 ? satUp + satU32 : satDown + satU32;
    // A channel of its own at this level: the caller's sum waits for I2F's later levels.
    out.push_back(w(c.exclusiveOr(b, bit)));
    lower += v[i];
  }
  return out;
}

}  // namespace qgpu::compiler
