// The sequencer's counter as a unit of its own (docs/machine.md §5.2): the count of
// positions since the last marker, as threshold bits. The machine step's pc is the last
// pc-carrying token's plus the steps ended since it, and a step's tokens end at the n-th
// value since its prefix: both are this counter with other marker and counted bits.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

Unit counterUnit(uint32_t bits) {
  Unit u{Circuit(fmt::format("count{}", bits)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WireId marker = c.inputBit("marker"), counted = c.inputBit("counted");
  const Bus atLeast = c.countSince("k", marker, counted, bits);
  c.outputBus("k>=", atLeast);
  LaneBuses lb;
  lb.operands = {{marker}, {counted}};
  lb.results = {atLeast};
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
