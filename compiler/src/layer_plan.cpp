// Allocation pass: channels, neurons and down-projection rows from a scheduled circuit.
#include "qgpu/compiler/layer_plan.h"

#include <fmt/format.h>

#include <map>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {

const char* neuronRoleName(NeuronRole r) {
  switch (r) {
    case NeuronRole::StepHigh: return "step (high neuron)";
    case NeuronRole::StepLow: return "step (low neuron)";
    case NeuronRole::Gate: return "gate";
    case NeuronRole::Pass: return "pass";
  }
  return "?";
}

namespace {

class Planner {
 public:
  Planner(const Circuit& c, const Schedule& s, uint32_t anchors, const Gains& g) : c_(c), s_(s) {
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
      const Node& n = c_.nodes()[i];
      for (const Expr* e : {&n.cond, &n.value})
        for (const Term& t : e->terms) live_[t.wire] = true;
      if (n.kind == NodeKind::Gate) live_[n.control] = true;
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
      bool ok = x.constant == 0 && x.terms.size() >= 2;
      for (const Term& t : x.terms) ok = ok && c_.node(t.wire).kind == NodeKind::Gate && s_.level[t.wire] == s_.level[i];
      merged_[i] = ok;
    }
    // Which wires are read by a later level (so they need a channel).
    std::vector<bool> readLater(c_.nodes().size(), false);
    for (size_t i = 0; i < c_.nodes().size(); ++i) {
      const Node& n = c_.nodes()[i];
      if (!live_[i]) continue;
      if (n.kind == NodeKind::Step || n.kind == NodeKind::Gate) {
        for (const Term& t : expandStop(n.cond, s_.level[i]).terms) readLater[t.wire] = true;
        for (const Term& t : expandStop(n.value, s_.level[i]).terms) readLater[t.wire] = true;
        if (n.kind == NodeKind::Gate) readLater[n.control] = true;
      }
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
          writeChannel(channelOf_[static_cast<WireId>(i)], w(static_cast<WireId>(i)), s_.level[i], n.name);
        }
        continue;
      }
      placeGate(static_cast<WireId>(i));
      if (readLater[i]) {
        channelOf_[static_cast<WireId>(i)] = newChannel(n.name, ChannelInfo::Kind::Wire, s_.level[i], n.range);
        writeChannel(channelOf_[static_cast<WireId>(i)], w(static_cast<WireId>(i)), s_.level[i], n.name);
      }
    }
    for (const auto& [name, wire] : c_.outputs()) placeOutput(name, wire);
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

  void placeGate(WireId id) {
    const Node& n = c_.node(id);
    const int level = s_.level[id];
    auto& contrib = contribution_[id];
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
      if (s_.level[t.wire] == level && c_.node(t.wire).kind != NodeKind::Input) {
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
    // A wire that already has a channel is its own output channel.
    if (n.kind != NodeKind::Sum) {
      auto it = channelOf_.find(wire);
      if (it != channelOf_.end() && n.kind != NodeKind::Input) {
        plan_.outputChannels.push_back(it->second);
        return;
      }
    }
    const int level = std::max(1, s_.level[wire]);
    uint32_t ch = newChannel(name, ChannelInfo::Kind::Output, level, n.range);
    writeChannel(ch, w(wire), level, name);
    plan_.outputChannels.push_back(ch);
    if (n.kind != NodeKind::Sum && n.kind != NodeKind::Input) channelOf_[wire] = ch;
  }

  const Circuit& c_;
  const Schedule& s_;
  LayerPlan plan_;
  std::vector<bool> live_;
  std::vector<bool> merged_;  // per wire: a merged sum (one channel for its terms)
  std::map<WireId, uint32_t> channelOf_;
  std::map<WireId, std::vector<std::pair<uint32_t, double>>> contribution_;  // neurons of a gate
};

}  // namespace

LayerPlan planLayers(const Circuit& c, const Schedule& s, uint32_t anchors, const Gains& gains) {
  if (anchors < 1) throw CompileError("planLayers: at least one anchor channel is needed");
  return Planner(c, s, anchors, gains).run();
}

}  // namespace qgpu::compiler
