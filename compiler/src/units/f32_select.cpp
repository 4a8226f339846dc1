// The final select of an f32 result (f32_select.h): one MLP level of AND thresholds.
#include "f32_select.h"

#include <fmt/format.h>

namespace qgpu::compiler {

const std::vector<std::string>& f32ModeSelectors() {
  static const std::vector<std::string> names = {"rn", "rz", "rm", "rp", "ftz", "sat"};
  return names;
}

F32Modes addF32ModeSelectors(Unit& u) {
  std::vector<Expr> e;
  for (const std::string& s : f32ModeSelectors()) {
    u.selectors.push_back(u.circuit.inputBit("sel." + s));
    u.selectorNames.push_back(s);
    e.push_back(w(u.selectors.back()));
  }
  return {e[0], e[1], e[2], e[3], e[4], e[5]};
}

Bus f32FinalSelect(Circuit& c, const std::string& name, const std::vector<F32Candidate>& candidates,
                   const F32Classes& k, const F32Modes& m) {
  auto n = [&](const std::string& s) { return fmt::format("{}.{}", name, s); };
  const Expr nN = 1 - k.nan, nI = 1 - k.inf, nZ = 1 - k.zero, nsat = 1 - m.sat, sx = k.sign;
  // Overflow gives the largest finite instead of infinity when rounding toward zero.
  const Expr noInf = m.rz + w(c.sum(n("noinf"), w(andStep(c, n("noinf.p"), {m.rp, sx})) + w(andStep(c, n("noinf.m"), {m.rm, 1 - sx}))));
  Expr ovf, ovfInf, ovfMax, one;
  for (size_t ci = 0; ci < candidates.size(); ++ci) {
    const F32Candidate& f = candidates[ci];
    const std::string cn = n(fmt::format("c{}", ci));
    ovf += w(andStep(c, cn + ".ovf", {nN, nI, nZ, nsat, f.overflow, f.chosen}));
    ovfInf += w(andStep(c, cn + ".ovf.inf", {nN, nI, nZ, nsat, 1 - noInf, f.overflow, f.chosen}));
    ovfMax += w(andStep(c, cn + ".ovf.max", {nN, nI, nZ, nsat, noInf, f.overflow, f.chosen}));
    one += w(andStep(c, cn + ".sat.one", {m.sat, nN, nI, nZ, 1 - sx, f.atLeastOne, f.chosen}));
  }
  const Expr infOut = w(andStep(c, n("inf.out"), {k.inf, nN, nsat}));
  const Expr nanOut = w(andStep(c, n("nan.out"), {k.nan, nsat}));
  one += w(andStep(c, n("sat.inf"), {m.sat, nN, k.inf, 1 - k.infSign}));
  Bus out(32);
  for (int i = 0; i < 31; ++i) {
    const std::string bn = n(fmt::format("d[{}]", i));
    Expr v = nanOut;
    for (size_t ci = 0; ci < candidates.size(); ++ci) {
      const F32Candidate& f = candidates[ci];
      const Expr& z = f.bits[static_cast<size_t>(i)];
      const std::string cn = fmt::format("{}.c{}", bn, ci);
      v += w(andStep(c, cn + ".norm", {z, nN, nI, nZ, nsat, 1 - f.overflow, f.chosen})) +
           w(andStep(c, cn + ".sat", {z, nN, nI, nZ, m.sat, 1 - sx, 1 - f.atLeastOne, f.chosen}));
      if (i < 23) {  // ftz: a subnormal result (field 0) flushes to a signed zero
        v -= w(andStep(c, cn + ".ftz", {z, nN, nI, nZ, nsat, m.ftz, f.subnormal, f.chosen}));
        v -= w(andStep(c, cn + ".satftz", {z, nN, nI, nZ, m.sat, 1 - sx, m.ftz, f.subnormal, f.chosen}));
      }
    }
    if (i < 23) {
      v += ovfMax;
    } else {
      v += infOut + (i == 23 ? ovfInf : ovf);
      if (i < 30) v += one;
    }
    out[static_cast<size_t>(i)] = c.sum(bn, v);
  }
  // The sign: NaN and sat give +; an infinity, a zero or a finite result its own.
  out[31] = c.sum(n("d[31]"), w(andStep(c, n("d[31].x"), {nsat, nN, nI, nZ, sx})) +
                                  w(andStep(c, n("d[31].i"), {nsat, nN, k.inf, k.infSign})) +
                                  w(andStep(c, n("d[31].z"), {nsat, nN, nI, k.zero, k.zeroSign})));
  return out;
}

}  // namespace qgpu::compiler
