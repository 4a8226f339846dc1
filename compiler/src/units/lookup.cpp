// Attention one-hot lookups (Circuit::lookup): a value found by its key among the positions
// so far, copied exactly by one attention head — the shape of a program ROM in the prompt.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

Unit lookupUnit(uint32_t keyBits, uint32_t valueBits) {
  Unit u{Circuit(fmt::format("lookup{}x{}", keyBits, valueBits)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const Bus key = c.inputBus("key", keyBits), value = c.inputBus("value", valueBits), query = c.inputBus("query", keyBits);
  const Bus read = c.lookup("found", key, query, value);
  c.outputBus("found", read);
  u.lanes.push_back({{key, value, query}, {read}});
  return u;
}

}  // namespace qgpu::compiler
