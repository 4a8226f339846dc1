// The logic / select / move unit (machine AND OR XOR NOT MOV SELP) and the SHFL lane mux:
// one MLP level each, the op selection folded into every threshold.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

const std::vector<std::string>& logicOps() {
  static const std::vector<std::string> ops = {"and", "or", "xor", "not", "mov", "selp"};
  return ops;
}

Unit logicUnit(uint32_t bits, uint32_t lanes) {
  Unit u{Circuit(fmt::format("logic{}x{}", bits, lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  for (const std::string& op : logicOps()) {
    u.selectors.push_back(c.inputBit("sel." + op));
    u.selectorNames.push_back(op);
  }
  const Expr sAnd = w(u.selectors[0]), sOr = w(u.selectors[1]), sXor = w(u.selectors[2]), sNot = w(u.selectors[3]),
             sMov = w(u.selectors[4]), sSelp = w(u.selectors[5]);
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(c.inputBus(fmt::format("l{}.a", l), bits));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.b", l), bits));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.p", l), 1));  // SELP's predicate
    const Expr p = w(lb.operands[2][0]);
    Bus d;
    for (uint32_t i = 0; i < bits; ++i) {
      const Expr a = w(lb.operands[0][i]), b = w(lb.operands[1][i]);
      const std::string n = fmt::format("l{}.d[{}]", l, i);
      // sel AND f(a, b) as one threshold each: [sel + (the inputs f needs) - count >= 0].
      Expr r = w(c.step(n + ".and", sAnd + a + b - 3));
      r += w(c.step(n + ".or", 2 * sOr + a + b - 3));
      r += w(c.step(n + ".xor1", 2 * sXor + a + b - 3)) - w(c.step(n + ".xor2", sXor + a + b - 3));
      r += w(c.step(n + ".not", sNot - a - 1));
      r += w(c.step(n + ".mov", sMov + a - 2));
      r += w(c.step(n + ".selp1", sSelp + p + a - 3)) + w(c.step(n + ".selp0", sSelp - p + b - 2));
      d.push_back(c.sum(n, r));
    }
    c.outputBus(fmt::format("l{}.d", l), d);
    lb.results.push_back(d);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

Unit shuffleUnit(uint32_t bits, uint32_t lanes) {
  Unit u{Circuit(fmt::format("shfl{}x{}", bits, lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  std::vector<Bus> value(lanes), src(lanes);
  for (uint32_t l = 0; l < lanes; ++l) value[l] = c.inputBus(fmt::format("l{}.v", l), bits);
  for (uint32_t l = 0; l < lanes; ++l) src[l] = c.inputBus(fmt::format("l{}.src", l), lanes);  // one-hot
  for (uint32_t l = 0; l < lanes; ++l) {
    Bus d;
    for (uint32_t i = 0; i < bits; ++i) {
      Expr r;
      for (uint32_t k = 0; k < lanes; ++k)
        r += w(c.gate(fmt::format("l{}.d[{}].from{}", l, i, k), src[l][k], w(value[k][i])));
      d.push_back(c.sum(fmt::format("l{}.d[{}]", l, i), r));
    }
    c.outputBus(fmt::format("l{}.d", l), d);
    u.lanes.push_back({{value[l], src[l]}, {d}});
  }
  return u;
}

}  // namespace qgpu::compiler

namespace qgpu::compiler {

// The whole SHFL step: the source lane from the mode, b and c (machine::shuffleSource), then
// the mux. Four levels: clamp/segment bits; each mode's in-range test and position compares;
// the source lane's one-hot (mode selector folded in); the value bits and the check that the
// source takes part.
ShuffleWires buildShuffle(Circuit& c, const std::string& name, const std::vector<WireId>& mode, const Bus& eff,
                          const std::vector<Bus>& v, const std::vector<Bus>& b, const std::vector<Bus>& cval,
                          const std::vector<Bus>& seg) {
  static const char* modes[] = {"up", "down", "bfly", "idx"};
  const uint32_t lanes = static_cast<uint32_t>(v.size());
  ShuffleWires out;
  for (uint32_t l = 0; l < lanes; ++l) {
    const std::string n = fmt::format("{}l{}", name, l);
    // Level 1: maxLane = (lane & seg) | (clamp & ~seg) and idx's j = (lane & seg) | (b & ~seg),
    // bit by bit (the lane is a constant); bfly's j = lane ^ b is linear.
    Expr maxLane, jIdx, jBfly, B;
    WireId firstMax = 0;
    for (uint32_t k = 0; k < 5; ++k) {
      const bool lk = (l >> k) & 1;
      const Expr s = w(seg[l][k]), cv = w(cval[l][k]), bk = w(b[l][k]);
      const int64_t p = int64_t{1} << k;
      const WireId mx = c.step(fmt::format("{}.max[{}]", n, k), lk ? s + cv - 1 : cv - s - 1);
      if (k == 0) firstMax = mx;
      maxLane += p * w(mx);
      jIdx += p * w(c.step(fmt::format("{}.jidx[{}]", n, k), lk ? s + bk - 1 : bk - s - 1));
      jBfly += p * (lk ? 1 - bk : bk);
      B += p * bk;
    }
    const Expr lane(static_cast<int64_t>(l));
    const Expr j[4] = {lane - B, lane + B, jBfly, jIdx};
    // Level 2: in range (up: j >= maxLane; the others: j <= maxLane) and j >= s for s = 0..4.
    Expr onehot[4];
    Expr self;
    for (int m = 0; m < 4; ++m) {
      const std::string nm = fmt::format("{}.{}", n, modes[m]);
      WireId ok = c.step(nm + ".ok", m == 0 ? j[m] - maxLane : maxLane - j[m]);
      std::vector<WireId> ge;
      // Not before the clamp bits: up's, down's and bfly's compares read b alone, which a
      // joined step has a level before c; their channels would wait beside it.
      for (int s = 0; s <= 4; ++s) {
        ge.push_back(c.step(fmt::format("{}.ge{}", nm, s), j[m] - s));
        c.notBefore(ge.back(), firstMax);
      }
      // Level 3: this mode selected, in range, and j == s; or selected and out of range (the lane itself).
      const Expr sel = w(mode[static_cast<size_t>(m)]);
      for (int s = 0; s < 4; ++s)
        onehot[s] += w(c.step(fmt::format("{}.src{}", nm, s), sel + w(ok) + w(ge[s]) - w(ge[s + 1]) - 3));
      self += w(c.step(nm + ".self", sel - w(ok) - 1));
    }
    if (l < 4) onehot[l] += self;
    // The source lane one-hot as declared bits (at most one mode's terms are 1): one channel
    // each, which its terms' neurons write, and the controls of the mux's gates.
    std::vector<WireId> source;
    for (uint32_t s = 0; s < std::min(lanes, 4u); ++s)
      source.push_back(c.exclusiveOr(fmt::format("{}.source{}", n, s), onehot[s]));
    // Level 4: the value bits of the source (a gate each: one neuron, where a step takes two),
    // and whether the source takes part.
    Bus d;
    for (uint32_t i = 0; i < 32; ++i) {
      Expr r;
      for (uint32_t s = 0; s < std::min(lanes, 4u); ++s)
        r += w(c.gate(fmt::format("{}.d[{}].from{}", n, i, s), source[s], w(v[s][i])));
      d.push_back(c.sum(fmt::format("{}.d[{}]", n, i), r));
    }
    Expr taking;
    for (uint32_t s = 0; s < std::min(lanes, 4u); ++s)
      taking += w(c.gate(fmt::format("{}.takes{}", n, s), source[s], w(eff[s])));
    out.result.push_back(std::move(d));
    out.undefined.push_back(c.sum(n + ".undefined", 1 - taking));
  }
  return out;
}

Unit shuffleFullUnit(uint32_t lanes) {
  Unit u{Circuit(fmt::format("shflfull{}", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  static const char* modes[] = {"up", "down", "bfly", "idx"};
  for (const char* m : modes) {
    u.selectors.push_back(c.inputBit(std::string("mode.") + m));
    u.selectorNames.push_back(m);
  }
  Bus eff = c.inputBus("eff", lanes);  // the lanes that execute the step
  u.shared.push_back(eff);
  std::vector<Bus> v(lanes), b(lanes), cval(lanes), seg(lanes);
  for (uint32_t l = 0; l < lanes; ++l) {
    v[l] = c.inputBus(fmt::format("l{}.v", l), 32);
    b[l] = c.inputBus(fmt::format("l{}.b", l), 5);
    cval[l] = c.inputBus(fmt::format("l{}.clamp", l), 5);
    seg[l] = c.inputBus(fmt::format("l{}.seg", l), 5);
  }
  const ShuffleWires sh = buildShuffle(c, "", u.selectors, eff, v, b, cval, seg);
  for (uint32_t l = 0; l < lanes; ++l) {
    c.outputBus(fmt::format("l{}.d", l), sh.result[l]);
    c.output(fmt::format("l{}.undefined", l), sh.undefined[l]);
    u.lanes.push_back({{v[l], b[l], cval[l], seg[l]}, {sh.result[l], {sh.undefined[l]}}});
  }
  return u;
}

}  // namespace qgpu::compiler
