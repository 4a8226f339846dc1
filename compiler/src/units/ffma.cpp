// FFMA f32 (machine FFMA, docs/machine.md §1.4): d = a * b + c with one rounding, in every
// rounding mode with ftz and sat, for `lanes` lanes sharing the selectors.
//
// The exact product P (48 bits, f32_product.cpp) and the addend are summed in a 79-bit window
// whose bit w weighs 2^(w - 4) units of P's least significant bit: w0 holds the +1 of a
// subtraction, w1 a sticky bit for the addend's bits below w2, P sits at w4..w51, the
// addend's least significant bit at w4 + delta (delta = Ec' - Ea' - Eb' + 150, the exponent
// of its lsb less P's). When delta > 50 the product lies entirely below the addend's
// rounding bits: that case (and a zero product) is the shortcut below, c itself or its
// neighbour toward the tiny product by the rounding mode. Otherwise every bit that can
// reach the rounding position is in the window (the result's lsb is at most one below
// P's lsb: cancellation needs the addend's top next to P's, so its bits are all >= w3).
//
// With X = P and Y the aligned addend, the window computes D1 = X + Y' (+1) and
// D1' = X + Y' with Y' = Y xor effsub: |X - Y| is D1 when it carried out (or for an
// addition), else ~D1'. Both chains go through the leading-one thresholds; the rest is the
// f32 multiplier's rounding back end.
//
// Levels:
//   1     class flags, partial products, the effective subtraction's parity
//   2-6   P's bits (digitsToBits, every bit a chain); in parallel: gk[p] = [kappa >= p]
//         (2), the addend's shift thresholds (2), coarse shift by 8 (3), fine shift and
//         sticky (4), xor effsub (5); Ea' + Eb' (2-3); the shortcut (2-4)
//   7-8   the two window sums
//   9     g1[p] / g2[p] = [p' >= p] per chain, gl1 / gl2 = [lead >= p], the result's sign
//   10    R23, coarse shift of |D| by 8q, [r >= k], guard, R0, sticky, E0 + 1 and E0 + 2 (10-11)
//   11    fine shift, round increment
//   12    carries of R + inc
//   13    the exponent field's bits and classes
//   14    final select (f32_select.cpp)
#include <fmt/format.h>

#include <map>

#include "f32_product.h"
#include "f32_round.h"
#include "f32_select.h"
#include "ffma.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {
constexpr int kWin = 79;               // window bits
constexpr int kCap = kWin + 24;        // p' clamps here: beyond, only sticky remains
constexpr int kPLow = 4;               // P's bit 0 in the window
constexpr int kDeltaMax = 50;          // the addend's lsb at most at w54
constexpr int kShiftMax = kDeltaMax + 25;  // s = delta + 25: the addend's lsb at w(s - 21)
}  // namespace

Bus buildFfma(Circuit& c, const std::string& unit, const F32Modes& modes, const Bus& A, const Bus& B, const Bus& Cb) {
  const Expr &rz = modes.rz, &rm = modes.rm, &rp = modes.rp, &ftz = modes.ftz;
  auto n = [&unit](const std::string& s) { return fmt::format("{}.{}", unit, s); };

  // ---- level 1 ----
  const F32Operand a = unpackF32(c, n("a"), A, ftz), b = unpackF32(c, n("b"), B, ftz), cc = unpackF32(c, n("c"), Cb, ftz);
  const Expr sp = a.sign + b.sign - 2 * w(c.step(n("sp2"), a.sign + b.sign - 2));  // the product's sign
  const Expr sc = cc.sign;
  const Expr s3 = a.sign + b.sign + sc;
  const WireId effsubW = c.step(n("effsub"), s3 - 2 * w(c.step(n("s3.2"), s3 - 2)) - 1);  // odd parity (level 2)
  const Expr effsub = w(effsubW);
  const Bus P = significandProduct(c, n("p"), a, b, true);
  const Expr delta = cc.effExp() - a.effExp() - b.effExp() + 150;
  const Expr kappa = 178 - a.effExp() - b.effExp();  // p' >= kappa: the result's lsb at or above 2^-149

  // ---- classes (levels 2-4) ----
  const WireId pInf = c.step(n("p.inf"), w(a.inf) + w(b.inf) - 1);
  const WireId pZ = c.step(n("p.zero"), w(a.zero) + w(b.zero) - 1);
  const WireId nan1 = c.step(n("nan.infzero"), w(a.inf) + w(b.zero) - 2);
  const WireId nan2 = c.step(n("nan.zeroinf"), w(a.zero) + w(b.inf) - 2);
  const WireId nan3 = andStep(c, n("nan.infinf"), {effsub, w(cc.inf), w(pInf)});  // inf - inf
  const WireId N = c.step(n("nan"), w(a.nan) + w(b.nan) + w(cc.nan) + w(nan1) + w(nan2) + w(nan3) - 1);
  const WireId I = c.step(n("inf"), w(a.inf) + w(b.inf) + w(cc.inf) - 1);
  const Expr infSign = w(c.sum(n("inf.sign"), w(andStep(c, n("inf.sign.p"), {w(pInf), sp})) +
                                                  w(andStep(c, n("inf.sign.c"), {1 - w(pInf), sc}))));
  const WireId bothZero = c.step(n("zz"), w(pZ) + w(cc.zero) - 2);
  // -0 + -0 = -0, +0 + +0 = +0, else -0 only rounding down (also for an exact cancellation).
  const Expr zsBoth = w(c.sum(n("zs.both"), w(andStep(c, n("zs.rm"), {rm}, sp + sc - 1, 1)) +
                                                w(andStep(c, n("zs.other"), {1 - rm, sp, sc}))));
  const Expr zeroSign = w(c.sum(n("zero.sign"), w(andStep(c, n("zero.sign.zz"), {w(bothZero), zsBoth})) +
                                                    w(andStep(c, n("zero.sign.cancel"), {1 - w(bothZero), rm}))));

  // ---- the shortcut: c exactly, or its neighbour (levels 2-5) ----
  // Taken when c is not zero and the product is zero or below c's rounding bits (delta >
  // 50: |ab| < ulp(c) / 8). The product, if not zero, moves c away from zero (addition) or
  // toward it (subtraction) by less than an eighth of an ulp.
  const WireId big = andStep(c, n("big"), {1 - w(cc.zero)}, delta - (kDeltaMax + 1) + 420 * w(pZ));
  const Expr live = 1 - w(pZ);
  const WireId up = andStep(c, n("big.up"), {live, 1 - effsub}, w(andStep(c, n("big.up.p"), {rp, 1 - sc})) +
                                                                  w(andStep(c, n("big.up.m"), {rm, sc})) - 1, 0);
  const WireId down = andStep(c, n("big.down"), {live, effsub},
                              rz + w(andStep(c, n("big.down.p"), {rp, sc})) + w(andStep(c, n("big.down.m"), {rm, 1 - sc})) - 1, 0);
  F32Candidate shortcut;
  {
    // |c| + up - down on the 31-bit pattern: carries [up and bits below all 1], borrows
    // [down and bits below all 0].
    std::vector<Expr> inc(32), dec(32);
    inc[0] = w(up);
    dec[0] = w(down);
    std::vector<Expr> ones = {w(up)}, zeros = {w(down)};
    for (int j = 1; j <= 31; ++j) {
      ones.push_back(w(Cb[static_cast<size_t>(j - 1)]));
      zeros.push_back(1 - w(Cb[static_cast<size_t>(j - 1)]));
      inc[j] = w(andStep(c, n(fmt::format("big.inc[{}]", j)), ones));
      dec[j] = w(andStep(c, n(fmt::format("big.dec[{}]", j)), zeros));
    }
    shortcut.bits.resize(31);
    Expr field;
    for (int i = 0; i < 31; ++i) {
      shortcut.bits[static_cast<size_t>(i)] =
          w(c.sum(n(fmt::format("big.d[{}]", i)), w(Cb[static_cast<size_t>(i)]) + inc[i] - 2 * inc[i + 1] - dec[i] + 2 * dec[i + 1]));
      if (i >= 23) field += (int64_t{1} << (i - 23)) * shortcut.bits[static_cast<size_t>(i)];
    }
    shortcut.overflow = w(c.step(n("big.f.ovf"), field - 255));
    shortcut.atLeastOne = w(c.step(n("big.f.ge1"), field - 127));
    shortcut.subnormal = w(c.step(n("big.f.sub"), -field));
    shortcut.chosen = w(big);
  }

  // ---- the addend in the window (levels 2-5) ----
  // s = delta + 25 in 0..75; ts[k] = [s >= k]; s = 8q + r: coarse by 8q, fine by r. A zero
  // addend (an ftz-flushed subnormal keeps its fraction bits) is shifted out of everything.
  std::vector<Expr> ts(kShiftMax + 2);
  std::vector<WireId> tsW(kShiftMax + 2);
  for (int k = 0; k <= kShiftMax + 1; ++k) {
    tsW[static_cast<size_t>(k)] = c.step(n(fmt::format("ts[{}]", k)), delta + 25 - k - 1000 * w(cc.zero));
    ts[static_cast<size_t>(k)] = w(tsW[static_cast<size_t>(k)]);
  }
  auto mc = [&](int j) {  // the addend's significand bits, the hidden one [Ec >= 1]
    if (j < 0 || j > 23) return Expr(0);
    return j == 23 ? 1 - w(cc.expZero) : w(Cb[static_cast<size_t>(j)]);
  };
  Expr sNum, qNum;
  for (int k = 1; k <= kShiftMax; ++k) sNum += ts[static_cast<size_t>(k)];
  for (int q = 1; q * 8 <= kShiftMax; ++q) qNum += ts[static_cast<size_t>(8 * q)];
  const Expr rS = w(c.sum(n("c.r"), sNum - 8 * qNum));
  std::vector<WireId> hc(8);
  for (int k = 1; k < 8; ++k) hc[static_cast<size_t>(k)] = c.step(n(fmt::format("c.h[{}]", k)), rS - k);
  // Coarse: Cc[u] = mc[u - 8q] (zero when s < 0), telescoped over ts[8q].
  std::map<int, Expr> Cc;
  auto coarseC = [&](int pos8) -> Expr {
    auto it = Cc.find(pos8);
    if (it != Cc.end()) return it->second;
    Expr v;
    for (int q = 0; q * 8 <= kShiftMax; ++q) {
      const Expr d = mc(pos8 - 8 * q) - mc(pos8 - 8 * q + 8);
      if (!d.terms.empty() || d.constant != 0) v += w(c.gate(n(fmt::format("c.C[{}].{}", pos8, q)), tsW[static_cast<size_t>(8 * q)], d));
    }
    if (!v.terms.empty()) v = w(c.sum(n(fmt::format("c.C[{}]", pos8)), v));
    return Cc[pos8] = v;
  };
  // Fine: Cf[x] = Cc[x - r] = mc[x - s]; the window bit w holds Cf[w + 21].
  std::vector<Expr> Y(kWin);
  for (int wb = 2; wb < kWin; ++wb) {
    const int x = wb + 21;
    Expr v = coarseC(x);
    for (int k = 1; k < 8; ++k) {
      const Expr d = coarseC(x - k) - coarseC(x - k + 1);
      if (!d.terms.empty()) v += w(c.gate(n(fmt::format("c.Y[{}].{}", wb, k)), hc[static_cast<size_t>(k)], d));
    }
    // One channel per window bit, written by its gates' neurons: else each of the ~530 gates
    // would hold a channel of its own until Yx reads it.
    Y[static_cast<size_t>(wb)] = v.terms.empty() ? v : w(c.channel(n(fmt::format("c.Y[{}]", wb)), v));
  }
  // The addend's bits below w2 (j < 23 - s), or all of it when s < 0: one-hot over s.
  Expr stC;
  for (int s = 0; s <= 22; ++s) {
    Expr low;
    for (int j = 0; j < 23 - s; ++j) low += mc(j);
    stC += w(andStep(c, n(fmt::format("c.st.{}", s)), {ts[static_cast<size_t>(s)], 1 - ts[static_cast<size_t>(s + 1)]}, low - 1));
  }
  {
    Expr all;
    for (int j = 0; j <= 23; ++j) all += mc(j);
    stC += w(andStep(c, n("c.st.below"), {1 - ts[0], 1 - w(cc.zero)}, all - 1));
  }
  Y[1] = w(c.sum(n("c.sticky"), stC));
  // Y' = Y xor effsub as two thresholds per bit (0/1 ranges for the adder); w0: effsub.
  std::vector<Expr> Yx(kWin), X1(kWin), X0(kWin);
  Yx[0] = effsub;
  for (int wb = 1; wb < kWin; ++wb) {
    const Expr& y = Y[static_cast<size_t>(wb)];
    Yx[static_cast<size_t>(wb)] = w(c.sum(n(fmt::format("Yx[{}]", wb)), w(c.step(n(fmt::format("Yx[{}].y", wb)), y - effsub - 1)) +
                                                                         w(c.step(n(fmt::format("Yx[{}].e", wb)), effsub - y - 1))));
  }
  for (int wb = 0; wb < kWin; ++wb) {
    const int i = wb - kPLow;
    X0[static_cast<size_t>(wb)] = i >= 0 && i < 48 ? w(P[static_cast<size_t>(i)]) : Expr(0);
    X1[static_cast<size_t>(wb)] = wb == 0 ? effsub : X0[static_cast<size_t>(wb)];
  }

  // ---- levels 7-8: the window sums ----
  const Bus D1 = addBuses(c, n("D1"), X1, Yx, 0, true);  // X - Y + 2^79 (sub) or X + Y
  const Bus D0 = addBuses(c, n("D0"), X0, Yx, 0);        // X - Y - 1 (sub)
  const Expr cout = w(D1[kWin]);
  const Expr pos = cout + 1 - effsub, neg = effsub - cout;  // |D| = D1, or ~D0
  auto absD = [&](int chain, int wb) -> Expr {
    if (wb < 0 || wb >= kWin) return Expr(0);
    return chain == 0 ? w(D1[static_cast<size_t>(wb)]) : 1 - w(D0[static_cast<size_t>(wb)]);
  };

  // ---- level 9: g[chain][p] = [chain and p' >= p], p' = max(lead, kappa) ----
  std::vector<WireId> gk(kCap + 1);
  for (int p = 1; p <= kCap; ++p) gk[static_cast<size_t>(p)] = c.step(n(fmt::format("gk[{}]", p)), kappa - p);
  std::vector<std::vector<WireId>> gW(2, std::vector<WireId>(kCap + 1));
  Expr glSum, pPrime;
  for (int ch = 0; ch < 2; ++ch) {
    const Expr on = ch == 0 ? pos : neg;
    const std::string cn = ch == 0 ? "pos" : "neg";
    gW[ch][0] = c.step(n(cn + ".g[0]"), on - 1);
    Expr S;  // bits at or above p
    for (int p = kCap; p >= 1; --p) {
      if (p < kWin) S += absD(ch, p);
      const std::string gn = n(fmt::format("{}.g[{}]", cn, p));
      if (p >= kWin) {
        gW[ch][static_cast<size_t>(p)] = c.step(gn, w(gk[static_cast<size_t>(p)]) + on - 2);
      } else {
        gW[ch][static_cast<size_t>(p)] = andStep(c, gn, {on}, S + kWin * w(gk[static_cast<size_t>(p)]) - 1, 2 * kWin);
        glSum += w(andStep(c, n(fmt::format("{}.gl[{}]", cn, p)), {on}, S - 1, kWin));
      }
      pPrime += w(gW[ch][static_cast<size_t>(p)]);
    }
  }
  auto G = [&](int ch, int p) -> Expr { return p >= 0 && p <= kCap ? w(gW[ch][static_cast<size_t>(p)]) : Expr(0); };
  // The result's sign: c's on the shortcut, else |X| >= |Y| ? the product's : c's.
  const Expr sx = w(c.sum(n("sx"), w(andStep(c, n("sx.big"), {w(big), sc})) + w(andStep(c, n("sx.p"), {1 - w(big), pos, sp})) +
                                       w(andStep(c, n("sx.c"), {1 - w(big), neg, sc}))));
  Expr allD1;
  for (int wb = 0; wb < kWin; ++wb) allD1 += w(D1[static_cast<size_t>(wb)]);
  const WireId cancel = andStep(c, n("cancel"), {1 - w(big), live, pos}, -allD1, 0);  // |D| = 0: an exact zero

  // ---- level 10 ----
  const WireId R23 = c.step(n("R23"), glSum - pPrime);  // [lead >= p']
  Expr qs;
  for (int ch = 0; ch < 2; ++ch)
    for (int q = 1; q * 8 <= kCap; ++q) qs += G(ch, 8 * q);
  const Expr r = w(c.sum(n("r"), pPrime - 8 * qs));
  std::vector<WireId> h(8);
  for (int k = 1; k < 8; ++k) h[static_cast<size_t>(k)] = c.step(n(fmt::format("h[{}]", k)), r - k);
  // Coarse: C[j] = |D|[j + 8q - 31], j = 7..38, per chain telescoped over g[8q].
  std::map<int, Expr> Cm;
  auto C = [&](int j) -> Expr {
    auto it = Cm.find(j);
    if (it != Cm.end()) return it->second;
    Expr v;
    for (int ch = 0; ch < 2; ++ch)
      for (int q = 0; q * 8 <= kCap; ++q) {
        const Expr d = absD(ch, j + 8 * q - 31) - (q > 0 ? absD(ch, j + 8 * q - 39) : Expr(0));
        if (!d.terms.empty() || d.constant != 0)
          v += w(c.gate(n(fmt::format("C[{}].{}.{}", j, ch, q)), gW[ch][static_cast<size_t>(8 * q)], d));
      }
    v = v.terms.empty() ? v : w(c.sum(n(fmt::format("C[{}]", j)), v));
    return Cm[j] = v;
  };
  // |D|[p' - t] straight from the g's: sum_p g[p] (|D|[p - t] - |D|[p - t - 1]).
  auto fromG = [&](const std::string& name, int t) {
    Expr v;
    for (int ch = 0; ch < 2; ++ch)
      for (int p = 0; p <= kCap; ++p) {
        const Expr d = absD(ch, p - t) - (p > 0 ? absD(ch, p - t - 1) : Expr(0));
        if (!d.terms.empty() || d.constant != 0) v += w(c.gate(fmt::format("{}.{}.{}", name, ch, p), gW[ch][static_cast<size_t>(p)], d));
      }
    return w(c.sum(name, v));
  };
  CoarseSignificand cs{C, h, fromG(n("guard"), 24), fromG(n("R0"), 23), Expr(), R23};
  Expr stickyT;
  for (int ch = 0; ch < 2; ++ch)
    for (int p = 25; p <= kCap; ++p) {
      Expr low;
      for (int i = 0; i < std::min(p - 24, kWin); ++i) low += absD(ch, i);
      stickyT += w(andStep(c, n(fmt::format("sticky.{}.{}", ch, p)), {G(ch, p), 1 - G(ch, p + 1)}, low - 1, std::min(p - 24, kWin) - 1));
    }
  cs.sticky = w(c.sum(n("sticky"), stickyT));
  // E0 + 1 and E0 + 2 (mod 256), E0 = (Ea' + Eb') + p' - 178, p' one-hot over both chains.
  const Bus esum = effectiveExponentSum(c, n("esum"), a, b);
  std::vector<Expr> onehot(kCap + 1);
  for (int p = 0; p <= kCap; ++p)
    for (int ch = 0; ch < 2; ++ch) onehot[static_cast<size_t>(p)] += G(ch, p) - G(ch, p + 1);
  const Bus E1 = exponentPlus(c, n("E1"), esum, onehot, 178, 1), E2 = exponentPlus(c, n("E2"), esum, onehot, 178, 2);

  // ---- levels 11-13: fine shift and increment, carries, exponent field ----
  F32Candidate main = roundAndPack(c, n("rnd"), cs, E1, E2, a.effExp() + b.effExp() + pPrime - 178, sx, modes);
  main.chosen = 1 - w(big);

  // ---- level 14: select ----
  const Expr zero = w(bothZero) + w(cancel);
  return f32FinalSelect(c, n("sel"), {main, shortcut}, {w(N), w(I), zero, sx, infSign, zeroSign}, modes);
}

Unit ffmaUnit(uint32_t lanes) {
  Unit u{Circuit(fmt::format("ffma32x{}", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const F32Modes modes = addF32ModeSelectors(u);
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    const Bus A = c.inputBus(fmt::format("l{}.a", l), 32), B = c.inputBus(fmt::format("l{}.b", l), 32),
              Cb = c.inputBus(fmt::format("l{}.c", l), 32);
    lb.operands = {A, B, Cb};
    const Bus out = buildFfma(c, fmt::format("l{}", l), modes, A, B, Cb);
    c.outputBus(fmt::format("l{}.d", l), out);
    lb.results.push_back(out);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

}  // namespace qgpu::compiler
