// The f32 multiplier (machine FMUL, docs/machine.md §1.4): the exact 48-bit significand
// product, a normalising (or denormalising) shift, rounding in the selected mode, pack, and
// the special cases (NaN, infinities, zeros, overflow, ftz, sat) in parallel, for `lanes`
// lanes sharing the instruction's selectors (rounding mode one-hot; ftz and sat flags).
//
// Value = P * 2^(K - 127) with P = ma * mb < 2^48 and K = Ea' + Eb' - 173 (E' = max(E, 1)).
// With `lead` the index of P's leading one, the result's significand is P >> (p' - 23) for
// p' = max(lead, 1 - K): lead for a normal result, 1 - K for a subnormal one. The biased
// exponent before rounding is E0 + R23 with E0 = K + p' - 1 = Ea' + Eb' + p' - 174 and R23
// the hidden bit (R23 = [lead >= 1 - K]). p' is clamped at 72: beyond, R and the guard bit
// are zero and only the sticky bit remains (the value is below half the least subnormal).
//
// Levels (one MLP layer each; sums are free):
//   1     class flags, partial products (f32_product.cpp)
//   2-6   the product's bits P (digitsToBits); gk[p] = [1 - K >= p] at 2; Ea' + Eb'
//         (an 8-bit adder, 2-3); the NaN class (2-3)
//   7     g[p] = [p' >= p] for p <= 47 (a leading one at or above p, or gk[p]), gl[p] = [lead >= p],
//         P's bits re-thresholded (tight 0..1 ranges for the shifts)
//   8     R23; p' = 8q + r: the coarse shift by 8q (gates on g[8q]) and h[k] = [r >= k];
//         the guard bit, the lowest kept bit R0 and the sticky bit straight from g;
//         exponents E0 + 1 and E0 + 2 (8-bit adders, 8-9)
//   9     the fine shift by r (gates on h): R[0..23]; the round increment (rn rz rm rp)
//   10    carries of R + inc (every carry one threshold: a round-up may carry into bit 24)
//   11    the exponent field F = E0 + R23 + carry23, bits and classes (overflow, >= 1, 0)
//   12    final select: NaN, inf, zero, overflow by mode, ftz of the result, sat clamp
#include <fmt/format.h>

#include "f32_product.h"
#include "f32_round.h"
#include "f32_select.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {
constexpr int kCap = 72;   // p' clamps here (the tiny bucket)
constexpr int kPBits = 48;
}  // namespace

Unit fmulUnit(uint32_t lanes) {
  Unit u{Circuit(fmt::format("fmul32x{}", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const F32Modes modes = addF32ModeSelectors(u);

  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    const Bus A = c.inputBus(fmt::format("l{}.a", l), 32), B = c.inputBus(fmt::format("l{}.b", l), 32);
    lb.operands = {A, B};
    auto n = [l](const std::string& s) { return fmt::format("l{}.{}", l, s); };

    // ---- level 1 ----
    const F32Operand a = unpackF32(c, n("a"), A, modes.ftz), b = unpackF32(c, n("b"), B, modes.ftz);
    const Expr sx = a.sign + b.sign - 2 * w(c.step(n("sx2"), a.sign + b.sign - 2));  // sa xor sb
    const Expr K = a.effExp() + b.effExp() - 173;
    const Bus P = significandProduct(c, n("p"), a, b);
    auto Pat = [&](int t) { return t >= 0 && t < kPBits ? w(P[static_cast<size_t>(t)]) : Expr(0); };

    // ---- levels 2-3: classes, Ea' + Eb' ----
    const WireId nan1 = c.step(n("nan.infzero"), w(a.inf) + w(b.zero) - 2);
    const WireId nan2 = c.step(n("nan.zeroinf"), w(a.zero) + w(b.inf) - 2);
    const WireId N = c.step(n("nan"), w(a.nan) + w(b.nan) + w(nan1) + w(nan2) - 1);
    const WireId I = c.step(n("inf"), w(a.inf) + w(b.inf) - 1);  // NaN takes precedence below
    const WireId Zr = c.step(n("zero"), w(a.zero) + w(b.zero) - 1);
    const Bus esum = effectiveExponentSum(c, n("esum"), a, b);

    // ---- g[p] = [p' >= p], p = 1..72 (level 2 for p >= 48, level 7 below) ----
    std::vector<Expr> G(kCap + 2);
    G[0] = Expr(1);
    std::vector<WireId> gWire(kCap + 1);
    Expr glSum;
    for (int p = kCap; p >= 1; --p) {
      if (p >= kPBits) {
        gWire[p] = c.step(n(fmt::format("g[{}]", p)), 1 - K - p);
        G[p] = w(gWire[p]);
        continue;
      }
      Expr s;
      for (int i = p; i < kPBits; ++i) s += Pat(i);
      // [a bit at or above p, or 1 - K >= p]; the second test is a level-2 step so that the
      // bits' sum enters with weight 1 (their ranges are wider than 0..1: thresholds' sums).
      const WireId k = c.step(n(fmt::format("gk[{}]", p)), 1 - K - p);
      gWire[p] = c.step(n(fmt::format("g[{}]", p)), s + w(k) - 1);
      G[p] = w(gWire[p]);
      glSum += w(c.step(n(fmt::format("gl[{}]", p)), s - 1));
    }
    G[kCap + 1] = Expr(0);
    // The product's bits again as steps (level 7, beside g): P's bits are sums of
    // thresholds whose ranges reach hundreds, and the shifts below would multiply those.
    std::vector<Expr> Pb(kPBits);
    for (int i = 0; i < kPBits; ++i) Pb[static_cast<size_t>(i)] = w(c.step(n(fmt::format("Pb[{}]", i)), Pat(i) - 1));
    auto Pbit = [&](int t) { return t >= 0 && t < kPBits ? Pb[static_cast<size_t>(t)] : Expr(0); };
    Expr pPrime;
    for (int p = 1; p <= kCap; ++p) pPrime += G[p];
    auto gate = [&](const std::string& name, int p, const Expr& v) {
      // G[p] * v, p >= 1 (G[0] = 1 needs no neuron).
      return v.terms.empty() && v.constant == 0 ? Expr(0) : w(c.gate(name, gWire[p], v));
    };

    // ---- level 8 ----
    const WireId R23 = c.step(n("R23"), glSum - pPrime);  // [lead >= p']
    Expr qs;
    for (int q = 1; q * 8 <= kCap; ++q) qs += G[q * 8];
    const Expr r = w(c.sum(n("r"), pPrime - 8 * qs));
    std::vector<WireId> h(8);
    for (size_t k = 1; k < 8; ++k) h[k] = c.step(n(fmt::format("h[{}]", k)), r - k);
    // Coarse: C[j] = P[j + 8q - 31], j = 7..38 (telescoped over g[8q]).
    auto C = [&, cache = std::map<int, Expr>()](int j) mutable -> Expr {
      auto it = cache.find(j);
      if (it != cache.end()) return it->second;
      Expr v = Pbit(j - 31);
      for (int q = 1; q * 8 <= kCap; ++q)
        v += gate(n(fmt::format("C[{}].{}", j, q)), 8 * q, Pbit(j + 8 * q - 31) - Pbit(j + 8 * q - 39));
      v = v.terms.empty() ? v : w(c.sum(n(fmt::format("C[{}]", j)), v));
      return cache[j] = v;
    };
    // P[p' - t] straight from g: sum_p G[p] (P[p - t] - P[p - t - 1]).
    auto fromG = [&](const std::string& name, int t) {
      Expr v = Pbit(-t);
      for (int p = 1; p <= kCap; ++p) v += gate(fmt::format("{}.{}", name, p), p, Pbit(p - t) - Pbit(p - t - 1));
      return w(c.sum(name, v));
    };
    CoarseSignificand cs{C, h, fromG(n("guard"), 24), fromG(n("R0"), 23), Expr(), R23};
    Expr stickyT;
    for (int p = 25; p <= kCap; ++p) {
      Expr low;
      for (int i = 0; i < std::min(p - 24, kPBits); ++i) low += Pbit(i);
      stickyT += w(andStep(c, n(fmt::format("sticky.{}", p)), {G[p], 1 - G[p + 1]}, low - 1));
    }
    cs.sticky = w(c.sum(n("sticky"), stickyT));
    // E0 + 1 and E0 + 2 (mod 256), E0 = (Ea' + Eb') + p' - 174, p' one-hot as G[p] - G[p + 1].
    std::vector<Expr> onehot(kCap + 1);
    for (int p = 0; p <= kCap; ++p) onehot[static_cast<size_t>(p)] = G[p] - G[p + 1];
    const Bus E1 = exponentPlus(c, n("E1"), esum, onehot, 174, 1), E2 = exponentPlus(c, n("E2"), esum, onehot, 174, 2);

    // ---- levels 9-11: fine shift and increment, carries, exponent field ----
    const F32Candidate main =
        roundAndPack(c, n("rnd"), cs, E1, E2, a.effExp() + b.effExp() + pPrime - 174, sx, modes);

    // ---- level 12: select ----
    const Bus out = f32FinalSelect(c, n("sel"), {main}, {w(N), w(I), w(Zr), sx, sx, sx}, modes);
    c.outputBus(n("d"), out);
    lb.results.push_back(out);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

}  // namespace qgpu::compiler
