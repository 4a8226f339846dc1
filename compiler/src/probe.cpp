// Probe mode (probe.h): the engine's residual after every layer against the IR's wire values.
#include "qgpu/compiler/probe.h"

#include <fmt/format.h>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {

std::string ProbeDifference::describe() const {
  std::string who;
  for (const std::string& w : writers) who += (who.empty() ? "" : "; ") + w;
  return fmt::format("after layer {}, channel {} ('{}') holds {} in the weights, {} in the IR{}", layer, channel, wire,
                     weights, ir, who.empty() ? std::string(" (no neuron of that layer writes it)") : "; written by " + who);
}

std::optional<ProbeDifference> probeLastPosition(const Circuit& c, const CompiledUnit& cu, const model::Model& m,
                                                 const std::vector<std::vector<int64_t>>& inputs,
                                                 const std::vector<int>& tokens) {
  if (inputs.empty()) throw CompileError("probe: no positions");
  Evaluator ev(c);
  std::vector<int64_t> values;
  for (const std::vector<int64_t>& in : inputs) values = ev.step(in);
  return probeLastPosition(values, cu, m, inputs, tokens);
}

std::optional<ProbeDifference> probeLastPosition(const std::vector<int64_t>& values, const CompiledUnit& cu,
                                                 const model::Model& m, const std::vector<std::vector<int64_t>>& inputs,
                                                 const std::vector<int>& tokens) {
  if (inputs.empty()) throw CompileError("probe: no positions");
  if (!tokens.empty() && tokens.size() != inputs.size()) throw CompileError("probe: tokens and inputs differ in length");
  const LayerPlan& plan = cu.plan;
  std::optional<ProbeDifference> first;
  const model::LayerObserver observe = [&](int layer, const Eigen::MatrixXf& x) {
    if (first) return;
    const Eigen::Index last = x.cols() - 1;
    std::optional<ProbeDifference> found;
    bool fresh = false;  // found is a channel this layer wrote: its writers are the suspects
    for (size_t v = 0; v < plan.channels.size(); ++v) {
      const ChannelInfo& ci = plan.channels[v];
      if (!ci.wire || ci.writtenAt > layer || (ci.clearedAt != 0 && ci.clearedAt <= layer)) continue;
      const double got = x(static_cast<Eigen::Index>(ci.physical), last);
      const int64_t want = values.at(*ci.wire);
      if (got == static_cast<double>(want)) continue;
      if (found && (fresh || ci.writtenAt != layer)) continue;
      ProbeDifference d;
      d.layer = layer;
      d.channel = ci.physical;
      d.wire = ci.name;
      d.weights = got;
      d.ir = want;
      if (layer >= 1) {
        const PlannedLayer& pl = plan.mlp[static_cast<size_t>(layer - 1)];
        for (const PlannedWrite& w : pl.writes) {
          if (w.channel != v) continue;
          for (const auto& [n, weight] : w.neurons)
            d.writers.push_back(fmt::format("neuron {} (gate '{}', {})", n, pl.neurons[n].gateName,
                                            neuronRoleName(pl.neurons[n].role)));
        }
      }
      found = d;
      fresh = ci.writtenAt == layer;
      if (fresh) break;
    }
    first = found;
  };
  model::DecodeState st = m.newState();
  if (!tokens.empty()) {
    m.forward(st, tokens, model::Logits::LastOnly, &observe);
  } else {
    Eigen::MatrixXf x(cu.config.hiddenSize, static_cast<Eigen::Index>(inputs.size()));
    for (size_t p = 0; p < inputs.size(); ++p) x.col(static_cast<Eigen::Index>(p)) = cu.residual(inputs[p]);
    m.forwardEmbeddings(st, std::move(x), model::Logits::LastOnly, &observe);
  }
  return first;
}

}  // namespace qgpu::compiler
