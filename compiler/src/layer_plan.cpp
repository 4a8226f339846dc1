// Allocation pass: channels, neurons and down-projection rows from a scheduled circuit.
#include "qgpu/compiler/layer_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {

const char* neuronRoleName(NeuronRole r) {
  switch (r) {
    case NeuronRole::StepHigh: return "step (high neuron)";
    case NeuronRole::StepLow: return "step (low neuron)";
    case NeuronRole::Gate: return "gate";
    case NeuronRole::Pass: return "pass";
    case NeuronRole::Clear: return "clear";
    case NeuronRole::Requant: return "re-quantiser";
    case NeuronRole::Constant: return "constant";
  }
  return "?";
}

double counterRead(int k) {
  const double a = std::ldexp(1.0, -k);
  return a / std::sqrt(a * a + 1);
}

namespace {

class Planner {
 public:
  Planner(const Circuit& c, const Schedule& s, uint32_t anchors, const Gains& g, bool reuse) : c_(c), s_(s) {
    plan_.reusesChannels = reuse;
    plan_.unit = c.name();
    plan_.layers = s.depth;
    plan_.anchors = anchors;
    plan_.gains = g;
    plan_.mlp.resize(static_cast<size_t>(s.depth));
  }

  LayerPlan run() {
    for (uint32_t a = 0; a < plan_.anchors; ++a)
      plan_.channels.push_back({fmt::format("anchor{}", a), ChannelInfo::Kind::Anchor, 0, {0, 0}});
    for (WireId in : c_.inputs()) {
      channelOf_[in] = newChannel(c_.node(in).name, ChannelInfo::Kind::Input, 0, c_.node(in).range);
      plan_.inputChannels.push_back(channelOf_[in]);
    }
    // Dead-gate elimination: only what an output depends on gets neurons.
    live_.assign(c_.nodes().size(), false);
    for (const auto& [name, wire] : c_.outputs()) live_[wire] = true;
    for (size_t i = c_.nodes().size(); i-- > 0;) {
      if (!live_[i]) continue;
      for (WireId r : c_.reads(static_cast<WireId>(i))) live_[r] = true;
    }
    // Merged sums: a sum of two or more gates of one level (no constant) is written into
    // one channel by their neurons, and later levels read that channel instead of one
    // channel per term (a shift's or a mux's partial terms need no channels of their own).
    // Only gates: the proof bounds a gate neuron's output by its value's range, while a
    // step pair is only tight when it is its channel's sole writer (docs/compiler.md §3).
    merged_.assign(c_.nodes().size(), false);
    for (size_t i = 0; i < c_.nodes().size(); ++i) {
      const Node& n = c_.nodes()[i];
      if (n.kind != NodeKind::Sum || !live_[i] || s_.level[i] < 1) continue;
      const Expr x = expand(c_, n.value);
      bool gates = x.constant == 0 && x.terms.size() >= 2, chain = gates;
      for (const Term& t : x.terms) {
        const Node& m = c_.node(t.wire);
        const bool sameLevel = s_.level[t.wire] == s_.level[i];
        gates = gates && m.kind == NodeKind::Gate && sameLevel;
        // A chain: unit steps on one form (the proof bounds it by its prefix sums, §3).
        chain = chain && m.kind == NodeKind::Step && m.structuralBit && sameLevel &&
                sameTerms(m.cond, c_.node(x.terms[0].wire).cond);
      }
      merged_[i] = gates || chain;
    }
    // An exclusive or or a channel (circuit.h) is written into its own channel, wherever its terms are.
    for (size_t i = 0; i < c_.nodes().size(); ++i)
      if (c_.nodes()[i].ownChannel && live_[i] && s_.level[i] >= 1) merged_[i] = true;
    // Which wires are read by a later level (so they need a channel).
    std::vector<bool> readLater(c_.nodes().size(), false);
    std::set<std::pair<NodeKind, uint32_t>> inputsMarked;
    for (size_t i = 0; i < c_.nodes().size(); ++i) {
      const Node& n = c_.nodes()[i];
      if (!live_[i]) continue;
      if (n.kind == NodeKind::Step || n.kind == NodeKind::Gate) {
        for (const Term& t : expandStop(n.cond, s_.level[i]).terms) readLater[t.wire] = true;
        for (const Term& t : expandStop(n.value, s_.level[i]).terms) readLater[t.wire] = true;
        if (n.kind == NodeKind::Gate) readLater[n.control] = true;
      }
      // A port's, lookup's or counter's mixer inputs, once for its first live read bit.
      if (n.kind == NodeKind::LookupRead && inputsMarked.insert({NodeKind::LookupRead, n.port}).second) {
        const Lookup& lk = c_.lookups()[n.port];
        for (const Bus* b : {&lk.key, &lk.value})
          for (WireId x : *b) readLater[x] = true;
        for (size_t q = 0; q < lk.queries.size(); ++q)
          if (queryLive(lk, q))
            for (WireId x : lk.queries[q]) readLater[x] = true;
      }
      if (n.kind == NodeKind::CountRead && inputsMarked.insert({NodeKind::CountRead, n.port}).second) {
        readLater[c_.counters()[n.port].marker] = true;
        readLater[c_.counters()[n.port].counted] = true;
      }
      if (n.kind == NodeKind::MemoryRead && inputsMarked.insert({NodeKind::MemoryRead, n.port}).second) {
        const MemoryPort& p = c_.memories()[n.port];
        for (size_t b = 0; b < p.banks.size(); ++b) {
          const MemoryBank& bank = p.banks[b];
          for (const std::vector<WireId>* ws : {&bank.writeKey, &bank.readKey, &bank.data})
            for (WireId x : *ws) readLater[x] = true;
          if (bank.readSelect) readLater[*bank.readSelect] = true;
          for (const Term& t : expandStop(bank.writeEnable, s_.bankLayer[n.port][b]).terms) readLater[t.wire] = true;
        }
      }
    }
    // So does a merged sum that mixes levels (an exclusive or).
    for (size_t i = 0; i < c_.nodes().size(); ++i) {
      if (!live_[i] || !merged_[i]) continue;
      for (const Term& t : expandStop(c_.nodes()[i].value, s_.level[i]).terms)
        if (s_.level[t.wire] != s_.level[i] && c_.node(t.wire).kind != NodeKind::Input) readLater[t.wire] = true;
    }
    // An output that mixes levels reads its earlier terms through a pass neuron: they
    // need channels too, even when no step or gate reads them.
    for (const auto& [name, wire] : c_.outputs()) {
      const int level = std::max(1, s_.level[wire]);
      for (const Term& t : expandStop(w(wire), level).terms)
        if (s_.level[t.wire] != level && c_.node(t.wire).kind != NodeKind::Input) readLater[t.wire] = true;
    }
    // Neurons (and channels) level by level, in wire order within a level.
    for (size_t i = 0; i < c_.nodes().size(); ++i) {
      const Node& n = c_.nodes()[i];
      if (n.kind == NodeKind::Input || !live_[i]) continue;
      if (n.kind == NodeKind::Sum) {
        if (merged_[i] && readLater[i]) {
          channelOf_[static_cast<WireId>(i)] = newChannel(n.name, ChannelInfo::Kind::Wire, s_.level[i], n.range);
          plan_.channels[channelOf_[static_cast<WireId>(i)]].declared = n.exclusive;
          writeChannel(channelOf_[static_cast<WireId>(i)], w(static_cast<WireId>(i)), s_.level[i], n.name);
        }
        continue;
      }
      placeGate(static_cast<WireId>(i));
      if (readLater[i] && n.kind != NodeKind::LookupRead) {  // a lookup's channels come with it
        channelOf_[static_cast<WireId>(i)] = newChannel(n.name, ChannelInfo::Kind::Wire, s_.level[i], n.range);
        writeChannel(channelOf_[static_cast<WireId>(i)], w(static_cast<WireId>(i)), s_.level[i], n.name);
      }
    }
    for (const auto& [name, wire] : c_.outputs()) placeOutput(name, wire);
    for (const auto& [wire, ch] : channelOf_)
      if (!plan_.channels[ch].wire && plan_.channels[ch].kind != ChannelInfo::Kind::Read) plan_.channels[ch].wire = wire;
    assignPhysicalChannels();
    return std::move(plan_);
  }

 private:
  uint32_t newChannel(const std::string& name, ChannelInfo::Kind kind, int layer, Range r) {
    plan_.channels.push_back({name, kind, layer, r});
    return static_cast<uint32_t>(plan_.channels.size() - 1);
  }

  // `e` over base wires and the merged sums of levels below `level`.
  Expr expandStop(const Expr& e, int level) const {
    Expr out(e.constant);
    for (const Term& t : e.terms) {
      const Node& n = c_.node(t.wire);
      if (n.kind == NodeKind::Sum && !(merged_[t.wire] && s_.level[t.wire] < level))
        out += t.coeff * expandStop(n.value, level);
      else
        out += t.coeff * w(t.wire);
    }
    return out;
  }

  ChannelForm form(const Expr& e, int level) const {
    Expr x = expandStop(e, level);
    ChannelForm f;
    f.constant = x.constant;
    for (const Term& t : x.terms) {
      auto it = channelOf_.find(t.wire);
      if (it == channelOf_.end())
        throw CompileError(fmt::format("{}: internal: wire '{}' has no channel", c_.name(), c_.node(t.wire).name));
      f.terms.push_back({it->second, t.coeff});
    }
    return f;
  }

  uint32_t addNeuron(int level, PlannedNeuron n) {
    auto& ns = plan_.mlp[static_cast<size_t>(level - 1)].neurons;
    ns.push_back(std::move(n));
    return static_cast<uint32_t>(ns.size() - 1);
  }

  // A memory port: its banks as heads of their layers' mixers, an inexact Read channel per
  // bit, and in the MLP of its last layer a re-quantiser per bit and one constant neuron.
  void placePort(uint32_t port, int level) {
    if (portNeurons_.count(port)) return;
    const MemoryPort& p = c_.memories()[port];
    const int first = *std::min_element(s_.bankLayer[port].begin(), s_.bankLayer[port].end());
    std::vector<uint32_t> reads;
    for (WireId r : p.read)
      reads.push_back(live_[r] ? newChannel(c_.node(r).name + " (read)", ChannelInfo::Kind::Read, first, {0, 1}) : kNotRead);
    for (size_t b = 0; b < p.banks.size(); ++b) {
      const MemoryBank& bank = p.banks[b];
      const int layer = s_.bankLayer[port][b];
      PlannedLayer& pl = plan_.mlp[static_cast<size_t>(layer - 1)];
      PlannedHead h;
      h.name = fmt::format("{} bank {}", p.name, b);
      h.head = static_cast<int>(pl.heads.size());
      auto channels = [&](const std::vector<WireId>& ws) {
        std::vector<uint32_t> out;
        for (WireId x : ws) out.push_back(channelOf_.at(x));
        return out;
      };
      h.readKey = channels(bank.readKey);
      h.writeKey = channels(bank.writeKey);
      h.data = channels(bank.data);
      h.writeEnable = form(bank.writeEnable, layer);
      if (bank.readSelect) h.readSelect = channelOf_.at(*bank.readSelect);
      h.out = reads;
      h.delay = bank.delay;
      pl.heads.push_back(std::move(h));
    }
    portNeurons_[port] = requantisers(reads, level, p.name);
  }

  // Re-quantisers of `reads` (inexact Read channels) and one constant neuron at `level`.
  std::pair<std::vector<uint32_t>, uint32_t> requantisers(const std::vector<uint32_t>& reads, int level,
                                                          const std::string& name) {
    ChannelForm one;
    one.terms.push_back({kOneChannel, 1});
    std::vector<uint32_t> requant;
    for (uint32_t r : reads) {
      if (r == kNotRead) {
        requant.push_back(kNotRead);
        continue;
      }
      ChannelForm g;
      g.constant = kRequantOffset;
      g.terms.push_back({r, 1});
      ChannelForm up;
      up.constant = 1;
      requant.push_back(addNeuron(level, {NeuronRole::Requant, plan_.channels[r].name, g, 1, up}));
    }
    ChannelForm minusC;
    minusC.constant = -kRequantOffset / plan_.gains.gate;
    const uint32_t constant = addNeuron(level, {NeuronRole::Constant, name + " offset", one, plan_.gains.gate, minusC});
    return {requant, constant};
  }

  // A counter: its halving head in the mixer of its layer (an inexact multi-level Read
  // channel), a threshold head per bit in the next layer's mixer (a 0/1 Read channel each),
  // re-quantised in that layer's MLP, which also clears the halving read.
  void placeCounter(uint32_t index, int level) {
    if (portNeurons_.count(kCounterKey + index)) return;
    const Counter& k = c_.counters()[index];
    const int layer = s_.counterLayer[index];
    const uint32_t r = newChannel(k.name + " (halving read)", ChannelInfo::Kind::Read, layer, {0, 1});
    plan_.channels[r].keep = true;
    PlannedHead h;
    h.name = k.name + " halving";
    h.kind = PlannedHead::Kind::Halving;
    h.head = static_cast<int>(plan_.mlp[static_cast<size_t>(layer - 1)].heads.size());
    h.data = {channelOf_.at(k.marker)};  // also its key: slot 0 where 1, slot 1 where 0
    h.decay = form(kCounterDecayGain * w(k.counted) - kCounterDecayGain * w(k.marker) + kCounterDecayOff, layer);
    h.out = {r};
    plan_.mlp[static_cast<size_t>(layer - 1)].heads.push_back(std::move(h));
    std::vector<uint32_t> reads;
    PlannedLayer& tl = plan_.mlp[static_cast<size_t>(level - 1)];
    for (size_t j = 0; j < k.atLeast.size(); ++j) {
      reads.push_back(newChannel(c_.node(k.atLeast[j]).name + " (read)", ChannelInfo::Kind::Read, level, {0, 1}));
      PlannedHead t;
      t.name = fmt::format("{} threshold {}", k.name, k.from + j);
      t.kind = PlannedHead::Kind::Threshold;
      t.head = static_cast<int>(tl.heads.size());
      t.readKey = t.writeKey = t.data = {kOneChannel};
      t.count = r;
      t.threshold = k.from + static_cast<uint32_t>(j);
      t.out = {reads.back()};
      tl.heads.push_back(std::move(t));
    }
    portNeurons_[kCounterKey + index] = requantisers(reads, level, k.name);
  }

  // A lookup: the attention head of its layer, and one exact channel per value bit that its
  // o_proj writes (readers and outputs use those).
  void placeLookup(uint32_t index) {
    if (lookupPlaced_.count(index)) return;
    lookupPlaced_.insert(index);
    const Lookup& lk = c_.lookups()[index];
    const int layer = s_.lookupLayer[index];
    PlannedLookup pl;
    pl.name = lk.name;
    auto channel = [&](WireId x) {
      const auto it = channelOf_.find(x);
      if (it == channelOf_.end())
        throw CompileError(fmt::format("{}: lookup '{}' at layer {} reads '{}' (level {}), which has no channel there",
                                       c_.name(), lk.name, layer, c_.node(x).name, s_.level[x]));
      return it->second;
    };
    for (WireId x : lk.key) pl.key.push_back(channel(x));
    for (WireId x : lk.value) pl.value.push_back(channel(x));
    for (size_t q = 0; q < lk.queries.size(); ++q) {
      if (!queryLive(lk, q)) continue;  // no live read: no query head (its inputs have no channels)
      pl.queries.emplace_back();
      for (WireId x : lk.queries[q]) pl.queries.back().push_back(channel(x));
      pl.outs.emplace_back();
      for (WireId r : lk.reads[q]) {
        const uint32_t ch = newChannel(c_.node(r).name, ChannelInfo::Kind::Wire, layer, {0, 1});
        channelOf_[r] = ch;
        pl.outs.back().push_back(ch);
      }
    }
    plan_.mlp[static_cast<size_t>(layer - 1)].lookup = std::move(pl);
  }

  // A query of a lookup that some live wire reads.
  bool queryLive(const Lookup& lk, size_t q) const {
    return std::any_of(lk.reads[q].begin(), lk.reads[q].end(), [&](WireId r) { return live_[r]; });
  }

  void placeGate(WireId id) {
    const Node& n = c_.node(id);
    const int level = s_.level[id];
    if (n.kind == NodeKind::LookupRead) {
      placeLookup(n.port);
      return;
    }
    auto& contrib = contribution_[id];
    if (n.kind == NodeKind::MemoryRead || n.kind == NodeKind::CountRead) {
      const uint32_t key = n.kind == NodeKind::MemoryRead ? n.port : kCounterKey + n.port;
      if (n.kind == NodeKind::MemoryRead) placePort(n.port, level);
      else placeCounter(n.port, level);
      const auto& [requant, constant] = portNeurons_.at(key);
      contrib.push_back({requant.at(n.bit), 1.0});
      contrib.push_back({constant, 1.0});
      return;
    }
    if (n.kind == NodeKind::Step) {
      const int64_t G = plan_.gains.step;
      PlannedNeuron hi{NeuronRole::StepHigh, n.name, form(n.cond + 1, level), G, form(n.value, level)};
      PlannedNeuron lo{NeuronRole::StepLow, n.name, form(n.cond, level), G, form(n.value, level)};
      contrib.push_back({addNeuron(level, std::move(hi)), 1.0 / static_cast<double>(G)});
      contrib.push_back({addNeuron(level, std::move(lo)), -1.0 / static_cast<double>(G)});
    } else {
      const int64_t G = plan_.gains.gate;
      ChannelForm ctl;
      ctl.terms.push_back({channelOf_.at(n.control), 1});
      PlannedNeuron g{NeuronRole::Gate, n.name, ctl, G, form(n.value, level)};
      contrib.push_back({addNeuron(level, std::move(g)), 1.0 / static_cast<double>(G)});
    }
  }

  // Channel `ch` receives the value of `e` at layer `level`: terms computed at that level
  // come from their neurons, the rest (and the constant) through one pass neuron.
  void writeChannel(uint32_t ch, const Expr& e, int level, const std::string& name) {
    Expr x = expandStop(e, level);
    PlannedWrite write{ch, {}};
    Expr earlier(x.constant);
    for (const Term& t : x.terms) {
      const NodeKind k = c_.node(t.wire).kind;
      if (s_.level[t.wire] == level && k != NodeKind::Input && k != NodeKind::LookupRead) {  // a lookup's: its channel
        for (const auto& [neuron, weight] : contribution_.at(t.wire))
          write.neurons.push_back({neuron, weight * static_cast<double>(t.coeff)});
      } else {
        earlier += t.coeff * w(t.wire);
      }
    }
    if (earlier.constant != 0 || !earlier.terms.empty()) {
      ChannelForm one;
      one.terms.push_back({kOneChannel, 1});
      PlannedNeuron pass{NeuronRole::Pass, name, one, plan_.gains.gate, form(earlier, level)};
      write.neurons.push_back({addNeuron(level, std::move(pass)), 1.0 / static_cast<double>(plan_.gains.gate)});
    }
    plan_.mlp[static_cast<size_t>(level - 1)].writes.push_back(std::move(write));
  }

  void placeOutput(const std::string& name, WireId wire) {
    const Node& n = c_.node(wire);
    // A wire that already has a channel is its own output channel (so is a merged sum).
    if (n.kind != NodeKind::Sum || merged_[wire]) {
      auto it = channelOf_.find(wire);
      if (it != channelOf_.end() && n.kind != NodeKind::Input) {
        plan_.outputChannels.push_back(it->second);
        return;
      }
    }
    const int level = std::max(1, s_.level[wire]);
    uint32_t ch = newChannel(name, ChannelInfo::Kind::Output, level, n.range);
    plan_.channels[ch].wire = wire;
    writeChannel(ch, w(wire), level, name);
    plan_.outputChannels.push_back(ch);
    if (n.kind != NodeKind::Sum && n.kind != NodeKind::Input) channelOf_[wire] = ch;
  }

  // Channel reuse, as interval colouring: a virtual channel is busy from the layer that
  // writes it to its last reader's layer, where a clear neuron zeroes it; sorted by the
  // writing layer, each takes a residual channel whose last occupant was cleared before.
  void assignPhysicalChannels() {
    const size_t V = plan_.channels.size();
    std::vector<int> lastRead(V, 0);
    std::vector<bool> pinned(V, false);  // anchors and outputs: read by every norm or the head
    for (uint32_t a = 0; a < plan_.anchors; ++a) pinned[a] = true;
    for (uint32_t o : plan_.outputChannels) pinned[o] = true;
    for (uint32_t v = 0; v < V; ++v) pinned[v] = pinned[v] || plan_.channels[v].keep;
    for (size_t l = 0; l < plan_.mlp.size(); ++l)
      for (const PlannedNeuron& n : plan_.mlp[l].neurons)
        for (const ChannelForm* f : {&n.gate, &n.up})
          for (const auto& [ch, k] : f->terms) lastRead[ch] = std::max(lastRead[ch], static_cast<int>(l) + 1);
    for (size_t l = 0; l < plan_.mlp.size(); ++l)  // the mixer reads before the MLP: cleared there at the earliest
      for (const PlannedHead& h : plan_.mlp[l].heads) {
        std::vector<uint32_t> chs = h.readKey;
        chs.insert(chs.end(), h.writeKey.begin(), h.writeKey.end());
        chs.insert(chs.end(), h.data.begin(), h.data.end());
        for (const auto& [ch, k] : h.writeEnable.terms) chs.push_back(ch);
        for (const auto& [ch, k] : h.decay.terms) chs.push_back(ch);
        if (h.readSelect) chs.push_back(*h.readSelect);
        if (h.count) chs.push_back(*h.count);
        for (uint32_t ch : chs) lastRead[ch] = std::max(lastRead[ch], static_cast<int>(l) + 1);
      }
    for (size_t l = 0; l < plan_.mlp.size(); ++l) {
      const auto& lk = plan_.mlp[l].lookup;
      if (!lk) continue;
      std::vector<const std::vector<uint32_t>*> inputs{&lk->key, &lk->value};
      for (const auto& q : lk->queries) inputs.push_back(&q);
      for (const std::vector<uint32_t>* chs : inputs)
        for (uint32_t ch : *chs) lastRead[ch] = std::max(lastRead[ch], static_cast<int>(l) + 1);
    }
    std::vector<uint32_t> order(V);
    for (uint32_t v = 0; v < V; ++v) order[v] = v;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return plan_.channels[a].writtenAt < plan_.channels[b].writtenAt; });
    // Free residual channels by the layer after which they are free (cleared there).
    std::vector<std::pair<int, uint32_t>> released;  // (cleared at layer, physical)
    std::vector<uint32_t> freeNow;
    uint32_t next = 0;
    for (uint32_t v : order) {
      ChannelInfo& ci = plan_.channels[v];
      // A Read channel is written by a mixer and read by the same layer's MLP at the latest.
      const bool clears = plan_.reusesChannels && !pinned[v] &&
                          (lastRead[v] > ci.writtenAt || (ci.kind == ChannelInfo::Kind::Read && lastRead[v] > 0));
      // Channels cleared at a layer before this one's writer are free.
      for (auto it = released.begin(); it != released.end();) {
        if (it->first < ci.writtenAt) {
          freeNow.push_back(it->second);
          it = released.erase(it);
        } else {
          ++it;
        }
      }
      std::sort(freeNow.begin(), freeNow.end(), std::greater<>());  // lowest index first (back)
      if (!freeNow.empty() && v >= plan_.anchors) {
        ci.physical = freeNow.back();
        freeNow.pop_back();
      } else {
        ci.physical = next++;
      }
      if (clears) {
        ci.clearedAt = lastRead[v];
        released.push_back({ci.clearedAt, ci.physical});
        ChannelForm one, self;
        one.terms.push_back({kOneChannel, 1});
        self.terms.push_back({v, 1});
        PlannedNeuron clear{NeuronRole::Clear, "clear " + ci.name, one, plan_.gains.gate, self};
        const uint32_t n = addNeuron(ci.clearedAt, std::move(clear));
        plan_.mlp[static_cast<size_t>(ci.clearedAt - 1)].writes.push_back(
            {v, {{n, -1.0 / static_cast<double>(plan_.gains.gate)}}});
      }
    }
    plan_.physicalChannels = next;
  }

  const Circuit& c_;
  const Schedule& s_;
  LayerPlan plan_;
  std::vector<bool> live_;
  std::vector<bool> merged_;  // per wire: a merged sum (one channel for its terms)
  std::map<WireId, uint32_t> channelOf_;
  std::map<WireId, std::vector<std::pair<uint32_t, double>>> contribution_;  // neurons of a gate
  // Per memory port (and counter, from kCounterKey): its re-quantisers and constant neuron.
  static constexpr uint32_t kCounterKey = 1u << 30;
  std::map<uint32_t, std::pair<std::vector<uint32_t>, uint32_t>> portNeurons_;
  std::set<uint32_t> lookupPlaced_;
};

}  // namespace

LayerPlan planLayers(const Circuit& c, const Schedule& s, uint32_t anchors, const Gains& gains, bool reuseChannels) {
  if (anchors < 1) throw CompileError("planLayers: at least one anchor channel is needed");
  return Planner(c, s, anchors, gains, reuseChannels).run();
}

}  // namespace qgpu::compiler
