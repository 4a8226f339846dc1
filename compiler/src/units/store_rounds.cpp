// A store's write rounds (alu.h's buildStoreRounds; machine::writeRounds, docs/machine.md
// §5.3): the largest number of different addresses that the active lanes store to within
// one bank class (the address mod 64: aligned accesses of one size either coincide or touch
// disjoint bytes, and disjoint ones of one class fall into the same banks). Local stores
// go to each lane's own memory copy: one round.
//
//   level 1  per lane pair, the low 32 address bits compared in 8-bit chunks and the low 6
//            bits: [d = 0] as the chain [d >= 0] - [d >= 1], one channel each
//   level 2  per pair: a conflict, [different address where the class is the same, both
//            lanes active and the op a store]
//   level 3  [rounds >= 2] (any conflict), [rounds >= 4] (all six pairs), and per lane triple
//            [its three pairs conflict]
//   level 4  [rounds >= 3] (any triple)
// (Addresses beyond 32 bits are not the machine's: their high halves never differ.)
#include <fmt/format.h>

#include <array>

#include "qgpu/compiler/alu.h"

namespace qgpu::compiler {

Bus buildStoreRounds(Circuit& c, const std::vector<Bus>& addresses, const Bus& active, const Expr& store) {
  auto chunk = [&](uint32_t l, uint32_t from, uint32_t bits) {
    Expr e;
    for (uint32_t j = 0; j < bits; ++j) e += (int64_t{1} << j) * w(addresses[l][from + j]);
    return e;
  };
  std::array<std::array<WireId, 4>, 4> conflict{};
  Expr conflicts;
  for (uint32_t l = 0; l < 4; ++l)
    for (uint32_t m = l + 1; m < 4; ++m) {
      const std::string n = fmt::format("store lanes {} {}", l, m);
      // [d = 0] as [d >= 0] - [d >= 1]: a chain on one form, one channel.
      auto zero = [&](const std::string& name, const Expr& d) {
        return w(c.sum(name, w(c.step(name + " >= 0", d)) - w(c.step(name + " >= 1", d - 1))));
      };
      Expr same;  // 4 where the low 32 bits agree, else less
      for (uint32_t k = 0; k < 4; ++k) same += zero(fmt::format("{} chunk {} equal", n, k), chunk(l, 8 * k, 8) - chunk(m, 8 * k, 8));
      const Expr sameClass = zero(n + " class equal", chunk(l, 0, 6) - chunk(m, 0, 6));
      // [address not equal (same <= 3)] where the class is equal, both lanes are active and
      // the op is a store; 3 - same <= 3, so a weight of 4 on each of the others overrules it.
      constexpr int64_t M = 4;
      conflict[l][m] = c.step(n + " conflict", (3 - same) + M * (sameClass - 1) + M * (w(active[l]) - 1) +
                                                   M * (w(active[m]) - 1) + M * (store - 1));
      conflicts += w(conflict[l][m]);
    }
  const WireId two = c.step("store rounds >= 2", conflicts - 1);
  const WireId four = c.step("store rounds >= 4", conflicts - 6);
  Expr triples;
  for (uint32_t l = 0; l < 4; ++l)
    for (uint32_t m = l + 1; m < 4; ++m)
      for (uint32_t n = m + 1; n < 4; ++n)
        triples += w(c.step(fmt::format("store lanes {} {} {} conflict", l, m, n),
                            w(conflict[l][m]) + w(conflict[l][n]) + w(conflict[m][n]) - 3));
  const WireId three = c.step("store rounds >= 3", triples - 1);
  return {two, three, four};
}

}  // namespace qgpu::compiler
