// The branch unit (machine BRA, docs/machine.md §1.2, machine/control.h): the guard's taken
// lanes and the SIMT-stack decision of a BRA for one warp of `lanes` lanes, in three levels.
//
//   1  taken_l = mask_l and (no guard, or predicate_l != negated): three exclusive
//      thresholds; equality tests of 10-bit code addresses (top rpc = c, pc + 1 = c, b = c)
//      as pairs [D >= 0], [D <= 0] of their differences; pc + 1 (adder, levels 1-2)
//   2  none / all taken as thresholds on the taken and not-taken counts (diverged = the rest)
//   3  pop / push decisions (diverged and the equalities), the top entry's new pc:
//      c + none * (pc + 1 - c) + all * (b - c), bit by bit
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

const std::vector<std::string>& branchSelectors() {
  static const std::vector<std::string> names = {"guard", "negated"};
  return names;
}

Unit branchUnit(uint32_t lanes, uint32_t pcBits) {
  Unit u{Circuit(fmt::format("bra{}x{}", pcBits, lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  for (const std::string& s : branchSelectors()) {
    u.selectors.push_back(c.inputBit("sel." + s));
    u.selectorNames.push_back(s);
  }
  const Expr g = w(u.selectors[0]), neg = w(u.selectors[1]);
  LaneBuses lb;
  const Bus mask = c.inputBus("mask", lanes), pred = c.inputBus("pred", lanes);
  const Bus pc = c.inputBus("pc", pcBits), target = c.inputBus("b", pcBits), rpc = c.inputBus("c", pcBits),
            topRpc = c.inputBus("top.rpc", pcBits);
  lb.operands = {mask, pred, pc, target, rpc, topRpc};
  auto value = [](const Bus& b) {
    Expr e;
    for (size_t i = 0; i < b.size(); ++i) e += (int64_t{1} << i) * w(b[i]);
    return e;
  };

  // ---- level 1 ----
  Bus taken(lanes), notTaken(lanes);
  Expr takenCount, notTakenCount;
  for (uint32_t l = 0; l < lanes; ++l) {
    const Expr m = w(mask[l]), p = w(pred[l]);
    const Expr t = w(c.step(fmt::format("t{}.noguard", l), m - g - 1)) +
                   w(c.step(fmt::format("t{}.pred", l), m + g + p - neg - 3)) +
                   w(c.step(fmt::format("t{}.negpred", l), m + g - p + neg - 3));
    taken[l] = c.sum(fmt::format("taken[{}]", l), t);
    notTaken[l] = c.sum(fmt::format("nottaken[{}]", l), m - w(taken[l]));
    takenCount += w(taken[l]);
    notTakenCount += w(notTaken[l]);
  }
  // [x = y] as the pair [x - y >= 0], [y - x >= 0]; [x != y] = 1 - both, a linear form.
  auto equalPair = [&](const std::string& name, const Expr& d) {
    return std::pair<Expr, Expr>{w(c.step(name + ".ge", d)), w(c.step(name + ".le", -d))};
  };
  const auto [popGe, popLe] = equalPair("top.rpc=c", value(topRpc) - value(rpc));
  const auto [fallGe, fallLe] = equalPair("pc+1=c", value(pc) + 1 - value(rpc));
  const auto [takenGe, takenLe] = equalPair("b=c", value(target) - value(rpc));
  std::vector<Expr> pcBitsE, zero(pcBits, Expr(0));
  for (WireId b : pc) pcBitsE.push_back(w(b));
  const Bus pc1 = addBuses(c, "pc+1", pcBitsE, zero, 1);  // mod 2^pcBits

  // ---- level 2 ----
  const WireId none = c.step("none", -takenCount);
  const WireId all = c.step("all", takenCount - 1 - static_cast<int64_t>(lanes + 1) * notTakenCount);
  const Expr diverged = 1 - w(none) - w(all);

  // ---- level 3 ----
  const WireId pop = andStep(c, "pop", {diverged, popGe, popLe});
  const WireId pushFall = andStep(c, "push.fallthrough", {diverged}, 1 - fallGe - fallLe, 1);  // pc + 1 != c
  const WireId pushTaken = andStep(c, "push.taken", {diverged}, 1 - takenGe - takenLe, 1);  // b != c
  Bus topPc(pcBits);
  for (uint32_t i = 0; i < pcBits; ++i)
    topPc[i] = c.sum(fmt::format("top.pc[{}]", i), w(rpc[i]) + w(c.gate(fmt::format("top.pc[{}].none", i), none, w(pc1[i]) - w(rpc[i]))) +
                                                         w(c.gate(fmt::format("top.pc[{}].all", i), all, w(target[i]) - w(rpc[i]))));
  const WireId div = c.sum("diverged", diverged);

  c.outputBus("taken", taken);
  c.outputBus("nottaken", notTaken);
  for (const auto& [name, wire] : std::vector<std::pair<std::string, WireId>>{
           {"none", none}, {"all", all}, {"diverged", div}, {"pop", pop}, {"push.fallthrough", pushFall}, {"push.taken", pushTaken}})
    c.output(name, wire);
  c.outputBus("top.pc", topPc);
  lb.results = {taken, notTaken, Bus{none, all, div, pop, pushFall, pushTaken}, topPc};
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
