// Attention one-hot lookups (Circuit::lookup): a value found by its key among the positions
// so far, copied exactly by one attention head — the shape of a program ROM in the prompt.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

Unit lookupUnit(uint32_t keyBits, uint32_t valueBits, uint32_t queries) {
  const std::string name =
      queries == 1 ? fmt::format("lookup{}x{}", keyBits, valueBits) : fmt::format("lookup{}x{}q{}", keyBits, valueBits, queries);
  Unit u{Circuit(name), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const Bus key = c.inputBus("key", keyBits), value = c.inputBus("value", valueBits);
  std::vector<Bus> query;
  for (uint32_t q = 0; q < queries; ++q) query.push_back(c.inputBus(queries == 1 ? "query" : fmt::format("query {}", q), keyBits));
  const std::vector<Bus> reads = c.lookup("found", key, query, value);
  LaneBuses lb{{key, value}, {}};
  for (uint32_t q = 0; q < queries; ++q) {
    c.outputBus(queries == 1 ? "found" : fmt::format("found {}", q), reads[q]);
    lb.operands.push_back(query[q]);
    lb.results.push_back(reads[q]);
  }
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
