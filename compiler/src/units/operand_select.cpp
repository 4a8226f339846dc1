// The machine step's operand select (operand_select.h, docs/machine.md §5.2, row 12): a
// source field is a register (0..510: bit 9 clear), a ROM constant (512 + k, k < 448), a
// special register (960 + s) or none (1023). Each kind gives 0 where the field is of another
// kind — the register read because its banks are not selected where bit 9 is set (the front
// end's noRegister), the constants' query is 0 (the key every position that is no constant
// holds, with the value 0), a special's terms are gated by its decode — so each operand bit
// is their exclusive or, a sum written into one channel by the register copy's own MLP: no
// level and no channels after the copies (the constants' lookup and the specials wait only
// for the fetched word).
#include "qgpu/compiler/operand_select.h"

#include <fmt/format.h>

#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {
namespace {

constexpr uint32_t kFieldBits = 10;
constexpr uint32_t kConstantIndexBits = 9;  // k < 448
constexpr uint32_t kPortAt[3] = {machine::kWordAAt, machine::kWordBAt, machine::kWordCAt};

Bus fieldOf(const Bus& word, uint32_t port) {
  return Bus(word.begin() + kPortAt[port], word.begin() + kPortAt[port] + kFieldBits);
}

// 3 b9 - b8 - b7 - b6 - 1 >= 0 exactly when bit 9 is set and bits 8..6 are not all set:
// 512 <= field < 960, a ROM constant.
Expr constantCondition(const Bus& field) { return 3 * w(field[9]) - w(field[8]) - w(field[7]) - w(field[6]) - 1; }

// >= 0 exactly when field == v.
Expr equalsCondition(const Bus& field, uint32_t v) { return bitsMatching(field, v) - int64_t{kFieldBits}; }

}  // namespace

Bus guardedLanes(Circuit& c, const FrontWires& front) {
  const Bus& word = front.fetch.word;
  const Bus g(word.begin() + machine::kWordGAt, word.begin() + machine::kWordGAt + 10);
  Expr allOnes(-10);
  for (WireId bit : g) allOnes += w(bit);
  const WireId noGuard = c.step("no guard", allOnes);
  const Expr negated = w(g[9]);
  Bus active;
  for (uint32_t l = 0; l < 4; ++l) {
    const Expr mask = w(front.sequencer.mask[l]), pred = w(front.reads[4 * 3 + l][0]);
    const std::string n = fmt::format("l{} active", l);
    const WireId unguarded = c.step(n + " (no guard)", mask + w(noGuard) - 2);
    const WireId holds = c.step(n + " (guard holds)", mask + pred - negated - 2 * w(noGuard) - 2);
    const WireId negatedHolds = c.step(n + " (negated guard holds)", mask - pred + negated - 2 * w(noGuard) - 2);
    active.push_back(c.exclusiveOr(n, {unguarded, holds, negatedHolds}));
  }
  return active;
}

Bus countWaits(Circuit& c, const FrontWires& front) {
  const WireId isWait = front.write.isWait;
  return c.countSince("WAITs", c.step("not a WAIT", -w(isWait)), isWait, 3);
}

Bus serialLane(Circuit& c, const std::string& name, const Bus& waits, const Bus& active, const Expr& op,
               const std::vector<Expr>& also) {
  auto waited = [&](uint32_t v) {  // [W = v], a form whose values are bits
    Expr e = v == 0 ? Expr(1) : w(waits[v - 1]);
    if (v < 3) e -= w(waits[v]);
    return e;
  };
  Bus sel;
  Expr below;  // P_l: the active lanes below l
  for (uint32_t l = 0; l < 4; ++l) {
    Expr terms;
    for (uint32_t v = 0; v <= l; ++v) {  // [P_l - v >= 0] - [P_l - v >= 1] where active_l, W = v and op
      const Expr x = 8 * (w(active[l]) + waited(v) + op - 3) + below - v;
      const std::string n = fmt::format("{} l{} at W = {}", name, l, v);
      terms += w(c.step(n + " (>=)", x)) - w(c.step(n + " (>)", x - 1));
    }
    if (l < also.size()) terms += also[l];
    sel.push_back(c.exclusiveOr(fmt::format("{} lane {}", name, l), terms));
    below += w(active[l]);
  }
  return sel;
}

bool compiledSpecial(uint32_t special) {
  using machine::MSpecial;
  switch (static_cast<MSpecial>(special)) {
    case MSpecial::LaneId: case MSpecial::LanemaskEq: case MSpecial::LanemaskLt: case MSpecial::LanemaskLe:
    case MSpecial::LanemaskGt: case MSpecial::LanemaskGe: case MSpecial::WarpSize: case MSpecial::Zero:
    case MSpecial::WarpId: case MSpecial::ThreadIndex: case MSpecial::BlockIndex:
      return true;
    default: return false;
  }
}

std::vector<Bus> buildRomConstants(Circuit& c, const FrontWires& front, const std::vector<Bus>& fields,
                                   const std::vector<Expr>& isOperand) {
  const FetchWires& f = front.fetch;
  const SequencerWires& s = front.sequencer;
  // An entry: a CHUNK-LAST in CONSTS that is not the constants' count.
  const WireId entry = c.step("constant entry", w(f.inConsts) + w(s.chunkLast) - w(f.afterConsts) - 2);
  Bus key{entry};
  const Bus index = promptItemIndex(c, "constant key", entry, f, kConstantIndexBits);
  key.insert(key.end(), index.begin(), index.end());
  Bus value;
  for (uint32_t i = 0; i < 64; ++i)
    value.push_back(c.step(fmt::format("constant[{}]", i), w(entry) + w(front.pending.chunkValue[i]) - 2));
  // A query: [operand and constant] and the index bits, each [operand, constant and bit] in
  // one level; 0 else. A field that is no operand (a branch target, a width code) may lie in
  // the constants' range and name one the prompt does not hold: no entry would match.
  constexpr int64_t kConstantConditionMax = 2;
  std::vector<Bus> queries;
  for (size_t q = 0; q < fields.size(); ++q) {
    const Bus& field = fields[q];
    Bus query{andStep(c, fmt::format("field {} is a constant", q), {isOperand[q]}, constantCondition(field),
                      kConstantConditionMax)};
    for (uint32_t b = 0; b < kConstantIndexBits; ++b)
      query.push_back(andStep(c, fmt::format("field {} constant[{}]", q, b), {isOperand[q], w(field[b])},
                              constantCondition(field), kConstantConditionMax));
    queries.push_back(std::move(query));
  }
  return c.lookup("rom constants", key, queries, value);
}

OperandWires buildOperandSelect(Circuit& c, const FrontWires& front) {
  using machine::MSpecial;
  const SequencerWires& s = front.sequencer;
  std::vector<Bus> fields;
  for (uint32_t p = 0; p < 3; ++p) fields.push_back(fieldOf(front.fetch.word, p));
  // Whether the op reads field a, b, c as an operand (ops.def): a sum over the op's one-hot.
  const std::vector<WireId> op = decodeAddress(
      c, "op", Bus(front.fetch.word.begin(), front.fetch.word.begin() + machine::kWordOpBits));
  std::vector<Expr> isOperand(3, Expr(0));
  const Bus opBits(front.fetch.word.begin(), front.fetch.word.begin() + machine::kWordOpBits);
  for (uint32_t j = 0; j < static_cast<uint32_t>(machine::MOp::Count); ++j)
    for (uint32_t p = 0; p < 3; ++p) {
      if (!machine::isOperandField(static_cast<machine::MOp>(j), p + 1)) continue;
      const bool atomic = j == static_cast<uint32_t>(machine::MOp::Atom) || j == static_cast<uint32_t>(machine::MOp::AtomS);
      // An atomic's b is read where its new value is next (its address a alone elsewhere);
      // its a not there, where port a reads d (a ROM constant's query is off).
      if (atomic && p < 2)
        isOperand[p] += w(c.step(fmt::format("{} is {}'s operand", "ab"[p], machine::opName(static_cast<machine::MOp>(j))),
                                 bitsMatching(opBits, j) - int64_t{machine::kWordOpBits} +
                                     (p == 1 ? w(front.atomic.newNext) - 1 : -w(front.atomic.newNext))));
      else
        isOperand[p] += w(op[j]);
    }
  const std::vector<Bus> constants = buildRomConstants(c, front, fields, isOperand);
  // The lane's own specials: constants per lane, the executor's values.
  const MSpecial laneOwn[] = {MSpecial::LaneId,     MSpecial::LanemaskEq, MSpecial::LanemaskLt, MSpecial::LanemaskLe,
                              MSpecial::LanemaskGt, MSpecial::LanemaskGe, MSpecial::WarpSize};
  std::vector<Bus> selected;
  for (uint32_t p = 0; p < 3; ++p) {
    const Bus& field = fields[p];
    const std::string port(1, "abc"[p]);
    // Decodes (one level from the fetched word): the lane's own specials, %tid.linear's lane
    // part; and, with the warp or block bit in the same threshold, %warpid, %tid.linear's warp
    // part, %ctaid.linear.
    std::vector<WireId> own;
    for (MSpecial sp : laneOwn)
      own.push_back(c.step(fmt::format("{} is {}", port, machine::specialName(sp)), equalsCondition(field, machine::specialOperand(sp))));
    const WireId threadIndex =
        c.step(fmt::format("{} is %tid.linear", port), equalsCondition(field, machine::specialOperand(MSpecial::ThreadIndex)));
    auto withBit = [&](MSpecial sp, const Bus& bits, const char* what) {
      const Expr is = equalsCondition(field, machine::specialOperand(sp));
      Bus out;
      for (uint32_t i = 0; i < bits.size(); ++i) out.push_back(c.step(fmt::format("{} {}[{}]", port, what, i), is + w(bits[i]) - 1));
      return out;
    };
    const Bus warpId = withBit(MSpecial::WarpId, s.warp, "%warpid");
    const Bus threadWarp = withBit(MSpecial::ThreadIndex, s.warp, "%tid.linear warp");
    const Bus blockIndex = withBit(MSpecial::BlockIndex, s.block, "%ctaid.linear");
    for (uint32_t l = 0; l < 4; ++l) {
      Bus out;
      for (uint32_t i = 0; i < 64; ++i) {
        std::vector<WireId> any{front.reads[4 * p + l][i], constants[p][i]};
        for (size_t j = 0; j < std::size(laneOwn); ++j)
          if ((machine::specialValue(laneOwn[j], {{}, {}, 0, 0, l, 0}) >> i) & 1) any.push_back(own[j]);
        if (i < 2 && ((l >> i) & 1)) any.push_back(threadIndex);
        if (i >= 2 && i - 2 < threadWarp.size()) any.push_back(threadWarp[i - 2]);
        if (i < warpId.size()) any.push_back(warpId[i]);
        if (i < blockIndex.size()) any.push_back(blockIndex[i]);
        out.push_back(c.exclusiveOr(fmt::format("{} lane {} operand[{}]", port, l, i), any));
      }
      selected.push_back(std::move(out));
    }
  }
  return {std::move(selected), op};
}

Unit operandsUnit() {
  Unit u{Circuit("operands"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const std::vector<Bus> operands = buildOperandSelect(c, front).selected;
  LaneBuses lb;
  for (uint32_t i = 0; i < operands.size(); ++i) {
    c.outputBus(fmt::format("operand {} lane {}", "abc"[i / 4], i % 4), operands[i]);
    lb.results.push_back(operands[i]);
  }
  c.outputBus("word", front.fetch.word);
  c.outputBus("lanes written", front.written);
  lb.results.push_back(front.fetch.word);
  lb.results.push_back(front.written);
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
