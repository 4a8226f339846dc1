// f16 <-> f32 on the lane-serial operand (float_lane.h): H2F (buildLaneSerialH2F) and F2H
// (buildLaneSerialF2H) beside the FFMA datapath, checked against machine::computeLane
// (units_convert.cpp's halfToFloat and floatToHalfBits). Each returns 32 forms whose values
// are the result's bits, 0 unless its op runs.
//
// H2F, two levels (exact: every f16 is a normal f32 or 0):
//   1  [e = 31], [e = 0], NaN, and for a subnormal the leading one of the mantissa (one-hot)
//   2  the f32's bits: a normal's exponent e + 112 (bits 0-3 of e, then not e4 three times,
//      then e4), its mantissa m << 13; a subnormal's exponent 103 + p (a linear form of the
//      one-hot) and its mantissa shifted up past the leading one; inf; NaN as 0x7fffffff
// F2H, four levels, the f16 field R (exponent and mantissa, 15 bits) as F2I's integer part:
//   1  [E >= 113], [E >= 143], [E = 255], NaN, the one-hot over E = 102 … 112 (an f16
//      subnormal: R = M >> (126 - E)), [E <= 101], [E = 0], the mantissa's prefix ORs
//   2  R (a normal: E - 112 is E's low four bits and its top bit; R's mantissa the f32's top
//      ten), guard, sticky; overflow (E >= 143, not inf or NaN) by the mode: 0x7c00 or 0x7bff;
//      inf, NaN (0x7fff) and the sign
//   3  the mode's increment (the rounding one-hot the FFMA datapath reads), R's runs of ones
//   4  v = R + inc: a carry out of R's top is exactly 0x7c00, inf, where the mode rounds up
#include <fmt/format.h>

#include <array>
#include <optional>

#include "qgpu/compiler/float_lane.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {
namespace {
constexpr int64_t kClosed = 1024;  // beyond any sum below: a missing condition closes a step
}  // namespace

std::vector<Expr> buildLaneSerialH2F(Circuit& c, const Bus& a, const Expr& h2f, std::optional<WireId> after) {
  const std::string n = "H2F";
  const Expr off = kClosed * (h2f - 1);
  auto first = [&](const std::string& name, const Expr& cond) { return stepAfter(c, name, cond, after); };
  Expr e, mantissa;
  for (uint32_t k = 0; k < 5; ++k) e += w(a[10 + k]);  // a count of the exponent's ones
  for (uint32_t j = 0; j < 10; ++j) mantissa += w(a[j]);
  // Level 1.
  const Expr top = first(n + " e = 31", e - 5 + off), zero = first(n + " e = 0", -e + off);
  const Expr nan = first(n + " NaN", 16 * (e - 5) + mantissa - 1 + off);
  std::vector<Expr> lead(10);  // a subnormal's leading one at p
  Expr above;
  for (int p = 9; p >= 0; --p) {
    lead[p] = first(fmt::format("{} leading one at {}", n, p), w(a[p]) - above - 1 - 16 * e + off);
    above += w(a[p]);
  }
  // Level 2.
  std::vector<Expr> out(32);
  for (uint32_t j = 0; j < 23; ++j) {
    Expr bit = nan;  // 0x7fffffff
    if (j >= 13)  // a normal's or inf's mantissa: m << 13
      bit += w(c.step(fmt::format("{} mantissa[{}]", n, j), w(a[j - 13]) - zero - nan - 1 + off));
    for (uint32_t p = 0; p < 10; ++p)  // a subnormal's: the bits below the leading one, up to bit 22
      if (j + p >= 23) bit += w(c.step(fmt::format("{} mantissa[{}] at {}", n, j, p), lead[p] + w(a[j + p - 23]) - 2));
    out[j] = bit;
  }
  const Expr normal = 1 - top - zero;  // with h2f: 0 unless H2F runs
  for (uint32_t k = 0; k < 8; ++k) {
    Expr bit = top;  // inf and NaN: 255
    const Expr field = k < 4 ? w(a[10 + k]) : k < 7 ? 1 - w(a[14]) : w(a[14]);  // e + 112
    bit += w(c.step(fmt::format("{} exponent[{}]", n, k), field + normal - 2 + off));
    for (uint32_t p = 0; p < 10; ++p)
      if (((103 + p) >> k) & 1) bit += lead[p];
    out[23 + k] = bit;
  }
  out[31] = w(c.step(n + " sign", w(a[15]) - nan - 1 + off));
  return out;
}

std::vector<Expr> buildLaneSerialF2H(Circuit& c, const std::array<Expr, 4>& rounding, const Expr& ftz, const Bus& a,
                                     const Expr& f2h, std::optional<WireId> after) {
  const std::string n = "F2H";
  auto first = [&](const std::string& name, const Expr& cond) { return stepAfter(c, name, cond, after); };
  const Expr negative = w(a[31]);
  const Bus exponent(a.begin() + 23, a.begin() + 31);
  Expr E, mantissa;
  for (uint32_t k = 0; k < 8; ++k) E += (int64_t{1} << k) * w(a[23 + k]);
  for (uint32_t j = 0; j < 23; ++j) mantissa += w(a[j]);
  const Expr off = kClosed * (f2h - 1);
  // Level 1.
  const Expr ge113 = first(n + " E >= 113", E - 113 + off), ge143 = first(n + " E >= 143", E - 143 + off);
  const Expr all = first(n + " E = 255", bitsMatching(exponent, 255) - 8 + off);
  const Expr nan = first(n + " NaN", 24 * (bitsMatching(exponent, 255) - 8) + mantissa - 1 + off);
  std::vector<Expr> sub(25);  // [E = 126 - s]: an f16 subnormal, R = M >> s (s = 14 … 24)
  for (uint32_t s = 14; s <= 24; ++s)
    sub[s] = first(fmt::format("{} E = {}", n, 126 - s), bitsMatching(exponent, 126 - s) - 8 + off);
  const Expr tiny = first(n + " E <= 101", 101 - E + off), zero = first(n + " E = 0", -E + off);
  // [a mantissa bit below j is set], for the j the sticky bits read (12: a normal's, 13-23: a
  // subnormal's). F2I computes the same prefix of the same operand, but six levels earlier (in
  // the step's plan layer 23, F2H's read at 29): shared, these 12 wires would be carried
  // through layer 26, which has no channel left. Twelve neurons are cheaper than that.
  std::vector<Expr> lowerSet(24);
  Expr below;
  for (uint32_t j = 1; j < 24; ++j) {
    below += w(a[j - 1]);
    if (j >= 12) lowerSet[j] = first(fmt::format("{} mantissa below bit {}", n, j), below - 1 + off);
  }
  auto M = [&](uint32_t j) { return j == 23 ? Expr(1) : w(a[j]); };  // the significand, implicit one at 23
  // Level 2: R, guard, sticky.
  const Expr inRange = ge113 - ge143;  // a normal f16
  std::vector<Expr> R(15);
  for (uint32_t i = 0; i < 15; ++i) {
    const Expr field = i < 10 ? w(a[13 + i]) : i < 14 ? w(a[23 + i - 10]) : w(a[30]);  // E - 112: low four, top
    Expr terms = w(c.step(fmt::format("{} R[{}] (normal)", n, i), inRange + field - 2));
    for (uint32_t s = 14; s <= 24 && i < 10; ++s)
      if (i + s <= 23) terms += w(c.step(fmt::format("{} R[{}] at {}", n, i, s), sub[s] + M(i + s) - 2));
    R[i] = w(c.exclusiveOr(fmt::format("{} R[{}]", n, i), terms));
  }
  Expr guardTerms = w(c.step(n + " guard (normal)", inRange + w(a[12]) - 2));
  Expr stickyTerms = w(c.step(n + " sticky (normal)", inRange + lowerSet[12] - 2));
  for (uint32_t s = 14; s <= 24; ++s) {
    guardTerms += w(c.step(fmt::format("{} guard at {}", n, s), sub[s] + M(s - 1) - 2));
    stickyTerms += w(c.step(fmt::format("{} sticky at {}", n, s), sub[s] + lowerSet[s - 1] - 2));
  }
  // Below the f16's quantum's half and not 0: a normal, or a subnormal .ftz does not flush.
  stickyTerms += w(c.step(n + " sticky (normal, tiny)", tiny - zero - 1));
  stickyTerms += w(c.step(n + " sticky (subnormal)", zero + lowerSet[23] - ftz - 2));
  const Expr guard = w(c.exclusiveOr(n + " guard", guardTerms)), sticky = w(c.exclusiveOr(n + " sticky", stickyTerms));
  // Overflow past the largest finite f16 (E >= 143, not inf or NaN): inf where the mode rounds
  // away from zero on its side, else 0x7bff.
  auto mode = [&](uint32_t k) { return 4 * (rounding[k] - 1); };  // 0 where the mode is k, else -4
  const Expr over = ge143 - all;
  const Expr toInf = w(c.step(n + " overflow to inf (rn)", over - 1 + mode(0))) +
                     w(c.step(n + " overflow to inf (rm)", over + negative - 2 + mode(2))) +
                     w(c.step(n + " overflow to inf (rp)", over - negative - 1 + mode(3)));
  const Expr toMax = w(c.step(n + " overflow to max (rz)", over - 1 + mode(1))) +
                     w(c.step(n + " overflow to max (rm)", over - negative - 1 + mode(2))) +
                     w(c.step(n + " overflow to max (rp)", over + negative - 2 + mode(3)));
  const Expr inf = all - nan;
  const Expr sign = w(c.step(n + " sign", negative - nan - 1 + off));
  // Level 3: the increment by the mode, R's runs of ones.
  // guard, sticky: 0 unless F2H runs.
  const Expr inc = roundingIncrement(c, n, guard, sticky, R[0], negative, {mode(0), mode(1), mode(2), mode(3)});
  // Level 4: v = R + inc (at most 0x7bff + 1 = 0x7c00, inf).
  const std::vector<Expr> sum = addIncrement(c, n, R, inc, 15);
  std::vector<Expr> out(32);
  for (uint32_t j = 0; j < 15; ++j) {
    Expr bit = sum[j] + nan;  // NaN: 0x7fff
    if (j >= 10) bit += inf + toInf;                // inf: 0x7c00
    if (j != 10) bit += toMax;                      // 0x7bff
    out[j] = bit;
  }
  out[15] = sign;
  for (uint32_t j = 16; j < 32; ++j) out[j] = Expr(0);
  return out;
}

}  // namespace qgpu::compiler
