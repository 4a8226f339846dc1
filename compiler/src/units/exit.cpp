// The exit unit (machine EXIT, docs/machine.md §1.2, machine/control.h): the guard's exiting
// lanes, the warp's new exited mask and every SIMT stack entry's new mask, in two levels.
//
//   1  exiting_l = mask_l and (no guard, or predicate_l != negated): three exclusive
//      thresholds (as BRA's taken lanes)
//   2  exited_l or exiting_l; entry_e,l and not exiting_l: one threshold each
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

const std::vector<std::string>& exitSelectors() {
  static const std::vector<std::string> names = {"guard", "negated"};
  return names;
}

Unit exitUnit(uint32_t lanes, uint32_t entries) {
  Unit u{Circuit(fmt::format("exit{}x{}", entries, lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  for (const std::string& s : exitSelectors()) {
    u.selectors.push_back(c.inputBit("sel." + s));
    u.selectorNames.push_back(s);
  }
  const Expr g = w(u.selectors[0]), neg = w(u.selectors[1]);
  const Bus mask = c.inputBus("mask", lanes), pred = c.inputBus("pred", lanes), exited = c.inputBus("exited", lanes);
  LaneBuses lb;
  lb.operands = {mask, pred, exited};
  std::vector<Bus> stack;
  for (uint32_t e = 0; e < entries; ++e) {
    stack.push_back(c.inputBus(fmt::format("entry{}.mask", e), lanes));
    lb.operands.push_back(stack.back());
  }
  // ---- level 1 ----
  Bus exiting(lanes);
  for (uint32_t l = 0; l < lanes; ++l) {
    const Expr m = w(mask[l]), p = w(pred[l]);
    exiting[l] = c.sum(fmt::format("exiting[{}]", l), w(c.step(fmt::format("x{}.noguard", l), m - g - 1)) +
                                                          w(c.step(fmt::format("x{}.pred", l), m + g + p - neg - 3)) +
                                                          w(c.step(fmt::format("x{}.negpred", l), m + g - p + neg - 3)));
  }
  // ---- level 2 ----
  Bus newExited(lanes);
  for (uint32_t l = 0; l < lanes; ++l)
    newExited[l] = c.step(fmt::format("exited'[{}]", l), w(exited[l]) + w(exiting[l]) - 1);
  lb.results = {exiting, newExited};
  for (uint32_t e = 0; e < entries; ++e) {
    Bus m(lanes);
    for (uint32_t l = 0; l < lanes; ++l)
      m[l] = c.step(fmt::format("entry{}.mask'[{}]", e, l), w(stack[e][l]) - w(exiting[l]) - 1);
    lb.results.push_back(m);
  }
  c.outputBus("exiting", exiting);
  c.outputBus("exited'", newExited);
  for (uint32_t e = 0; e < entries; ++e) c.outputBus(fmt::format("entry{}.mask'", e), lb.results[2 + e]);
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
