// BFE (bit-field extract) of 4-byte operands on the lane-serial operand (float_lane.h,
// buildLaneSerialBfe), beside the conversions, checked against machine::computeLane
// (units_integer.cpp's bitField): d holds a's bits pos .. pos + len - 1 at 0 .. len - 1, pos =
// b's low byte, len = c's low byte; the bits above len, and those that would come from past
// bit 31, are 0 (unsigned) or the sign bit a[min(pos + len - 1, 31)] (signed, len != 0).
// Three levels:
//   1  the one-hot [pos = p] (p < 32), [len > i], [pos >= k], [pos + len - 1 >= k]
//   2  the extracted bit i: [pos = p, a_(p+i) = 1, len > i] summed over p (one channel per
//      bit: at most one p holds); whether bit i is a sign bit: [len <= i or pos + i >= 32];
//      the sign bit: a at the one-hot of pos + len - 1 (bit 31 past it), signed and len != 0
//   3  a sign bit where bit i is one
#include <fmt/format.h>

#include <optional>

#include "qgpu/compiler/float_lane.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

std::vector<Expr> buildLaneSerialBfe(Circuit& c, const Bus& word, const Bus& a, const Bus& b, const Bus& cc, const Expr& bfe,
                                     std::optional<WireId> after) {
  const std::string n = "BFE";
  constexpr int64_t M = 1024;  // beyond pos + len (<= 510): a missing condition closes a step
  const Expr off = M * (bfe - 1);
  auto first = [&](const std::string& name, const Expr& cond) { return stepAfter(c, name, cond, after); };
  const Bus posBits(b.begin(), b.begin() + 8);
  Expr pos, len;
  for (uint32_t j = 0; j < 8; ++j) {
    pos += (int64_t{1} << j) * w(b[j]);
    len += (int64_t{1} << j) * w(cc[j]);
  }
  const Expr isSigned = w(word[machine::kWordTyAt + 2]);
  // Level 1.
  std::vector<Expr> posIs(32), longer(32), posAtLeast(33), msbAtLeast(32);
  for (uint32_t p = 0; p < 32; ++p) posIs[p] = first(fmt::format("{} pos = {}", n, p), bitsMatching(posBits, p) - 8 + off);
  for (uint32_t i = 0; i < 32; ++i) longer[i] = first(fmt::format("{} len > {}", n, i), len - (i + 1) + off);
  for (uint32_t k = 1; k <= 32; ++k) posAtLeast[k] = first(fmt::format("{} pos >= {}", n, k), pos - k + off);
  for (uint32_t k = 1; k < 32; ++k)
    msbAtLeast[k] = first(fmt::format("{} pos + len - 1 >= {}", n, k), pos + len - 1 - k + off);
  // Level 2. The sign bit's index min(pos + len - 1, 31) as a one-hot of the thresholds
  // (len != 0 makes pos + len - 1 >= 0, so index 0 is the rest).
  Expr sign;
  for (uint32_t k = 0; k < 32; ++k) {
    const Expr at = (k == 0 ? Expr(1) : msbAtLeast[k]) - (k < 31 ? msbAtLeast[k + 1] : Expr(0));
    sign += w(c.step(fmt::format("{} sign bit at {}", n, k), at + w(a[k]) + longer[0] + isSigned - 4));
  }
  const Expr signBit = w(c.exclusiveOr(n + " sign bit", sign));
  std::vector<Expr> out(32);
  for (uint32_t i = 0; i < 32; ++i) {
    Expr field;
    for (uint32_t p = 0; p + i < 32; ++p)
      field += w(c.step(fmt::format("{} d[{}] from {}", n, i, p), posIs[p] + w(a[p + i]) + longer[i] - 3));
    // Bit i is a sign bit where len <= i or pos + i >= 32 (0 unless BFE runs: it reads longer[0]).
    const Expr fill = w(c.step(fmt::format("{} d[{}] is a sign bit", n, i), (1 - longer[i]) + posAtLeast[32 - i] - 1));
    // Level 3.
    out[i] = w(c.exclusiveOr(fmt::format("{} d[{}] (field)", n, i), field)) +
             w(c.step(fmt::format("{} d[{}] (sign)", n, i), fill + signBit - 2));
  }
  return out;
}

}  // namespace qgpu::compiler
