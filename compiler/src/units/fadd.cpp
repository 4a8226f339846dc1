// The f32 adder (machine FADD / FSUB, docs/machine.md §1.4): unpack, order by magnitude,
// align with sticky, add or subtract, normalise, round in the selected mode, pack, and the
// special cases (NaN, infinities, exact zeros, overflow, ftz, sat) in parallel, for `lanes`
// lanes sharing the instruction's selectors (rounding mode one-hot; sub, ftz, sat flags).
//
// Levels (one MLP layer each; sums are free):
//   1  exponent-zero / NaN / inf / zero / flush flags, magnitude chunk digits, sign parity
//   2  swap (|a| < |b|), effective subtraction, exponent-difference thresholds t_k, NaN/inf,
//      and the six controls that pick the smaller operand XOR effsub (or its flush)
//   3  the larger significand, exponent and sign; the smaller significand ~-ed for a
//      subtraction; shift one-hot oh[k] = [|d| = k]
//   4  aligned smaller significand (gates, one merged channel per bit) and its sticky bit
//   5-6  27-bit significand add x + y (or x + ~y + 1) (addBuses)
//   7  leading-one thresholds clamped by the exponent (g_p = [p' >= p]), exact-zero test
//   8  normalising shift (telescoped gates on g_p), guard, sticky, the hidden bit's share
//      of the exponent
//   9  round increment (rn/rz/rm/rp); exponent adjust E'' = ex + p' - 27 + hidden (adder)
//   10  pack (E'' << 23) | R and add the increment (incrementer: a carry rounds into E'')
//   11  the exponent field's classes: overflow, >= 1.0 (sat), subnormal (ftz)
//   12  final select: NaN, inf, zero sign, overflow by mode, ftz of the result, sat clamp
// Rounding is exact with guard, round and sticky below the 24 significand bits: for a
// difference of 3 or more the smaller operand is below 2^24 in the window, the sum's
// leading one is at bit 25..27 and the sticky stands in for bits strictly below bit 1,
// where no rounding boundary lies; for 0..2 nothing is shifted out and the sum is exact.

#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {

// The window of the significand add: the larger operand's significand sits at bits 3..26
// (guard, round and sticky below), the sum may carry into bit 27.
constexpr int kWin = 27;
// Explicit alignment shifts 0..kMaxShift; a larger exponent difference leaves only sticky.
constexpr int kMaxShift = 25;

}  // namespace

const std::vector<std::string>& faddSelectors() {
  static const std::vector<std::string> names = {"rn", "rz", "rm", "rp", "sub", "ftz", "sat"};
  return names;
}

Unit faddUnit(uint32_t lanes) {
  Unit u{Circuit(fmt::format("fadd32x{}", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  for (const std::string& s : faddSelectors()) {
    u.selectors.push_back(c.inputBit("sel." + s));
    u.selectorNames.push_back(s);
  }
  const Expr rn = w(u.selectors[0]), rz = w(u.selectors[1]), rm = w(u.selectors[2]), rp = w(u.selectors[3]);
  const Expr sub = w(u.selectors[4]), ftz = w(u.selectors[5]), sat = w(u.selectors[6]);

  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    const Bus A = c.inputBus(fmt::format("l{}.a", l), 32), B = c.inputBus(fmt::format("l{}.b", l), 32);
    lb.operands = {A, B};
    auto n = [l](const std::string& s) { return fmt::format("l{}.{}", l, s); };
    auto expOf = [](const Bus& x) {
      Expr e;
      for (int j = 0; j < 8; ++j) e += (int64_t{1} << j) * w(x[23 + j]);
      return e;
    };
    auto fracCount = [](const Bus& x) {
      Expr e;
      for (int i = 0; i < 23; ++i) e += w(x[i]);
      return e;
    };
    const Expr Ea = expOf(A), Eb = expOf(B), Fa = fracCount(A), Fb = fracCount(B);
    const Expr sa = w(A[31]), sb = w(B[31]);

    // ---- level 1 ----
    const WireId ezA = c.step(n("ez.a"), -Ea), ezB = c.step(n("ez.b"), -Eb);  // exponent field 0
    const WireId flA = c.step(n("fl.a"), ftz - Ea - 1), flB = c.step(n("fl.b"), ftz - Eb - 1);  // flushed
    const WireId nanA = c.step(n("nan.a"), 24 * (Ea - 255) + Fa - 1), nanB = c.step(n("nan.b"), 24 * (Eb - 255) + Fb - 1);
    const WireId infA = c.step(n("inf.a"), 24 * (Ea - 255) - Fa), infB = c.step(n("inf.b"), 24 * (Eb - 255) - Fb);
    const WireId zeroA = c.step(n("zero.a"), -24 * Ea - Fa + 23 * ftz), zeroB = c.step(n("zero.b"), -24 * Eb - Fb + 23 * ftz);
    // b's effective sign sb ^ sub, and the effective operation sa ^ sb ^ sub (parity).
    const Expr sbe = sb + sub - 2 * w(c.step(n("sbsub"), sb + sub - 2));
    const Expr parity = sa + sb + sub - 2 * w(c.step(n("par2"), sa + sb + sub - 2));
    // Magnitude compare on the raw 31 bits (a flushed operand only meets a larger one or a
    // zero, where the result is the special zero): D = sum_m digit_m 2^m, 12-bit chunks.
    Expr Dt;
    for (int m = 0; m * 12 < 31; ++m) {
      Expr am, bm;
      for (int i = m * 12; i < std::min(31, (m + 1) * 12); ++i) {
        am += (int64_t{1} << (i - m * 12)) * w(A[i]);
        bm += (int64_t{1} << (i - m * 12)) * w(B[i]);
      }
      Dt += (int64_t{1} << m) * (w(c.step(n(fmt::format("cmp{}.gt", m)), am - bm - 1)) -
                                w(c.step(n(fmt::format("cmp{}.lt", m)), bm - am - 1)));
    }

    const Expr D = w(c.sum(n("cmp"), Dt));

    // ---- level 2 ----
    const WireId swap = c.step(n("swap"), -D - 1), keep = c.step(n("keep"), D);
    const WireId effsub = c.step(n("effsub"), parity - 1);
    // t_k = [d >= k], d = max(Ea, 1) - max(Eb, 1).
    const Expr d = Ea + w(ezA) - Eb - w(ezB);
    std::map<int, Expr> t;
    for (int k = -kMaxShift; k <= kMaxShift + 1; ++k) t[k] = w(c.step(n(fmt::format("t[{}]", k)), d - k));
    const WireId N = c.step(n("nan"), 3 * w(nanA) + 3 * w(nanB) + w(infA) + w(infB) + parity - 3);
    const WireId I = c.step(n("inf"), w(infA) + w(infB) - 1);
    const WireId zz = c.step(n("zz"), w(zeroA) + w(zeroB) - 2);

    // ---- level 3: order the operands ----
    auto pick = [&](const std::string& name, const Expr& ifKeep, const Expr& ifSwap) {
      return w(c.sum(name, w(c.gate(name + ".k", keep, ifKeep)) + w(c.gate(name + ".s", swap, ifSwap))));
    };
    // The larger operand's significand; the smaller one's XOR the effective subtraction
    // (x - y = x + ~y + 1), zero when ftz flushes it: six controls that fold the
    // operation and the flush into the choice of operand.
    const Expr par = parity;
    const WireId yKA = andStep(c, n("y.keep.add"), {1 - par, 1 - w(flB)}, D);
    const WireId yKS = andStep(c, n("y.keep.sub"), {par, 1 - w(flB)}, D);
    const WireId yKF = andStep(c, n("y.keep.subfl"), {par, w(flB)}, D);
    const WireId ySA = andStep(c, n("y.swap.add"), {1 - par, 1 - w(flA)}, -D - 1);
    const WireId ySS = andStep(c, n("y.swap.sub"), {par, 1 - w(flA)}, -D - 1);
    const WireId ySF = andStep(c, n("y.swap.subfl"), {par, w(flA)}, -D - 1);
    auto pickY = [&](const std::string& name, const Expr& bv, const Expr& av) {
      return w(c.sum(name, w(c.gate(name + ".ka", yKA, bv)) + w(c.gate(name + ".ks", yKS, 1 - bv)) +
                               w(c.gate(name + ".kf", yKF, Expr(1))) + w(c.gate(name + ".sa", ySA, av)) +
                               w(c.gate(name + ".ss", ySS, 1 - av)) + w(c.gate(name + ".sf", ySF, Expr(1)))));
    };
    std::vector<Expr> mx(24), my(24);  // my: the smaller significand XOR effsub
    for (int i = 0; i < 23; ++i) {
      mx[i] = pick(n(fmt::format("mx[{}]", i)), w(A[i]), w(B[i]));
      my[i] = pickY(n(fmt::format("my[{}]", i)), w(B[i]), w(A[i]));
    }
    mx[23] = pick(n("mx[23]"), 1 - w(ezA), 1 - w(ezB));  // hidden bits
    my[23] = pickY(n("my[23]"), 1 - w(ezB), 1 - w(ezA));
    std::vector<Expr> exBits(8);  // max(E, 1) of the larger operand
    Expr ex;
    for (int j = 0; j < 8; ++j) {
      exBits[j] = pick(n(fmt::format("ex[{}]", j)), w(A[23 + j]) + (j == 0 ? w(ezA) : Expr(0)),
                       w(B[23 + j]) + (j == 0 ? w(ezB) : Expr(0)));
      ex += (int64_t{1} << j) * exBits[j];
    }
    const Expr sx = pick(n("sx"), sa, sbe);
    // Shift one-hot oh[k] = [|d| = k], k <= 25, and the "big" bucket |d| >= 26 (sticky only).
    std::vector<WireId> oh(kMaxShift + 1);
    for (int k = 0; k <= kMaxShift; ++k) {
      const Expr eq = k == 0 ? t[0] - t[1] : t[k] - t[k + 1] + t[-k] - t[-k + 1];
      oh[k] = c.step(n(fmt::format("oh[{}]", k)), eq - 1);
    }
    const WireId ohBig = c.step(n("oh.big"), t[kMaxShift + 1] - t[-kMaxShift]);
    // The sign of an exact zero: -0 + -0 = -0, +0 + +0 = +0, otherwise -0 only rounding down.
    const WireId zs1 = andStep(c, n("zs1"), {sa, sbe, w(zz)});
    const WireId zs2 = andStep(c, n("zs2"), {rm}, sa + sbe - w(zz));

    // ---- level 4: align the smaller significand (complemented for a subtraction: the
    // positions above and below it read effsub) ----
    const Expr es = w(effsub);
    auto my3 = [&](int j) { return j >= 3 && j < kWin ? my[j - 3] : es; };
    std::vector<Expr> X(kWin), Yc(kWin);
    X[0] = es;  // subtraction: x + ~y + 1
    for (int i = 1; i < kWin; ++i) {
      X[i] = i >= 3 ? mx[i - 3] : Expr(0);
      Expr y;
      for (int k = 0; k <= kMaxShift; ++k) y += w(c.gate(n(fmt::format("y[{}].{}", i, k)), oh[k], my3(i + k)));
      y += w(c.gate(n(fmt::format("y[{}].big", i)), ohBig, es));
      Yc[i] = w(c.sum(n(fmt::format("y[{}]", i)), y));
    }
    {
      // Sticky: the OR of the bits shifted out (add), or its complement, the AND of the
      // complemented bits (sub): [P - 1 - (count - 1) effsub >= 0] over the shifted-out sum P.
      Expr stl, none, prefix, all;
      for (const Expr& m : my) all += m;
      for (int k = 0; k <= kMaxShift; ++k) {
        if (k < 3) {  // nothing shifted out: sticky 0, its complement 1
          none += w(c.gate(n(fmt::format("st.{}", k)), oh[k], es));
          continue;
        }
        prefix += my[k - 3];
        stl += w(andStep(c, n(fmt::format("st.{}", k)), {w(oh[k])}, prefix - 1 - (k - 3) * es));
      }
      stl += w(andStep(c, n("st.big"), {w(ohBig)}, all - 1 - 23 * es));
      Yc[0] = w(c.sum(n("ysticky0"), none)) + stl;
    }
    const Expr noInf = rz + w(c.sum(n("noinf"), w(andStep(c, n("noinf.p"), {rp, sx})) + w(andStep(c, n("noinf.m"), {rm, 1 - sx}))));
    const WireId zsign = c.step(n("zsign"), w(zs1) + w(zs2) - 1);

    // ---- levels 5-6: add ----
    Bus Sb = addBuses(c, n("sum"), X, Yc, 0, true);
    std::vector<Expr> S(kWin + 1);
    for (int i = 0; i < kWin; ++i) S[i] = w(Sb[i]);
    S[kWin] = w(Sb[kWin]) - w(effsub);  // a subtraction always carries out (x >= y)
    auto Sat = [&](int j) { return j >= 0 && j <= kWin ? S[j] : Expr(0); };

    // ---- level 7: leading one, clamped: g[p] = [p' >= p], p' = max(leading one, 27 - ex) ----
    std::vector<WireId> g(kWin + 1);
    {
      Expr above;
      for (int p = kWin; p >= 0; --p) {
        above += S[p];
        // [a bit at or above p] or [27 - ex >= p]; 282 outweighs 27 - ex - p >= -281.
        g[p] = c.step(n(fmt::format("g[{}]", p)), 282 * above + 27 - ex - p);
      }
    }
    auto G = [&](int p) { return p <= kWin ? w(g[p]) : Expr(0); };
    Expr allS;
    for (const Expr& s : S) allS += s;
    const WireId Szero = c.step(n("szero"), -allS);

    // ---- level 8: normalise (R = S >> (p' - 23), telescoped over g) ----
    std::vector<Expr> R(24);
    for (int i = 0; i < 24; ++i) {
      Expr r;
      for (int p = 0; p <= kWin; ++p) {
        const Expr v = Sat(i + p - 23) - Sat(i + p - 24);
        if (v.terms.empty() && v.constant == 0) continue;
        r += w(c.gate(n(fmt::format("R[{}].{}", i, p)), g[p], v));
      }
      R[i] = w(c.sum(n(fmt::format("R[{}]", i)), r));
    }
    Expr guardT, stickyT;
    for (int p = 24; p <= kWin; ++p) guardT += w(c.gate(n(fmt::format("guard.{}", p)), g[p], Sat(p - 24) - Sat(p - 25)));
    for (int p = 25; p <= kWin; ++p) {
      Expr low;
      for (int i = 0; i <= p - 25; ++i) low += S[i];
      stickyT += w(andStep(c, n(fmt::format("sticky.{}", p)), {G(p), 1 - G(p + 1)}, low - 1));
    }
    const Expr guard = w(c.sum(n("guard"), guardT)), sticky = w(c.sum(n("sticky"), stickyT));
    // E'' = ex + p' - 27 + R[23] (the hidden bit is S[p']): the exponent field before
    // rounding, in [0, 255] for a non-zero sum; its bits are those of ex + (p' + S[p'] + 485)
    // mod 512. The one-hot r_p = g_p - g_{p+1} selects p + 485 + S_p: linear in g for the
    // p + 485 part, telescoped gates for the S_p part.
    std::vector<Expr> eA(9), eB(9);
    for (int j = 0; j < 9; ++j) {
      eA[j] = j < 8 ? exBits[j] : Expr(0);
      auto bit = [j](int v) { return static_cast<int64_t>((v >> j) & 1); };
      Expr hid;
      for (int p = 0; p <= kWin; ++p) {
        if (bit(p + 485)) eB[j] += G(p) - G(p + 1);
        // r_p S_p (bit(p + 486) - bit(p + 485)) = sum_p g_p (S_p delta_p - S_{p-1} delta_{p-1})
        const int64_t dp = bit(p + 486) - bit(p + 485), dq = p > 0 ? bit(p + 485) - bit(p + 484) : 0;
        const Expr v = dp * S[p] - (p > 0 ? dq * S[p - 1] : Expr(0));
        if (!v.terms.empty()) hid += w(c.gate(n(fmt::format("ehid[{}].{}", j, p)), g[p], v));
      }
      if (!hid.terms.empty()) eB[j] += w(c.sum(n(fmt::format("ehid[{}]", j)), hid));
    }
    const Bus Ebits = addBuses(c, n("eadj"), eA, eB, 0);
    const WireId Zr = c.step(n("zero"), w(zz) + w(Szero) - 1);

    // ---- level 9: round ----
    const Expr inc = w(c.sum(n("inc"), w(andStep(c, n("inc.rn"), {rn, guard}, sticky + R[0] - 1)) +
                                           w(andStep(c, n("inc.rm"), {rm, sx}, guard + sticky - 1)) +
                                           w(andStep(c, n("inc.rp"), {rp, 1 - sx}, guard + sticky - 1))));

    // ---- level 10: pack T = (E'' << 23) | R[0..22], Z = T + inc (an incrementer: the carry
    // into bit j is inc and all lower bits; a round-up carries into the exponent) ----
    std::vector<Expr> T(31);
    for (int i = 0; i < 23; ++i) T[i] = R[i];
    for (int j = 0; j < 8; ++j) T[23 + j] = w(Ebits[j]);
    std::vector<Expr> carry(32);
    carry[0] = inc;
    {
      Expr low = inc;
      for (int j = 1; j <= 31; ++j) {
        low += T[j - 1];
        carry[j] = w(c.step(n(fmt::format("rc[{}]", j)), low - j - 1));  // inc and j bits
      }
    }
    std::vector<Expr> Z(31);
    for (int j = 0; j < 31; ++j) Z[j] = T[j] + carry[j] - 2 * carry[j + 1];
    Expr F = 256 * carry[31];  // a carry out of bit 30: T was already past the largest finite
    for (int j = 0; j < 8; ++j) F += (int64_t{1} << j) * Z[23 + j];

    // ---- level 11: the exponent field's classes ----
    const Expr fOvf = w(c.step(n("f.ovf"), F - 255)), f127 = w(c.step(n("f.ge1"), F - 127)), f0 = w(c.step(n("f.sub"), -F));

    // ---- level 12: select ----
    const Expr nN = 1 - w(N), nI = 1 - w(I), nZ = 1 - w(Zr), nsat = 1 - sat;
    const Expr ovf = w(andStep(c, n("ovf"), {nN, nI, nZ, nsat, fOvf}));
    const Expr ovfInf = w(andStep(c, n("ovf.inf"), {nN, nI, nZ, nsat, 1 - noInf, fOvf}));
    const Expr ovfMax = w(andStep(c, n("ovf.max"), {nN, nI, nZ, nsat, noInf, fOvf}));
    const Expr infOut = w(andStep(c, n("inf.out"), {w(I), nN, nsat}));
    const Expr nanOut = w(andStep(c, n("nan.out"), {w(N), nsat}));
    const Expr one = w(andStep(c, n("sat.one"), {sat, nN, nI, nZ, 1 - sx, f127})) +
                     w(andStep(c, n("sat.inf"), {sat, nN, w(I), 1 - sx}));
    Bus out(32);
    for (int i = 0; i < 31; ++i) {
      const Expr& z = Z[i];
      const std::string bn = n(fmt::format("d[{}]", i));
      Expr r = w(andStep(c, bn + ".norm", {z, nN, nI, nZ, nsat, 1 - fOvf})) +
               w(andStep(c, bn + ".sat", {z, nN, nI, nZ, sat, 1 - sx, 1 - f127})) + nanOut;
      if (i < 23) {  // ftz: a subnormal result (field 0) flushes to a signed zero
        r -= w(andStep(c, bn + ".ftz", {z, nN, nI, nZ, nsat, ftz, f0}));
        r -= w(andStep(c, bn + ".satftz", {z, nN, nI, nZ, sat, 1 - sx, ftz, f0}));
        r += ovfMax;
      } else {
        r += infOut + (i == 23 ? ovfInf : ovf);
        if (i < 30) r += one;
      }
      out[i] = c.sum(bn, r);
    }
    out[31] = c.sum(n("d[31]"), w(andStep(c, n("d[31].x"), {nsat, nN, nZ, sx})) +
                                     w(andStep(c, n("d[31].z"), {nsat, nN, w(Zr), w(zsign)})));
    c.outputBus(n("d"), out);
    lb.results.push_back(out);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

}  // namespace qgpu::compiler
