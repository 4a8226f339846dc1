// The VOTE unit (machine VOTE: all, any, uni, ballot; negated predicate), in two levels:
// each lane's ballot bit, then every mode as one threshold over the ballot and member
// counts with its selector folded in.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

Unit voteUnit(uint32_t lanes) {
  Unit u{Circuit(fmt::format("vote{}", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  static const char* modes[] = {"all", "any", "uni", "ballot"};
  for (const char* m : modes) {
    u.selectors.push_back(c.inputBit(std::string("mode.") + m));
    u.selectorNames.push_back(m);
  }
  const WireId negate = c.inputBit("negate");
  const Bus eff = c.inputBus("eff", lanes), pred = c.inputBus("pred", lanes);
  u.shared = {eff, pred, {negate}};
  const Expr neg = w(negate);
  const int64_t M = 2 * static_cast<int64_t>(lanes) + 2;  // beyond any count difference
  auto sel = [&](size_t m) { return M * (w(u.selectors[m]) - 1); };
  for (uint32_t l = 0; l < lanes; ++l) {
    const std::string n = fmt::format("l{}", l);
    const Bus members = c.inputBus(n + ".members", lanes);  // b & the live lanes, as this lane reads it
    // Level 1: ballot bit k = executing and member and (predicate != negate).
    Expr ballot, count, memberCount;
    std::vector<Expr> bit(lanes);
    for (uint32_t k = 0; k < lanes; ++k) {
      const Expr e = w(eff[k]), m = w(members[k]), p = w(pred[k]);
      bit[k] = w(c.step(fmt::format("{}.b{}.plain", n, k), e + m + p - neg - 3)) +
               w(c.step(fmt::format("{}.b{}.negated", n, k), e + m - p + neg - 3));
      count += bit[k];
      memberCount += m;
    }
    // Level 2: all = [count >= members]; any = [count >= 1]; uni = all or none
    // (= [count >= members] + [count <= 0] - [members <= 0]); ballot bit by bit.
    Bus r;
    Expr r0 = w(c.step(n + ".all", count - memberCount + sel(0)));
    r0 += w(c.step(n + ".any", count - 1 + sel(1)));
    r0 += w(c.step(n + ".uni.all", count - memberCount + sel(2))) + w(c.step(n + ".uni.none", -count + sel(2))) -
          w(c.step(n + ".uni.empty", -memberCount + sel(2)));
    r0 += w(c.step(n + ".ballot0", bit[0] - 1 + sel(3)));
    r.push_back(c.sum(n + ".r[0]", r0));
    for (uint32_t k = 1; k < lanes; ++k)
      r.push_back(c.sum(fmt::format("{}.r[{}]", n, k), w(c.step(fmt::format("{}.ballot{}", n, k), bit[k] - 1 + sel(3)))));
    c.outputBus(n + ".r", r);
    u.lanes.push_back({{members}, {r}});
  }
  return u;
}

}  // namespace qgpu::compiler
