// Scheduling pass: ASAP levels (Tracr's longest-path layer allocation) and the
// expansion of linear forms into base wires.
#include "qgpu/compiler/schedule.h"

#include <algorithm>
#include <limits>
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

namespace {

// Who reads a wire, and at which layer: a step or gate at its level (its MLP), a channel sum
// at its level (its terms of that level fold into its write, earlier ones are passed), a memory
// bank, lookup or counter in its layer's mixer (so at most one level before). Plain sums are
// looked through; a wire read by one, or by an output, is not moved (see sink).
struct Reader {
  WireId node;
  enum Kind { Neurons, Channel, Mixer } kind;
  int bank = -1;  // Mixer of a memory port: which bank
};

void addReads(const Circuit& c, const Expr& e, WireId reader, Reader::Kind kind, int bank,
              std::vector<std::vector<Reader>>& readers, std::vector<bool>& pinned) {
  for (const Term& t : e.terms) {
    const Node& n = c.node(t.wire);
    if (n.kind == NodeKind::Sum && !n.ownChannel) {
      // The planner may merge a plain sum's same-level terms into one channel: keep them put.
      for (const Term& u : expand(c, n.value).terms) pinned[u.wire] = true;
      addReads(c, n.value, reader, kind, bank, readers, pinned);
    } else {
      readers[t.wire].push_back({reader, kind, bank});
    }
  }
}

// Sinking, after ASAP: a step or gate moves down toward its first reader, but only as far as
// each of its inputs is read anyway at that level or later by another reader — so no wire
// lives longer, and the moved one's channel lives shorter (or not at all: a term that reaches
// its channel sum's level folds into its write). ASAP alone keeps, say, an address adder's
// thresholds live from the operands' level to the memory's; the widest layers of the joined
// step were such waits. Nodes are visited last to first, so every reader is already placed.
void sink(const Circuit& c, Schedule& s) {
  const size_t N = c.nodes().size();
  std::vector<std::vector<Reader>> readers(N);
  std::vector<bool> pinned(N, false);
  for (size_t i = 0; i < N; ++i) {
    const Node& n = c.nodes()[i];
    const WireId id = static_cast<WireId>(i);
    if (n.kind == NodeKind::Step || n.kind == NodeKind::Gate) {
      addReads(c, n.cond, id, Reader::Neurons, -1, readers, pinned);
      addReads(c, n.value, id, Reader::Neurons, -1, readers, pinned);
      if (n.kind == NodeKind::Gate) readers[n.control].push_back({id, Reader::Neurons, -1});
    } else if (n.kind == NodeKind::Sum && n.ownChannel) {
      addReads(c, n.value, id, Reader::Channel, -1, readers, pinned);
    }
  }
  for (size_t p = 0; p < c.memories().size(); ++p) {
    const MemoryPort& port = c.memories()[p];
    if (s.bankLayer[p].empty()) continue;  // no live read placed it
    for (size_t b = 0; b < port.banks.size(); ++b) {
      const MemoryBank& bank = port.banks[b];
      const WireId at = port.read.empty() ? 0 : port.read[0];
      for (const std::vector<WireId>* ws : {&bank.writeKey, &bank.readKey, &bank.data})
        for (WireId x : *ws) readers[x].push_back({at, Reader::Mixer, static_cast<int>(b)});
      if (bank.readSelect) readers[*bank.readSelect].push_back({at, Reader::Mixer, static_cast<int>(b)});
      addReads(c, bank.writeEnable, at, Reader::Mixer, static_cast<int>(b), readers, pinned);
    }
  }
  // Lookups and counters: their inputs stay where ASAP put them.
  for (const Lookup& lk : c.lookups()) {
    for (const Bus* b : {&lk.key, &lk.value})
      for (WireId x : *b) pinned[x] = true;
    for (const Bus& q : lk.queries)
      for (WireId x : q) pinned[x] = true;
  }
  for (const Counter& k : c.counters()) pinned[k.marker] = pinned[k.counted] = true;
  for (const auto& [name, wire] : c.outputs())
    for (const Term& t : expand(c, w(wire)).terms) pinned[t.wire] = true;

  auto readLayer = [&](const Reader& r) {
    if (r.kind != Reader::Mixer) return s.level[r.node];
    const Node& n = c.node(r.node);
    return s.bankLayer[n.port][static_cast<size_t>(r.bank)];
  };
  // The latest level at which `x` may be computed for reader r.
  auto latestFor = [&](const Reader& r) {
    switch (r.kind) {
      case Reader::Neurons: return s.level[r.node] - 1;
      case Reader::Channel: return s.level[r.node];
      case Reader::Mixer: return readLayer(r) - 1;
    }
    return 0;
  };
  for (size_t i = N; i-- > 0;) {
    const Node& n = c.nodes()[i];
    if ((n.kind != NodeKind::Step && n.kind != NodeKind::Gate) || pinned[i] || readers[i].empty()) continue;
    int latest = std::numeric_limits<int>::max();
    for (const Reader& r : readers[i]) latest = std::min(latest, latestFor(r));
    if (latest <= s.level[i]) continue;
    // Each input must be read at `latest` or later by another reader anyway.
    std::vector<WireId> inputs;
    for (const Expr* e : {&n.cond, &n.value})
      for (const Term& t : expand(c, *e).terms) inputs.push_back(t.wire);
    if (n.kind == NodeKind::Gate) inputs.push_back(n.control);
    for (WireId x : inputs) {
      int others = 0;
      for (const Reader& r : readers[x])
        if (r.node != static_cast<WireId>(i)) others = std::max(others, readLayer(r));
      latest = std::min(latest, others);
    }
    if (latest > s.level[i]) s.level[i] = latest;
  }
  // Sums sit at their terms' deepest level.
  for (size_t i = 0; i < N; ++i)
    if (c.nodes()[i].kind == NodeKind::Sum) s.level[i] = levelOf(c.nodes()[i].value, s.level);
}

}  // namespace

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
    if (n.notBefore) s.level[i] = std::max(s.level[i], s.level[*n.notBefore] + static_cast<int>(n.notBeforeGap));
  }
  sink(c, s);
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
