// The ALU's one-operand integer ops on a (alu.h's buildIntUnary): NEG of any width, and
// CVTI without saturation — a cut to the source type, sign- or zero-extended, cut to the
// destination type and extended again, cut to the register width (machine::convertInt).
//
//   NEG   bit i of -a is a_i XOR [a_0..a_(i-1) not all 0]: two thresholds per bit on a_i and
//         the prefix sum P_i, the op and width folded in ([a_i = 1, P_i = 0], [a_i = 0, P_i >= 1])
//   CVTI  with s, d, r the source, destination and register widths (8, 16, 32, 64 bits): bit i
//         is a_i where i < s, d, r; a fill where i < r otherwise, which is a_(s-1) (a signed
//         source's sign, for s <= i < d, or i >= d when d > s) or a_(d-1) (a signed
//         destination's sign, i >= d, d <= s) or 0. Which is a function of the bit's width
//         class k and the word's fields only, so each (class, fill bit) is one threshold per
//         lane shared by the class's bits: 64 + 6 thresholds per lane.
//
// Levels: the fields' one-hots (waiting for `fieldsAt`), then the selectors (for
// `selectorsAt`, the ALU's result level), then the terms, summed per bit into one
// exclusiveOr channel: everything late, where a is read anyway and channels are free.
#include <fmt/format.h>

#include "qgpu/compiler/alu.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

using machine::MOp;

std::vector<Bus> buildIntUnary(Circuit& c, const Bus& word, const OperandWires& operands, WireId fieldsAt,
                               WireId selectorsAt) {
  const Expr neg = w(operands.op.at(static_cast<size_t>(MOp::Neg)));
  const Expr cvti = w(operands.op.at(static_cast<size_t>(MOp::CvtI)));
  auto field = [&](uint32_t at) { return Bus(word.begin() + at, word.begin() + at + 2); };
  const Bus destCode = field(machine::kWordTyAt), srcCode = field(machine::kWordFlAt), regCode = field(machine::kWordCAt);
  const Expr destSigned = w(word[machine::kWordTyAt + 2]), srcSigned = w(word[machine::kWordFlAt + 2]);
  const Expr saturate = w(word[machine::kWordFlAt + 3]);
  // Each 2-bit width code one-hot for the values 0..2 (one threshold each; the selectors'
  // level is the fullest, so these go one level before it, after `fieldsAt`).
  auto oneHot = [&](const std::string& name, const Bus& code) {
    std::vector<WireId> h;
    for (uint32_t v = 0; v < 3; ++v) {
      h.push_back(c.step(fmt::format("CVTI {} = {}", name, v), bitsMatching(code, v) - 2));
      c.notBefore(h.back(), fieldsAt);
    }
    return h;
  };
  const std::vector<WireId> S = oneHot("source", srcCode), D = oneHot("destination", destCode), R = oneHot("register", regCode);
  auto atLeast = [](const std::vector<WireId>& h, uint32_t k) {  // [code >= k]
    Expr e(1);
    for (uint32_t v = 0; v < k; ++v) e -= w(h[v]);
    return e;
  };
  auto selector = [&](const std::string& name, Expr cond) {
    const WireId s = c.step(name, std::move(cond));
    c.notBefore(s, selectorsAt);
    return s;
  };
  // CVTI without .sat, and the register holds bit class k: the base of every CVTI selector.
  auto base = [&](uint32_t k) { return cvti - saturate + atLeast(R, k); };  // 2 where all hold
  std::vector<WireId> self(4), negFits(4);
  std::vector<std::vector<WireId>> fill(4, std::vector<WireId>(3, 0));  // [class][source end e]: a_(8 * 2^e - 1)
  for (uint32_t k = 0; k < 4; ++k) {
    negFits[k] = selector(fmt::format("NEG width class {}", k), neg + atLeast(D, k) - 2);
    self[k] = selector(fmt::format("CVTI class {} keeps a", k), base(k) + atLeast(S, k) + atLeast(D, k) - 4);
    for (uint32_t e = 0; e < k; ++e) {
      // A signed source's sign, the source ending below the bit and the destination above it.
      Expr terms = w(selector(fmt::format("CVTI class {} source sign {}", k, e), base(k) + w(S[e]) + atLeast(D, k) + srcSigned - 5));
      // A signed destination ending at e below the bit, the source no shorter: its sign bit.
      terms += w(selector(fmt::format("CVTI class {} destination sign {}", k, e),
                          base(k) + w(D[e]) + destSigned + atLeast(S, e) - 5));
      // A signed destination ending below the bit, a shorter signed source ending at e.
      for (uint32_t d = e + 1; d < k; ++d)
        terms += w(selector(fmt::format("CVTI class {} destination {} over source sign {}", k, d, e),
                            base(k) + w(D[d]) + destSigned + w(S[e]) + srcSigned - 6));
      fill[k][e] = c.exclusiveOr(fmt::format("CVTI class {} fill from bit {}", k, (8u << e) - 1), terms);
    }
  }

  std::vector<Bus> out;
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const std::string lane = fmt::format("l{}", l);
    std::vector<std::vector<WireId>> filled(4);  // per class: its fill thresholds, shared by its bits
    for (uint32_t k = 0; k < 4; ++k)
      for (uint32_t e = 0; e < k; ++e)
        filled[k].push_back(c.step(fmt::format("{} CVTI class {} fill {}", lane, k, e), w(a[(8u << e) - 1]) + w(fill[k][e]) - 2));
    Bus bits;
    Expr prefix;  // P_i = a_0 + ... + a_(i-1)
    constexpr int64_t M = 64;  // above any P_i
    for (uint32_t i = 0; i < 64; ++i) {
      const uint32_t k = widthClassOfBit(i);
      const std::string n = fmt::format("{} d[{}]", lane, i);
      const Expr ai = w(a[i]);
      Expr terms = negationBit(c, n + " NEG", ai, prefix, i > 0, M * (w(negFits[k]) - 1), M);
      terms += w(c.step(n + " CVTI", ai + w(self[k]) - 2));
      for (WireId f : filled[k]) terms += w(f);
      bits.push_back(c.exclusiveOr(fmt::format("{} NEG/CVTI[{}]", lane, i), terms));
      prefix += ai;
    }
    out.push_back(std::move(bits));
  }
  return out;
}

}  // namespace qgpu::compiler
