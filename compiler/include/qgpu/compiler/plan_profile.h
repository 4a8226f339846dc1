// Where a unit's layer plan spends the residual stream: per layer, the channels live there
// (written at or before it and not yet cleared), the MLP's neurons and the mixer's heads; and
// at one layer, the live channels grouped by the name of the wire they hold (lane and bit
// numbers folded), largest group first, and its MLP's neurons grouped alike — what to look
// at when a unit needs more channels or neurons than the 2B has (`qgpu compile plan`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/layer_plan.h"

namespace qgpu::compiler {

struct LayerProfile {
  int layer = 0;       // 1-based
  size_t channels = 0;  // channels the layer reads or its MLP writes (the peak: the plan's physical count)
  size_t neurons = 0;
  size_t heads = 0;     // DeltaNet heads (banks and counters)
  bool lookup = false;  // an attention layer
};
std::vector<LayerProfile> layerProfiles(const LayerPlan& plan);

struct ChannelGroup {
  std::string stem;  // the wire name up to its first '[', digits as '#'
  size_t channels = 0;
};
/// The channels live at `layer` (1..plan.layers), grouped; throws CompileError outside.
std::vector<ChannelGroup> liveChannelGroups(const LayerPlan& plan, int layer);
/// The MLP neurons of `layer`, grouped the same way by the wire they compute (`channels`
/// counts neurons here); throws CompileError outside the plan.
std::vector<ChannelGroup> neuronGroups(const LayerPlan& plan, int layer);

}  // namespace qgpu::compiler
