// The machine step's integer ALU (alu.h, docs/machine.md §5.2) on the selected operands.
// Every unit computes for every lane whatever the op; selectors shared by the lanes — the
// op, its width class and, for SETP, the compare code and signedness, one level from the
// fetched word — gate each unit's last level, so each result bit is 0 unless its op runs
// and its bit lies within the op's width, and the result select is the sum of the units'
// last-level terms: one exclusiveOr channel per bit, no level of its own.
//
//   op + 1  b XOR SUB's AND (SUB is a + ~b + 1), SETP's chunk digits (8-bit chunks: each
//           width's sign bit tops a chunk)
//   op + 2  the adder's chunk carries;  op + 3  its carries into every chunk
//   op + 4  the result: the adder's sum bits gated by [ADD/SUB and bit fits], the logic ops'
//           thresholds and SETP's code thresholds, delayed to this level (notBefore) so that
//           they write the result channel directly instead of channels of their own
#include "qgpu/compiler/alu.h"

#include <fmt/format.h>

#include "qgpu/compiler/commit.h"

namespace qgpu::compiler {
namespace {

using machine::MCmp;
using machine::MOp;

constexpr uint32_t kWidthClasses = 4;  // 1, 2, 4, 8 bytes

constexpr uint32_t kSignedCodes = 6;    // eq ne lt le gt ge: by the type's signedness
constexpr uint32_t kUnsignedCodes = 4;  // lo ls hi hs: always unsigned

}  // namespace

bool aluOp(MOp op) {
  switch (op) {
    case MOp::Add: case MOp::Sub: case MOp::And: case MOp::Or: case MOp::Xor: case MOp::Not: case MOp::Mov:
    case MOp::Selp: case MOp::Setp: case MOp::Shfl:
      return true;
    default: return false;
  }
}

// How many of the word's `bits` bits at `at` equal value's (bitsMatching on the field).
Expr matches(const Bus& word, uint32_t at, uint32_t bits, uint32_t value) {
  return bitsMatching(Bus(word.begin() + at, word.begin() + at + bits), value);
}

AluWires buildAlu(Circuit& c, const FrontWires& front, const OperandWires& operands) {
  const Bus& word = front.fetch.word;
  const WireId sub = operands.op.at(static_cast<size_t>(MOp::Sub));
  // ---- the adders: a + (b XOR SUB) + SUB, every lane ----
  std::vector<Bus> sums;
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    std::vector<Expr> x, y;
    for (uint32_t i = 0; i < 64; ++i) {
      x.push_back(w(a[i]));
      y.push_back(w(b[i]) + w(sub) - 2 * w(bitAnd(c, fmt::format("l{} b[{}] and SUB", l, i), b[i], sub)));
    }
    sums.push_back(addBuses(c, fmt::format("l{} add", l), x, y, w(sub)));
  }
  // ---- selectors (shared by the lanes): one threshold each on the word's op, ty and fl
  // bits, computed the level before the last one reads them (not live from the fetch on) ----
  const WireId beforeResult = sums[0][63];
  auto selector = [&](const std::string& name, Expr cond) {
    const WireId s = c.step(name, cond);
    c.notBefore(s, beforeResult);
    return s;
  };
  const Expr width = w(word[machine::kWordTyAt]) + 2 * w(word[machine::kWordTyAt + 1]);
  auto isOp = [&](MOp o) { return matches(word, 0, machine::kWordOpBits, static_cast<uint32_t>(o)) - int64_t{machine::kWordOpBits}; };
  // [op and the width holds bits of class k]: a missing op bit (-4) outweighs width - k >= -3.
  auto opFits = [&](MOp o, uint32_t k) {
    return selector(fmt::format("{} width class {}", machine::opName(o), k), 4 * isOp(o) + width - int64_t{k});
  };
  std::vector<Expr> addSel;  // ADD or SUB, per width class
  std::vector<WireId> orSel, andSel, xorSel, notSel, selpSel;
  for (uint32_t k = 0; k < kWidthClasses; ++k) {
    addSel.push_back(w(opFits(MOp::Add, k)) + w(opFits(MOp::Sub, k)));
    orSel.push_back(opFits(MOp::Or, k));
    andSel.push_back(opFits(MOp::And, k));
    xorSel.push_back(opFits(MOp::Xor, k));
    notSel.push_back(opFits(MOp::Not, k));
    selpSel.push_back(opFits(MOp::Selp, k));
  }
  std::vector<WireId> movSel;
  for (uint32_t k = 0; k < kWidthClasses; ++k) movSel.push_back(opFits(MOp::Mov, k));
  // SETP: per code and width, and signedness for eq..ge.
  auto setpSel = [&](uint32_t code, uint32_t t, int s) {
    Expr cond = isOp(MOp::Setp) + matches(word, machine::kWordFlAt, 4, code) - 4 +
                matches(word, machine::kWordTyAt, 2, t) - 2;
    if (s >= 0) cond += matches(word, machine::kWordTyAt + 2, 1, static_cast<uint32_t>(s)) - 1;
    return selector(s >= 0 ? fmt::format("SETP code {} width {} signed {}", code, t, s)
                           : fmt::format("SETP code {} width {}", code, t),
                    cond);
  };
  std::vector<std::vector<std::array<WireId, 2>>> signedSel(kSignedCodes);
  std::vector<std::vector<WireId>> unsignedSel(kUnsignedCodes);
  for (uint32_t k = 0; k < kSignedCodes; ++k)
    for (uint32_t t = 0; t < kWidthClasses; ++t) signedSel[k].push_back({setpSel(k, t, 0), setpSel(k, t, 1)});
  for (uint32_t k = 0; k < kUnsignedCodes; ++k)
    for (uint32_t t = 0; t < kWidthClasses; ++t) unsignedSel[k].push_back(setpSel(kSignedCodes + k, t, -1));

  AluWires out;
  // ---- the active mask: the running lanes whose guard holds (machine::guardedMask) ----
  const Bus g(word.begin() + machine::kWordGAt, word.begin() + machine::kWordGAt + 10);
  Expr allOnes(-10);
  for (WireId bit : g) allOnes += w(bit);
  const WireId noGuard = c.step("no guard", allOnes);
  const Expr negated = w(g[9]);
  for (uint32_t l = 0; l < 4; ++l) {
    const Expr mask = w(front.sequencer.mask[l]), pred = w(front.reads[4 * 3 + l][0]);
    const std::string n = fmt::format("l{} active", l);
    const WireId unguarded = c.step(n + " (no guard)", mask + w(noGuard) - 2);
    const WireId holds = c.step(n + " (guard holds)", mask + pred - negated - 2 * w(noGuard) - 2);
    const WireId negatedHolds = c.step(n + " (negated guard holds)", mask - pred + negated - 2 * w(noGuard) - 2);
    out.active.push_back(c.exclusiveOr(n, {unguarded, holds, negatedHolds}));
  }
  // ---- SHFL (four levels from c: the deepest unit here, so it sets the result's level) ----
  std::vector<WireId> shflMode;
  for (uint32_t m = 0; m < 4; ++m)
    shflMode.push_back(selector(fmt::format("SHFL mode {}", m), isOp(MOp::Shfl) + matches(word, machine::kWordFlAt, 2, m) - 2));
  std::vector<Bus> value, laneB, clamp, segment;
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    const Bus& cc = operands.selected[8 + l];
    value.push_back(Bus(a.begin(), a.begin() + 32));
    laneB.push_back(Bus(b.begin(), b.begin() + 5));
    clamp.push_back(Bus(cc.begin(), cc.begin() + 5));
    segment.push_back(Bus(cc.begin() + 8, cc.begin() + 13));
  }
  const ShuffleWires shfl = buildShuffle(c, "SHFL ", shflMode, out.active, value, laneB, clamp, segment);
  out.shuffleUndefined = shfl.undefined;
  // Every other unit's last-level terms wait for the SHFL's value pick, so that all of them
  // write the result channels directly.
  const WireId resultLevel = shfl.result[0][0];
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    const Bus& p = operands.selected[8 + l];  // SELP's predicate: c's bit 0
    const std::string lane = fmt::format("l{}", l);
    auto late = [&](WireId term) {
      c.notBefore(term, resultLevel);
      return w(term);
    };
    std::vector<WireId> added;
    for (uint32_t i = 0; i < 64; ++i)
      added.push_back(andStep(c, fmt::format("{} ADD/SUB[{}]", lane, i), {w(sums[l][i]), addSel[widthClassOfBit(i)]}));
    for (WireId x : added) late(x);
    // ---- SETP: digits of 8-bit chunks, then every code as one threshold ----
    std::vector<Expr> digit(8), signedDigit(kWidthClasses);
    for (uint32_t m = 0; m < 8; ++m) {
      Expr ua, ub;
      for (uint32_t j = 0; j < 8; ++j) {
        ua += (int64_t{1} << j) * w(a[8 * m + j]);
        ub += (int64_t{1} << j) * w(b[8 * m + j]);
      }
      const std::string n = fmt::format("{} chunk {}", lane, m);
      digit[m] = w(c.step(n + " >", ua - ub - 1)) - w(c.step(n + " <", ub - ua - 1));
      for (uint32_t t = 0; t < kWidthClasses; ++t) {
        if (m + 1 != (1u << t)) continue;
        // The width's sign bit (the chunk's top bit) counts as -2^7: flipped.
        const Expr sa = ua + 128 - 256 * w(a[8 * m + 7]), sb = ub + 128 - 256 * w(b[8 * m + 7]);
        signedDigit[t] = w(c.step(n + " signed >", sa - sb - 1)) - w(c.step(n + " signed <", sb - sa - 1));
      }
    }
    constexpr int64_t M = int64_t{1} << 9;  // beyond |D| < 2^8: a closed selector wins
    Expr setp(0);
    for (uint32_t t = 0; t < kWidthClasses; ++t) {
      const uint32_t top = (1u << t) - 1;
      Expr D[2];
      for (uint32_t s = 0; s < 2; ++s) {
        for (uint32_t m = 0; m < top; ++m) D[s] += (int64_t{1} << m) * digit[m];
        D[s] += (int64_t{1} << top) * (s ? signedDigit[t] : digit[top]);
      }
      const std::string n = fmt::format("{} SETP width {}", lane, t);
      for (uint32_t s = 0; s < 2; ++s) {
        auto sel = [&](uint32_t k) { return M * (w(signedSel[k][t][s]) - 1); };
        auto th = [&](const char* what, const Expr& cond) { return w(c.step(fmt::format("{} s{} {}", n, s, what), cond)); };
        const Expr& d = D[s];
        setp += th("eq1", d + sel(0)) + th("eq2", -d + sel(0)) - w(signedSel[0][t][s]);
        setp += 2 * w(signedSel[1][t][s]) - th("ne1", d + sel(1)) - th("ne2", -d + sel(1));
        setp += th("lt", -d - 1 + sel(2)) + th("le", -d + sel(3)) + th("gt", d - 1 + sel(4)) + th("ge", d + sel(5));
      }
      auto usel = [&](uint32_t k) { return M * (w(unsignedSel[k][t]) - 1); };
      auto uth = [&](const char* what, const Expr& cond) { return w(c.step(fmt::format("{} {}", n, what), cond)); };
      const Expr& u = D[0];
      setp += uth("lo", -u - 1 + usel(0)) + uth("ls", -u + usel(1)) + uth("hi", u - 1 + usel(2)) + uth("hs", u + usel(3));
    }
    // ---- the logic ops (b and c are none where the op does not read them: 0), and the
    // result select: OR and MOV are [a + b >= 1], AND [a + b >= 2], XOR their difference ----
    Bus result;
    for (uint32_t i = 0; i < 64; ++i) {
      const uint32_t k = widthClassOfBit(i);
      const Expr ai = w(a[i]), bi = w(b[i]), pi = w(p[0]);
      const std::string n = fmt::format("{} d[{}]", lane, i);
      Expr r = w(added[i]);
      Expr logic = w(c.step(n + " or/xor/mov", 2 * (w(orSel[k]) + w(xorSel[k]) + w(movSel[k])) + ai + bi - 3));
      logic += w(c.step(n + " and", 3 * w(andSel[k]) + ai + bi - 5));
      logic -= w(c.step(n + " xor carry", 3 * w(xorSel[k]) + ai + bi - 5));
      logic += w(c.step(n + " not", w(notSel[k]) - ai - 1));
      logic += w(c.step(n + " selp a", w(selpSel[k]) + pi + ai - 3)) + w(c.step(n + " selp b", w(selpSel[k]) - pi + bi - 2));
      if (i == 0) logic += setp;
      r += w(c.exclusiveOr(n + " logic/SETP", logic));
      if (i < 32) r += w(shfl.result[l][i]);
      result.push_back(c.exclusiveOr(fmt::format("{} result[{}]", lane, i), r));
    }
    out.result.push_back(std::move(result));
  }
  return out;
}

LaneBuses outputAlu(Circuit& c, const FrontWires& front, const AluWires& alu) {
  LaneBuses lb;
  for (uint32_t l = 0; l < 4; ++l) {
    c.outputBus(fmt::format("l{} result", l), alu.result[l]);
    lb.results.push_back(alu.result[l]);
  }
  c.outputBus("active", alu.active);
  c.outputBus("SHFL undefined", alu.shuffleUndefined);
  c.outputBus("word", front.fetch.word);
  lb.results.push_back(alu.active);
  lb.results.push_back(alu.shuffleUndefined);
  lb.results.push_back(front.fetch.word);
  return lb;
}

Unit aluUnit() {
  Unit u{Circuit("alu"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  u.lanes.push_back(outputAlu(c, front, buildAlu(c, front, operands)));
  return u;
}

}  // namespace qgpu::compiler
