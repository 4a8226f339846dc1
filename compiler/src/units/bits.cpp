// Bit-level helpers shared by the unit circuits.
#include <algorithm>
#include <optional>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

WireId bitAnd(Circuit& c, const std::string& name, WireId a, WireId b) { return c.step(name, w(a) + w(b) - 2); }
WireId bitOr(Circuit& c, const std::string& name, WireId a, WireId b) { return c.step(name, w(a) + w(b) - 1); }
WireId bitXor(Circuit& c, const std::string& name, WireId a, WireId b) {
  WireId both = bitAnd(c, name + ".and", a, b);
  return c.sum(name, w(a) + w(b) - 2 * w(both));
}

Expr bitsMatching(const Bus& bits, uint64_t value) {
  Expr e(0);
  for (size_t j = 0; j < bits.size(); ++j) e += (value >> j) & 1 ? w(bits[j]) : 1 - w(bits[j]);
  return e;
}

WireId andStep(Circuit& c, const std::string& name, const std::vector<Expr>& bits, Expr L, std::optional<int64_t> lMax) {
  const int64_t M = std::max<int64_t>((lMax ? *lMax : c.rangeOf(L).hi) + 1, 1);  // one zero bit outweighs L
  Expr cond = L;
  for (const Expr& b : bits) cond += M * (b - 1);
  return c.step(name, cond);
}

}  // namespace qgpu::compiler
