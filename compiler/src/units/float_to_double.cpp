// F2D (f32 to f64, exact) on the lane-serial operand (float_lane.h, buildLaneSerialF2D),
// beside the FFMA datapath, checked against machine::computeLane (units_convert.cpp): every
// f32 is an f64, so there is no rounding — only where each field goes. With .ftz (fl bit 0)
// a subnormal is the signed zero; a NaN is the machine's canonical 0x7fffffffffffffff.
// Two levels, like H2F (half_float.cpp):
//   1  [E = 255], [E = 0], NaN, and for a subnormal (not .ftz) the leading one of the
//      mantissa as a one-hot over its 23 places
//   2  the f64's bits: a normal's exponent E + 896 (bits 0-6 of E, then not E7 three times,
//      then E7: no adder), its mantissa m << 29; a subnormal's exponent 874 + p (a linear
//      form of the one-hot) and its mantissa shifted up past the leading one (the bits below
//      p to 52 - p ... 51); inf; NaN; the sign
// The 64 bits go to the lane's result, whose upper half only F2D fills.
#include <fmt/format.h>

#include <optional>

#include "qgpu/compiler/float_lane.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {
namespace {
constexpr int64_t kClosed = 1024;  // beyond any sum below: a missing condition closes a step
constexpr uint32_t kMantissa = 23, kWideMantissa = 52;
}  // namespace

std::vector<Expr> buildLaneSerialF2D(Circuit& c, const Bus& word, const Bus& a, const Expr& f2d, std::optional<WireId> after) {
  const std::string n = "F2D";
  const Expr off = kClosed * (f2d - 1);
  const Expr ftz = w(word[machine::kWordFlAt]);
  auto first = [&](const std::string& name, const Expr& cond) { return stepAfter(c, name, cond, after); };
  Expr e, mantissa;
  for (uint32_t k = 0; k < 8; ++k) e += w(a[kMantissa + k]);  // a count of the exponent's ones
  for (uint32_t j = 0; j < kMantissa; ++j) mantissa += w(a[j]);
  // Level 1.
  const Expr top = first(n + " E = 255", e - 8 + off), zero = first(n + " E = 0", -e + off);
  const Expr nan = first(n + " NaN", 32 * (e - 8) + mantissa - 1 + off);
  std::vector<Expr> lead(kMantissa);  // a subnormal's leading one at p (none under .ftz)
  Expr above;
  for (int p = kMantissa - 1; p >= 0; --p) {
    lead[p] = first(fmt::format("{} leading one at {}", n, p), w(a[p]) - above - 1 - 32 * e - 32 * ftz + off);
    above += w(a[p]);
  }
  // Level 2.
  std::vector<Expr> out(64);
  for (uint32_t j = 0; j < kWideMantissa; ++j) {
    Expr bit = nan;  // 0x7fffffffffffffff
    if (j >= kWideMantissa - kMantissa)  // a normal's or inf's mantissa: m << 29
      bit += w(c.step(fmt::format("{} mantissa[{}]", n, j), w(a[j + kMantissa - kWideMantissa]) - zero - nan - 1 + off));
    for (uint32_t p = 1; p < kMantissa; ++p)  // a subnormal's: the bits below the leading one
      if (j + p >= kWideMantissa)
        bit += w(c.step(fmt::format("{} mantissa[{}] at {}", n, j, p), lead[p] + w(a[j + p - kWideMantissa]) - 2));
    out[j] = bit;
  }
  const Expr normal = 1 - top - zero;  // with f2d: 0 unless F2D runs
  for (uint32_t k = 0; k < 11; ++k) {
    Expr bit = top;  // inf and NaN: 2047
    const Expr field = k < 7 ? w(a[kMantissa + k]) : k < 10 ? 1 - w(a[30]) : w(a[30]);  // E + 896
    bit += w(c.step(fmt::format("{} exponent[{}]", n, k), field + normal - 2 + off));
    for (uint32_t p = 0; p < kMantissa; ++p)
      if (((874 + p) >> k) & 1) bit += lead[p];
    out[kWideMantissa + k] = bit;
  }
  out[63] = w(c.step(n + " sign", w(a[31]) - nan - 1 + off));
  return out;
}

}  // namespace qgpu::compiler
