// Scheduling pass: ASAP levels (Tracr's longest-path layer allocation) and the
// expansion of linear forms into base wires.
#include "qgpu/compiler/schedule.h"

#include <algorithm>
#include <map>

namespace qgpu::compiler {

bool isBaseWire(const Node& n) { return n.kind != NodeKind::Sum; }

namespace {
int levelOf(const Expr& e, const std::vector<int>& level) {
  int l = 0;
  for (const Term& t : e.terms) l = std::max(l, level[t.wire]);
  return l;
}
}  // namespace

std::vector<int> Schedule::headsIn(int layer) const {  // memory banks only (counters aside)
  std::vector<int> n;
  for (const auto& port : bankLayer) {
    int k = 0;
    for (int l : port) k += l == layer ? 1 : 0;
    n.push_back(k);
  }
  return n;
}

Schedule schedule(const Circuit& c) {
  Schedule s;
  s.level.assign(c.nodes().size(), 0);
  s.bankLayer.resize(c.memories().size());
  std::map<int, int> headsUsed;  // layer -> DeltaNet heads placed there
  std::map<int, bool> attention;  // layer -> holds a lookup (an attention layer)
  s.lookupLayer.assign(c.lookups().size(), 0);
  s.counterLayer.assign(c.counters().size(), 0);
  for (size_t i = 0; i < c.nodes().size(); ++i) {
    const Node& n = c.nodes()[i];
    if (n.kind == NodeKind::LookupRead) {
      int& layer = s.lookupLayer[n.port];
      if (layer == 0) {
        int first = 1;
        for (WireId r : c.reads(static_cast<WireId>(i))) first = std::max(first, s.level[r] + 1);
        while (attention[first] || headsUsed[first] > 0) ++first;
        attention[first] = true;
        layer = first;
      }
      s.level[i] = layer;
      continue;
    }
    if (n.kind == NodeKind::CountRead) {
      int& layer = s.counterLayer[n.port];
      if (layer == 0) {
        int first = 1;
        for (WireId r : c.reads(static_cast<WireId>(i))) first = std::max(first, s.level[r] + 1);
        const int thresholds = static_cast<int>(c.counters()[n.port].atLeast.size());
        auto fits = [&](int l) {
          return headsUsed[l] < kHeadsPerLayer && !attention[l] && headsUsed[l + 1] + thresholds <= kHeadsPerLayer &&
                 !attention[l + 1];
        };
        while (!fits(first)) ++first;
        ++headsUsed[first];
        headsUsed[first + 1] += thresholds;
        layer = first;
      }
      s.level[i] = layer + 1;
      continue;
    }
    if (n.kind == NodeKind::MemoryRead) {
      std::vector<int>& layers = s.bankLayer[n.port];
      if (layers.empty()) {
        int first = 1;
        for (WireId r : c.reads(static_cast<WireId>(i))) first = std::max(first, s.level[r] + 1);
        for (size_t b = 0; b < c.memories()[n.port].banks.size(); ++b) {
          while (headsUsed[first] >= kHeadsPerLayer || attention[first]) ++first;
          ++headsUsed[first];
          layers.push_back(first);
        }
      }
      s.level[i] = *std::max_element(layers.begin(), layers.end());
      continue;
    }
    switch (n.kind) {
      case NodeKind::Input: s.level[i] = 0; break;
      case NodeKind::Step: s.level[i] = 1 + std::max(levelOf(n.cond, s.level), levelOf(n.value, s.level)); break;
      case NodeKind::Gate: s.level[i] = 1 + std::max(s.level[n.control], levelOf(n.value, s.level)); break;
      case NodeKind::Sum: s.level[i] = levelOf(n.value, s.level); break;
      case NodeKind::MemoryRead: case NodeKind::LookupRead: case NodeKind::CountRead: break;
    }
    if (n.notBefore) s.level[i] = std::max(s.level[i], s.level[*n.notBefore]);
  }
  s.depth = 1;
  for (const auto& [name, wire] : c.outputs()) s.depth = std::max(s.depth, s.level[wire]);
  for (size_t i = 0; i < c.nodes().size(); ++i)
    if (c.nodes()[i].kind != NodeKind::Sum) s.depth = std::max(s.depth, s.level[i]);
  // The last layer is an attention layer (emit.h): a memory bank there needs one more.
  for (const auto& port : s.bankLayer)
    for (int l : port) s.depth = std::max(s.depth, l + 1);
  for (int l : s.counterLayer) s.depth = std::max(s.depth, l + 2);
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
