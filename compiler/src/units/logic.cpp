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
  Unit u{Circuit(fmt::format("logic{}x{}", bits, lanes)), {}, {}, {}};
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
  Unit u{Circuit(fmt::format("shfl{}x{}", bits, lanes)), {}, {}, {}};
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
