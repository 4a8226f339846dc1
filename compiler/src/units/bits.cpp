// Bit-level helpers shared by the unit circuits.
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

WireId bitAnd(Circuit& c, const std::string& name, WireId a, WireId b) { return c.step(name, w(a) + w(b) - 2); }
WireId bitOr(Circuit& c, const std::string& name, WireId a, WireId b) { return c.step(name, w(a) + w(b) - 1); }
WireId bitXor(Circuit& c, const std::string& name, WireId a, WireId b) {
  WireId both = bitAnd(c, name + ".and", a, b);
  return c.sum(name, w(a) + w(b) - 2 * w(both));
}

}  // namespace qgpu::compiler
