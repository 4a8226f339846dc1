// The VOTE unit (machine VOTE: all, any, uni, ballot; negated predicate), in two levels:
// each lane's ballot bit, then every mode as one threshold over the ballot and member
// counts with its selector folded in. buildVote is the unit on wires (the joined step's
// ALU reads it); voteUnit declares its inputs for the catalogue.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

std::vector<Bus> buildVote(Circuit& c, const std::string& name, const std::vector<WireId>& mode, WireId negate,
                           const Bus& eff, const Bus& pred, const std::vector<Bus>& members) {
  const size_t lanes = eff.size();
  const Expr neg = w(negate);
  const int64_t M = 2 * static_cast<int64_t>(lanes) + 2;  // beyond any count difference
  auto sel = [&](size_t m) { return M * (w(mode.at(m)) - 1); };
  std::vector<Bus> out;
  for (size_t l = 0; l < lanes; ++l) {
    const std::string n = fmt::format("{}l{}", name, l);
    // Level 1: ballot bit k = executing and member and (predicate != negate).
    Expr count, memberCount;
    std::vector<Expr> bit(lanes);
    for (size_t k = 0; k < lanes; ++k) {
      const Expr e = w(eff[k]), m = w(members[l].at(k)), p = w(pred[k]);
      // The two cases exclusive: one channel (the joined step's widest layers hold them).
      bit[k] = w(c.exclusiveOr(fmt::format("{}.b{}", n, k),
                               std::vector<WireId>{c.step(fmt::format("{}.b{}.plain", n, k), e + m + p - neg - 3),
                                                   c.step(fmt::format("{}.b{}.negated", n, k), e + m - p + neg - 3)}));
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
    for (size_t k = 1; k < lanes; ++k)
      r.push_back(c.sum(fmt::format("{}.r[{}]", n, k), w(c.step(fmt::format("{}.ballot{}", n, k), bit[k] - 1 + sel(3)))));
    out.push_back(std::move(r));
  }
  return out;
}

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
  std::vector<Bus> members;
  for (uint32_t l = 0; l < lanes; ++l)
    members.push_back(c.inputBus(fmt::format("l{}.members", l), lanes));  // b & the live lanes, as this lane reads it
  const std::vector<Bus> r = buildVote(c, "", u.selectors, negate, eff, pred, members);
  for (uint32_t l = 0; l < lanes; ++l) {
    c.outputBus(fmt::format("l{}.r", l), r[l]);
    u.lanes.push_back({{members[l]}, {r[l]}});
  }
  return u;
}

}  // namespace qgpu::compiler
