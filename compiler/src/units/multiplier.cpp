// The multiplier (machine MULLO, MULHI, MULWIDE on 32-bit operands, signed and unsigned;
// the same core serves any sum of gated partial products): six MLP levels, no adder tree.
//
//  1. Partial products as gates, aligned to radix-64 digits of the product: for each bit
//     a_i and digit d, a_i * (the bits of b that land in digit d, weighted) — one neuron,
//     a value below 64. Digit sum D_d = sum_i of those (< 32 * 64 for 32-bit operands).
//  2-3. Each digit sum split as D_d = L_d + 64 Q_d by thresholds in two levels (coarse
//     blocks of Q, then the rest), so that Z_d = L_d + Q_{d-1} < 64 + 33: the product is
//     sum_d Z_d 2^(6d) with carries between digits of 0 or 1.
//  4. Per digit generate [Z_d >= 64] and propagate [Z_d >= 63].
//  5. The carry into every digit as one threshold over the generate/propagate pairs below
//     it (the lookahead of adder.cpp, digit by digit).
//  6. The result bits of each digit from Y_d = Z_d + carry (< 98): floor(Y_d / 2) as a sum
//     of thresholds at the even values, every bit a signed sum of those.
// Signed operands: the sign bit's partial products enter with negative weight (single-op
// units) or as correction rows under a `signed` selector (the machine's units); each
// digit sum gets a constant that makes it non-negative, and a constant that cancels those
// offsets modulo 2^bits is added in digits.
#include <fmt/format.h>

#include <algorithm>

#include "qgpu/compiler/error.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {

constexpr uint32_t kDigit = 6;  // digit width: Z_d + carry < 2^(kDigit+1) keeps carries binary
constexpr int64_t kRadix = int64_t{1} << kDigit;

// A wire, or a constant, known to be 0 or 1.
struct MaybeBit {
  Expr e;
  int64_t max = 0;  // 0: constant zero
};

}  // namespace

Bus digitsToBits(Circuit& c, const std::string& name, const std::vector<Expr>& digits, uint32_t lo, uint32_t hi,
                 bool chainLowBits) {
  const size_t nd = (hi + kDigit - 1) / kDigit;
  if (lo >= hi || hi > 64 || digits.size() > nd)
    throw CompileError(fmt::format("{}: digitsToBits wants bits [{}, {}) of at most {} digits", name, lo, hi, nd));
  const uint64_t modMask = hi == 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
  // Offsets: m_d makes digit d non-negative; F = -sum m_d 2^(6d) mod 2^hi, added in digits.
  std::vector<Expr> D(nd);
  std::vector<int64_t> Dmax(nd, 0);
  uint64_t offsets = 0;
  for (size_t d = 0; d < digits.size(); ++d) {
    const Range r = c.rangeOf(digits[d]);
    const int64_t m = r.lo < 0 ? -r.lo : 0;
    D[d] = digits[d] + m;  // named below, with its constant
    Dmax[d] = r.hi + m;
    offsets += static_cast<uint64_t>(m) << (kDigit * d);
  }
  const uint64_t F = (0 - offsets) & modMask;
  for (size_t d = 0; d < nd; ++d) {
    const int64_t f = static_cast<int64_t>((F >> (kDigit * d)) & (kRadix - 1));
    D[d] += f;
    Dmax[d] += f;
    if (!D[d].terms.empty()) D[d] = w(c.sum(fmt::format("{}.D{}", name, d), D[d]));
  }
  const size_t top = nd - 1;  // its carry-out leaves the modulus
  // Levels 2-3: Q_d = floor(D_d / 64), in blocks of 64 * 2^k first, then the remainder.
  std::vector<Expr> Q(nd);
  std::vector<int64_t> Qmax(nd, 0);
  for (size_t d = 0; d < top; ++d) {
    const int64_t qmax = Dmax[d] / kRadix;
    Qmax[d] = qmax;
    if (qmax == 0) continue;
    // k = 0: one level of qmax thresholds; k > 0: blocks of B = 64 * 2^k, then < 2^k more.
    int bestK = 0;
    int64_t bestCost = qmax;
    for (int k = 1; k <= 6; ++k) {
      const int64_t B = kRadix << k, cost = Dmax[d] / B + std::min(B - 1, Dmax[d]) / kRadix;
      if (cost < bestCost) {
        bestCost = cost;
        bestK = k;
      }
    }
    const int64_t B = kRadix << bestK;
    Expr coarse;  // the number of whole blocks of B in D_d
    for (int64_t t = 1; bestK > 0 && t * B <= Dmax[d]; ++t)
      coarse += w(c.step(fmt::format("{}.q{}.blk{}", name, d, t), D[d] - t * B));
    // Each of the two is a chain (unit steps on one form): one channel, however many steps.
    if (coarse.terms.size() > 1) coarse = w(c.sum(fmt::format("{}.q{}.blocks", name, d), coarse));
    const Expr R = bestK > 0 ? w(c.sum(fmt::format("{}.q{}.rest", name, d), D[d] - B * coarse)) : D[d];  // in [0, B)
    const int64_t Rmax = bestK > 0 ? std::min(B - 1, Dmax[d]) : Dmax[d];
    Expr fine;
    for (int64_t t = 1; t * kRadix <= Rmax; ++t)
      fine += w(c.step(fmt::format("{}.q{}.{}", name, d, t), R - t * kRadix));
    if (fine.terms.size() > 1) fine = w(c.sum(fmt::format("{}.q{}.fine", name, d), fine));
    Q[d] = (B / kRadix) * coarse + fine;
  }
  // Z_d = D_d - 64 Q_d + Q_{d-1}: below 64 + Qmax_{d-1} (the top digit: its whole range).
  std::vector<Expr> Z(nd);
  std::vector<int64_t> Zmax(nd);
  for (size_t d = 0; d < nd; ++d) {
    Z[d] = D[d] - kRadix * Q[d];
    Zmax[d] = d == top ? Dmax[d] : std::min(kRadix - 1, Dmax[d]);
    if (d > 0) {
      Z[d] += Q[d - 1];
      Zmax[d] += Qmax[d - 1];
    }
    if (!Z[d].terms.empty()) Z[d] = w(c.sum(fmt::format("{}.Z{}", name, d), Z[d]));
    if (d != top && Zmax[d] + 1 >= 2 * kRadix)
      throw CompileError(fmt::format("{}: digit {} can reach {}: its carry would not be a bit", name, d, Zmax[d]));
  }
  // Level 4: generate / propagate of every digit below the top.
  std::vector<MaybeBit> gen(nd), prop(nd);
  for (size_t d = 0; d < top; ++d) {
    if (Zmax[d] >= kRadix) gen[d] = {w(c.step(fmt::format("{}.g{}", name, d), Z[d] - kRadix)), 1};
    if (d > 0 && Zmax[d] >= kRadix - 1) prop[d] = {w(c.step(fmt::format("{}.p{}", name, d), Z[d] - (kRadix - 1))), 1};
  }
  // Level 5: carry into digit d = [V_d >= 2^(d-1)], V_d = gen_0 + sum_{1<=k<d} (gen_k + prop_k) 2^(k-1).
  std::vector<MaybeBit> carry(nd);
  carry[0] = {Expr(0), 0};
  if (nd > 1) carry[1] = gen[0];
  Expr V = gen[0].e;  // small: gen/prop bits only
  int64_t Vmax = gen[0].max;
  for (size_t d = 2; d < nd; ++d) {
    const int64_t k = int64_t{1} << (d - 2);
    V += k * (gen[d - 1].e + prop[d - 1].e);
    Vmax += k * (gen[d - 1].max + prop[d - 1].max);
    const int64_t T = int64_t{1} << (d - 1);
    if (Vmax >= T && kDigit * d < hi && kDigit * (d + 1) > lo) carry[d] = {w(c.step(fmt::format("{}.c{}", name, d), V - T)), 1};
  }
  // Level 6: the bits of Y_d = Z_d + carry_d; thresholds at multiples of 2^j0, j0 the
  // lowest bit wanted of the digit (at least 1: bit 0 is Y_d - 2 floor(Y_d / 2)).
  Bus out;
  for (size_t d = 0; d < nd; ++d) {
    const uint32_t base = kDigit * static_cast<uint32_t>(d);
    const uint32_t j0 = std::max(lo, base) - base, j1 = std::min(hi, base + kDigit) - base;
    if (j0 >= j1) continue;
    Expr Y = Z[d] + carry[d].e;
    if (!Y.terms.empty()) Y = w(c.sum(fmt::format("{}.Y{}", name, d), Y));
    const int64_t Ymax = Zmax[d] + carry[d].max;
    // Thresholds every 2^unit; unit 0 (chainLowBits) makes bit 0 a chain too (twice the
    // thresholds), so that every bit's range is 0..1.
    const uint32_t unit = chainLowBits ? j0 : std::max(j0, 1u);
    std::vector<Expr> at(static_cast<size_t>(Ymax >> unit) + 1);  // at[t] = [Y >= t 2^unit]
    for (int64_t t = 1; t <= (Ymax >> unit); ++t)
      at[static_cast<size_t>(t)] = w(c.step(fmt::format("{}.y{}.{}", name, d, t << unit), Y - (t << unit)));
    for (uint32_t j = j0; j < j1; ++j) {
      Expr bit;
      if (j == 0 && unit > 0) {
        // Y - 2 floor(Y / 2): the floor as one named sum of its chain of thresholds, so that
        // the layer plan can give it one channel (the thresholds need none of their own).
        Expr half;
        for (size_t t = 1; t < at.size(); ++t) half += at[t];
        bit = Y;
        if (!half.terms.empty()) bit -= 2 * w(c.sum(fmt::format("{}.half{}", name, d), half));
      } else {
        const int64_t stride = int64_t{1} << (j - unit);
        for (int64_t t = 1; t * stride < static_cast<int64_t>(at.size()); ++t)
          bit += (t % 2 ? 1 : -1) * at[static_cast<size_t>(t * stride)];
      }
      out.push_back(c.sum(fmt::format("{}.s[{}]", name, base + j), bit));
    }
  }
  return out;
}

Bus multiplyBuses(Circuit& c, const std::string& name, const Bus& a, const Bus& b, bool isSigned, uint32_t lo,
                  uint32_t hi) {
  const size_t nd = (hi + kDigit - 1) / kDigit;
  std::vector<Expr> digits(nd);
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t sa = isSigned && i + 1 == a.size() ? -1 : 1;
    std::vector<Expr> value(nd);
    for (size_t j = 0; j < b.size() && i + j < hi; ++j) {
      const int64_t sb = isSigned && j + 1 == b.size() ? -1 : 1;
      const size_t s = i + j, d = s / kDigit;
      // -2^(hi-1) = 2^(hi-1) modulo 2^hi: the signed low half is the unsigned one.
      const int64_t sign = s + 1 == hi ? 1 : sa * sb;
      value[d] += sign * (int64_t{1} << (s - kDigit * d)) * w(b[j]);
    }
    for (size_t d = 0; d < nd; ++d)
      if (!value[d].terms.empty()) digits[d] += w(c.gate(fmt::format("{}.pp{}.{}", name, i, d), a[i], value[d]));
  }
  return digitsToBits(c, name, digits, lo, hi);
}

Unit multiplyUnit(uint32_t bits, uint32_t lanes, bool isSigned, MulPart part) {
  static const char* const partNames[] = {"lo", "hi", "wide"};
  Unit u{Circuit(fmt::format("mul.{}.{}{}x{}", partNames[static_cast<int>(part)], isSigned ? "s" : "u", bits, lanes)),
         {},
         {},
         {},
         {}};
  const uint32_t lo = part == MulPart::Hi ? bits : 0, hi = part == MulPart::Lo ? bits : 2 * bits;
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(u.circuit.inputBus(fmt::format("l{}.a", l), bits));
    lb.operands.push_back(u.circuit.inputBus(fmt::format("l{}.b", l), bits));
    lb.results.push_back(multiplyBuses(u.circuit, fmt::format("l{}", l), lb.operands[0], lb.operands[1], isSigned, lo, hi));
    u.circuit.outputBus(fmt::format("l{}.d", l), lb.results[0]);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

std::vector<Expr> productDigits(Circuit& c, const std::string& name, const Bus& a, const Bus& b, WireId aSigned,
                                WireId bSigned, uint32_t hi) {
  const size_t n = a.size(), nd = (hi + kDigit - 1) / kDigit;
  std::vector<Expr> digits(nd);
  for (size_t i = 0; i < n; ++i) {
    std::vector<Expr> value(nd);
    for (size_t j = 0; j < n && i + j < hi; ++j) value[(i + j) / kDigit] += (int64_t{1} << ((i + j) % kDigit)) * w(b[j]);
    for (size_t d = 0; d < nd; ++d)
      if (!value[d].terms.empty()) digits[d] += w(c.gate(fmt::format("{}.pp{}.{}", name, i, d), a[i], value[d]));
  }
  for (int row = 0; row < 2; ++row) {
    const Bus& other = row == 0 ? b : a;
    const WireId sign = row == 0 ? a[n - 1] : b[n - 1], sSigned = row == 0 ? aSigned : bSigned;
    std::vector<Expr> value(nd);
    for (size_t j = 0; j < n && n + j < hi; ++j) value[(n + j) / kDigit] -= (int64_t{1} << ((n + j) % kDigit)) * w(other[j]);
    for (size_t d = 0; d < nd; ++d)
      if (!value[d].terms.empty())
        digits[d] += w(c.step(fmt::format("{}.sx{}.{}", name, row ? "b" : "a", d), w(sign) + w(sSigned) - 2, value[d]));
  }
  return digits;
}

std::vector<Expr> productDigitsTwoWidths(Circuit& c, const std::string& name, const Bus& a, const Bus& b, WireId wide,
                                         WireId signedWide, WireId signedNarrow, uint32_t hi) {
  const size_t n = a.size(), half = n / 2, nd = (hi + kDigit - 1) / kDigit;
  if (n != b.size() || n % 2 != 0) throw CompileError(fmt::format("{}: productDigitsTwoWidths wants even, equal widths", name));
  std::vector<Expr> digits(nd);
  // a_i's row: its partial products with b's low half, and with b's high half (those only
  // where the operands are wide); a's high bits only where wide. A digit that takes both
  // halves of b is two neurons, one gated by a_i, one by [a_i and wide].
  for (size_t i = 0; i < n; ++i) {
    std::vector<Expr> low(nd), high(nd);
    for (size_t j = 0; j < n && i + j < hi; ++j)
      (i < half && j < half ? low : high)[(i + j) / kDigit] += (int64_t{1} << ((i + j) % kDigit)) * w(b[j]);
    for (size_t d = 0; d < nd; ++d) {
      if (!low[d].terms.empty()) digits[d] += w(c.gate(fmt::format("{}.pp{}.{}", name, i, d), a[i], low[d]));
      if (!high[d].terms.empty())
        digits[d] += w(c.step(fmt::format("{}.pp{}.{}w", name, i, d), w(a[i]) + w(wide) - 2, high[d]));
    }
  }
  // The two's-complement rows -2^m (a_(m-1) B + b_(m-1) A) for m = n (wide) and m = n/2
  // (narrow, B and A the low halves), each under its own signed selector.
  for (size_t m : {n, half}) {
    const WireId sSigned = m == n ? signedWide : signedNarrow;
    for (int row = 0; row < 2; ++row) {
      const Bus& other = row == 0 ? b : a;
      const WireId sign = row == 0 ? a[m - 1] : b[m - 1];
      std::vector<Expr> value(nd);
      for (size_t j = 0; j < m && m + j < hi; ++j) value[(m + j) / kDigit] -= (int64_t{1} << ((m + j) % kDigit)) * w(other[j]);
      for (size_t d = 0; d < nd; ++d)
        if (!value[d].terms.empty())
          digits[d] += w(c.step(fmt::format("{}.sx{}{}.{}", name, row ? "b" : "a", m, d), w(sign) + w(sSigned) - 2, value[d]));
    }
  }
  return digits;
}

Unit multiplierUnit(uint32_t lanes) {
  constexpr uint32_t n = 32;
  Unit u{Circuit(fmt::format("mul{}x{}", n, lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WireId sSigned = c.inputBit("sel.signed");
  u.selectors.push_back(sSigned);
  u.selectorNames.push_back("signed");
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(c.inputBus(fmt::format("l{}.a", l), n));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.b", l), n));
    const std::string name = fmt::format("l{}", l);
    std::vector<Expr> digits = productDigits(c, name, lb.operands[0], lb.operands[1], sSigned, sSigned, 2 * n);
    lb.results.push_back(digitsToBits(c, name, digits, 0, 2 * n));
    c.outputBus(fmt::format("l{}.d", l), lb.results[0]);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

Unit mul24Unit(uint32_t lanes, bool high) {
  constexpr uint32_t n = 24, width = 32;
  Unit u{Circuit(fmt::format("mul24.{}x{}", high ? "hi" : "lo", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WireId sSigned = c.inputBit("sel.signed");
  u.selectors.push_back(sSigned);
  u.selectorNames.push_back("signed");
  // lo: (p + c) mod 2^32; hi: bits 47..16 of p, + c = bits 16..47 of p + c * 2^16.
  const uint32_t lo = high ? 16 : 0, hi = lo + width;
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(c.inputBus(fmt::format("l{}.a", l), n));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.b", l), n));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.c", l), width));
    const std::string name = fmt::format("l{}", l);
    std::vector<Expr> digits = productDigits(c, name, lb.operands[0], lb.operands[1], sSigned, sSigned, hi);
    for (uint32_t j = 0; j < width; ++j) digits[(lo + j) / kDigit] += (int64_t{1} << ((lo + j) % kDigit)) * w(lb.operands[2][j]);
    lb.results.push_back(digitsToBits(c, name, digits, lo, hi));
    c.outputBus(fmt::format("l{}.d", l), lb.results[0]);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

Unit mulpUnit(uint32_t lanes, bool shiftLeft32) {
  constexpr uint32_t n = 32, width = 64;
  Unit u{Circuit(fmt::format("mulp{}x{}", shiftLeft32 ? ".shl32" : "", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WireId aSigned = c.inputBit("sel.a_signed"), bSigned = c.inputBit("sel.b_signed");
  u.selectors = {aSigned, bSigned};
  u.selectorNames = {"a_signed", "b_signed"};
  const uint32_t shift = shiftLeft32 ? 32 : 0;
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(c.inputBus(fmt::format("l{}.a", l), n));  // the chosen half of a
    lb.operands.push_back(c.inputBus(fmt::format("l{}.b", l), n));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.c", l), width));
    const std::string name = fmt::format("l{}", l);
    // (P << shift) + c modulo 2^64, the partial products placed at their shifted weights.
    const Bus& a = lb.operands[0];
    std::vector<Expr> digits;
    if (shift == 0) {
      digits = productDigits(c, name, a, lb.operands[1], aSigned, bSigned, width);
    } else {
      // (P mod 2^32) << 32: the low half of the product (signedness does not matter there).
      digits.assign((width + kDigit - 1) / kDigit, Expr());
      for (size_t i = 0; i < n; ++i) {
        std::vector<Expr> value(digits.size());
        for (size_t j = 0; j + i < n; ++j) {
          const size_t s = shift + i + j;
          value[s / kDigit] += (int64_t{1} << (s % kDigit)) * w(lb.operands[1][j]);
        }
        for (size_t d = 0; d < digits.size(); ++d)
          if (!value[d].terms.empty()) digits[d] += w(c.gate(fmt::format("{}.pp{}.{}", name, i, d), a[i], value[d]));
      }
    }
    for (uint32_t j = 0; j < width; ++j) digits[j / kDigit] += (int64_t{1} << (j % kDigit)) * w(lb.operands[2][j]);
    lb.results.push_back(digitsToBits(c, name, digits, 0, width));
    c.outputBus(fmt::format("l{}.d", l), lb.results[0]);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

}  // namespace qgpu::compiler
