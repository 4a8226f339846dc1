// POPC, CLZ, BFIND and BREV of 4-byte operands on the lane-serial operand (float_lane.h,
// buildLaneSerialBitCounts), beside BFE, checked against machine::computeLane
// (units_integer.cpp). Two levels:
//   1  POPC: [popcount >= k] for k = 1 … 32; CLZ: the leading one's one-hot and [a = 0];
//      BFIND: the leading one of a, or of ~a for a negative signed a, and [none] (a = 0, or
//      a signed -1); BREV: bit 31 - i of a, one step each
//   2  per result bit one channel: POPC's and CLZ's bits as linear forms of their level-1
//      steps (a count's bit j from its thresholds, telescoped; CLZ's from the one-hot),
//      BFIND's position XOR .shiftamt (31 - p is p with its five bits flipped), 0xffffffff
//      where no bit is found, BREV's bits
#include <fmt/format.h>

#include <optional>

#include "qgpu/compiler/float_lane.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

std::vector<Expr> buildLaneSerialBitCounts(Circuit& c, const Bus& word, const Bus& a, const BitCountOps& op,
                                           std::optional<WireId> after) {
  constexpr int64_t M = 64;  // beyond any count below: a missing condition closes a step
  auto first = [&](const std::string& name, const Expr& cond) { return stepAfter(c, name, cond, after); };
  auto bitOf = [](uint32_t value, uint32_t j) { return static_cast<int64_t>((value >> j) & 1); };
  Expr ones;
  for (uint32_t i = 0; i < 32; ++i) ones += w(a[i]);
  const Expr isSigned = w(word[machine::kWordTyAt + 2]), shiftAmount = w(word[machine::kWordFlAt]);
  std::vector<Expr> out(32);

  // POPC: bit j of the count is the sum over k of [count >= k] (bit j of k - bit j of k - 1).
  for (uint32_t k = 1; k <= 32; ++k) {
    const Expr atLeast = first(fmt::format("POPC count >= {}", k), ones - k + M * (op.popc - 1));
    for (uint32_t j = 0; j < 6; ++j)
      if (const int64_t d = bitOf(k, j) - bitOf(k - 1, j); d != 0) out[j] += d * atLeast;
  }
  // CLZ: 31 - p for the leading one at p, 32 for a = 0.
  Expr above;
  for (int p = 31; p >= 0; --p) {
    const Expr lead = first(fmt::format("CLZ leading one at {}", p), w(a[p]) - above - 1 + M * (op.clz - 1));
    for (uint32_t j = 0; j < 6; ++j)
      if (bitOf(31 - p, j)) out[j] += lead;
    above += w(a[p]);
  }
  out[5] += first("CLZ a = 0", -ones + M * (op.clz - 1));
  // BREV: bit i is a's bit 31 - i.
  for (uint32_t i = 0; i < 32; ++i) out[i] += first(fmt::format("BREV d[{}]", i), w(a[31 - i]) - 1 + M * (op.brev - 1));
  // POPC's, CLZ's and BREV's bits: one channel each at their level (one op runs at a time).
  for (uint32_t j = 0; j < 32; ++j) out[j] = w(c.exclusiveOr(fmt::format("POPC/CLZ/BREV d[{}]", j), out[j]));
  // BFIND: the leading one of a (unsigned, or signed and not negative), or of ~a (signed and
  // negative: the leading zero below bit 31), as a one-hot over p; none where there is none.
  std::vector<Expr> lead(32);
  Expr aboveOnes, aboveZeros;  // a's bits above p; ~a's bits above p, below 31
  for (int p = 31; p >= 0; --p) {
    lead[p] = first(fmt::format("BFIND leading one at {}", p),
                    w(a[p]) - aboveOnes - 1 + M * (op.bfind - 1) - (p == 31 ? isSigned : Expr(0)));
    if (p < 31)
      lead[p] += first(fmt::format("BFIND leading zero at {} (negative)", p),
                       (1 - w(a[p])) - aboveZeros + w(a[31]) + isSigned - 3 + M * (op.bfind - 1));
    aboveOnes += w(a[p]);
    if (p < 31) aboveZeros += 1 - w(a[p]);
  }
  Expr found;
  for (const Expr& l : lead) found += l;
  const Expr none = w(c.exclusiveOr("BFIND none", first("BFIND none (a = 0)", -ones + M * (op.bfind - 1)) +
                                                      first("BFIND none (signed -1)", ones - 32 + isSigned - 1 + M * (op.bfind - 1))));
  const Expr foundBit = w(c.exclusiveOr("BFIND found", found));
  // Level 2: p's bits, flipped by .shiftamt (31 - p) where a bit was found; 0xffffffff for none.
  const Expr flips = w(c.step("BFIND .shiftamt", foundBit + shiftAmount - 2));
  for (uint32_t j = 0; j < 5; ++j) {
    Expr terms;
    for (uint32_t p = 0; p < 32; ++p)
      if (bitOf(p, j)) terms += lead[p];
    const Expr positionBit = w(c.exclusiveOr(fmt::format("BFIND position[{}]", j), terms));
    const Expr flipped = w(c.step(fmt::format("BFIND position[{}] flipped", j), positionBit + shiftAmount - 2));
    out[j] += w(c.exclusiveOr(fmt::format("BFIND d[{}]", j), none + positionBit + flips - 2 * flipped));
  }
  for (uint32_t j = 5; j < 32; ++j) out[j] += none;
  return out;
}

}  // namespace qgpu::compiler
