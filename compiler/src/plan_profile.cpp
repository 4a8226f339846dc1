// The layer plan's residual-stream profile (plan_profile.h).
#include "qgpu/compiler/plan_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {
namespace {

// Live at `layer`: written by it or an earlier layer (or the embedding) and not cleared by an
// earlier one — what the layer reads and what its MLP writes beside it, which need distinct
// residual channels (their peak over the layers is the plan's physical channel count).
bool liveAt(const ChannelInfo& c, int layer) { return c.writtenAt <= layer && (c.clearedAt == 0 || c.clearedAt >= layer); }

std::string stemOf(const std::string& name) {
  std::string s = name.substr(0, name.find('['));
  for (char& ch : s)
    if (ch >= '0' && ch <= '9') ch = '#';
  return s;
}

}  // namespace

std::vector<LayerProfile> layerProfiles(const LayerPlan& plan) {
  std::vector<LayerProfile> out;
  for (int l = 1; l <= plan.layers; ++l) {
    LayerProfile p;
    p.layer = l;
    for (const ChannelInfo& c : plan.channels) p.channels += liveAt(c, l) ? 1 : 0;
    if (static_cast<size_t>(l) <= plan.mlp.size()) {
      const PlannedLayer& m = plan.mlp[static_cast<size_t>(l - 1)];
      p.neurons = m.neurons.size();
      p.heads = m.heads.size();
      p.lookup = m.lookup.has_value();
    }
    out.push_back(p);
  }
  return out;
}

std::vector<ChannelGroup> liveChannelGroups(const LayerPlan& plan, int layer) {
  if (layer < 1 || layer > plan.layers)
    throw CompileError(fmt::format("{}: layer {} is not in the plan (1..{})", plan.unit, layer, plan.layers));
  std::map<std::string, size_t> by;
  for (const ChannelInfo& c : plan.channels)
    if (liveAt(c, layer)) ++by[stemOf(c.name)];
  std::vector<ChannelGroup> out;
  for (const auto& [stem, n] : by) out.push_back({stem, n});
  std::stable_sort(out.begin(), out.end(), [](const ChannelGroup& a, const ChannelGroup& b) { return a.channels > b.channels; });
  return out;
}

std::vector<ChannelGroup> neuronGroups(const LayerPlan& plan, int layer) {
  if (layer < 1 || layer > plan.layers)
    throw CompileError(fmt::format("{}: layer {} is not in the plan (1..{})", plan.unit, layer, plan.layers));
  std::map<std::string, size_t> by;
  for (const PlannedNeuron& n : plan.mlp[static_cast<size_t>(layer - 1)].neurons) ++by[fmt::format("{} ({})", stemOf(n.gateName), neuronRoleName(n.role))];
  std::vector<ChannelGroup> out;
  for (const auto& [stem, n] : by) out.push_back({stem, n});
  std::stable_sort(out.begin(), out.end(), [](const ChannelGroup& a, const ChannelGroup& b) { return a.channels > b.channels; });
  return out;
}

}  // namespace qgpu::compiler
