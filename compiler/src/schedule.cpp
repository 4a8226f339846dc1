// Scheduling pass: ASAP levels (Tracr's longest-path layer allocation) and the
// expansion of linear forms into base wires.
#include "qgpu/compiler/schedule.h"

#include <algorithm>

namespace qgpu::compiler {

bool isBaseWire(const Node& n) { return n.kind != NodeKind::Sum; }

namespace {
int levelOf(const Expr& e, const std::vector<int>& level) {
  int l = 0;
  for (const Term& t : e.terms) l = std::max(l, level[t.wire]);
  return l;
}
}  // namespace

Schedule schedule(const Circuit& c) {
  Schedule s;
  s.level.assign(c.nodes().size(), 0);
  for (size_t i = 0; i < c.nodes().size(); ++i) {
    const Node& n = c.nodes()[i];
    switch (n.kind) {
      case NodeKind::Input: s.level[i] = 0; break;
      case NodeKind::Step: s.level[i] = 1 + std::max(levelOf(n.cond, s.level), levelOf(n.value, s.level)); break;
      case NodeKind::Gate: s.level[i] = 1 + std::max(s.level[n.control], levelOf(n.value, s.level)); break;
      case NodeKind::Sum: s.level[i] = levelOf(n.value, s.level); break;
    }
  }
  s.depth = 1;
  for (const auto& [name, wire] : c.outputs()) s.depth = std::max(s.depth, s.level[wire]);
  for (size_t i = 0; i < c.nodes().size(); ++i)
    if (c.nodes()[i].kind != NodeKind::Sum) s.depth = std::max(s.depth, s.level[i]);
  return s;
}

Expr expand(const Circuit& c, const Expr& e) {
  Expr out(e.constant);
  for (const Term& t : e.terms) {
    const Node& n = c.node(t.wire);
    if (n.kind == NodeKind::Sum) out += t.coeff * expand(c, n.value);
    else out += t.coeff * w(t.wire);
  }
  return out;
}

}  // namespace qgpu::compiler
