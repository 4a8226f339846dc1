// The f32 rounding back end (f32_round.h).
#include "f32_round.h"

#include <fmt/format.h>

namespace qgpu::compiler {

Bus exponentPlus(Circuit& c, const std::string& name, const Bus& esum, const std::vector<Expr>& onehot, int offset,
                 int k) {
  std::vector<Expr> x(8), y(8);
  for (size_t j = 0; j < 8; ++j) {
    x[j] = w(esum[j]);
    for (size_t p = 0; p < onehot.size(); ++p)
      if ((((static_cast<int>(p) - offset + k) % 256 + 256) >> j) & 1) y[j] += onehot[p];
  }
  return addBuses(c, name, x, y, 0);
}

F32Candidate roundAndPack(Circuit& c, const std::string& name, const CoarseSignificand& s, const Bus& e1, const Bus& e2,
                          const Expr& Fbase, const Expr& sign, const F32Modes& m) {
  auto n = [&](const std::string& x) { return fmt::format("{}.{}", name, x); };
  // Fine shift by r, and the round increment (guard, sticky and R0 are bits whose ranges
  // are wide, telescoped sums: each L below is at most 1).
  std::vector<Expr> R(24);
  for (int i = 0; i < 24; ++i) {
    Expr v = s.coarse(i + 8);
    for (int k = 1; k < 8; ++k) {
      const Expr d = s.coarse(i + 8 + k) - s.coarse(i + 7 + k);
      if (!d.terms.empty()) v += w(c.gate(n(fmt::format("R[{}].{}", i, k)), s.h[static_cast<size_t>(k)], d));
    }
    R[static_cast<size_t>(i)] = w(c.sum(n(fmt::format("R[{}]", i)), v));
  }
  const Expr inc = w(c.sum(n("inc"), w(andStep(c, n("inc.rn"), {m.rn, s.guard}, s.sticky + s.R0 - 1, 1)) +
                                         w(andStep(c, n("inc.rm"), {m.rm, sign}, s.guard + s.sticky - 1, 1)) +
                                         w(andStep(c, n("inc.rp"), {m.rp, 1 - sign}, s.guard + s.sticky - 1, 1))));
  // R + inc: the carry into bit j is one threshold [inc and R_0..R_{j-1}].
  std::vector<Expr> carry(25);
  std::vector<WireId> carryW(25);
  carry[0] = inc;
  std::vector<Expr> bits = {inc};
  for (size_t j = 1; j <= 24; ++j) {
    bits.push_back(R[j - 1]);
    carryW[j] = andStep(c, n(fmt::format("rc[{}]", j)), bits);
    carry[j] = w(carryW[j]);
  }
  // The exponent field F = E0 + R23 + carry23: E0 + 1 for a normal result, E0 + 2 when the
  // increment carries out of the significand, carry23 alone for a subnormal one (E0 = 0).
  F32Candidate out;
  out.bits.resize(31);
  for (size_t i = 0; i < 23; ++i) out.bits[i] = R[i] + carry[i] - 2 * carry[i + 1];
  for (size_t j = 0; j < 8; ++j) {
    const Expr a = w(e1[j]), b = w(e2[j]);
    out.bits[23 + j] = w(c.sum(n(fmt::format("F[{}]", j)), w(c.gate(n(fmt::format("F[{}].n", j)), s.R23, a)) +
                                                              w(c.gate(n(fmt::format("F[{}].c", j)), carryW[24], b - a)) +
                                                              (j == 0 ? carry[23] - carry[24] : Expr(0))));
  }
  const Expr F = Fbase + w(s.R23) + carry[23];
  out.overflow = w(c.step(n("f.ovf"), F - 255));
  out.atLeastOne = w(c.step(n("f.ge1"), F - 127));
  out.subnormal = w(c.step(n("f.sub"), -F));
  return out;
}

}  // namespace qgpu::compiler
