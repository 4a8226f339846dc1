// Pass 2, allocation: residual channels for the anchors, the inputs, every wire a later
// layer reads and every output; MLP neurons per layer for every gate; the down-projection
// rows that write each channel. The plan is what emission turns into tensors and what
// the utilisation report counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/schedule.h"

namespace qgpu::compiler {

/// Gains of the neuron kinds (docs/compiler.md §2). A step's pair needs gain >= 89 so
/// that its low neuron is exactly off at cond = -1 (silu(x) = -0 only for x <= -89); a
/// gate's single neuron needs gain >= 17 (silu(x) = x only from 17 on). Powers of two, so
/// the down projection's 1/gain is exact.
struct Gains {
  int64_t step = 128;
  int64_t gate = 32;
};

/// An integer form over channels; `constant` is carried by the ONE channel.
struct ChannelForm {
  int64_t constant = 0;
  std::vector<std::pair<uint32_t, int64_t>> terms;  // (channel, coefficient)
};

enum class NeuronRole { StepHigh, StepLow, Gate, Pass };
const char* neuronRoleName(NeuronRole r);

struct PlannedNeuron {
  NeuronRole role;
  std::string gateName;  // the IR node it implements (proof messages name it)
  ChannelForm gate;      // pre-activation, before the role's gain
  int64_t gain = 0;
  ChannelForm up;
};

struct PlannedWrite {
  uint32_t channel;
  std::vector<std::pair<uint32_t, double>> neurons;  // (neuron index in the layer, down weight)
};

struct PlannedLayer {
  std::vector<PlannedNeuron> neurons;
  std::vector<PlannedWrite> writes;
};

struct ChannelInfo {
  std::string name;
  enum class Kind { Anchor, Input, Wire, Output } kind;
  int writtenAt = 0;  // 0: embedding (anchors, inputs); else the layer whose MLP writes it
  Range range;        // IR range (inputs: declared)
};

struct LayerPlan {
  std::string unit;
  int layers = 0;
  uint32_t anchors = 0;    // channels 0..anchors-1; channel 0 normalises to ONE
  std::vector<ChannelInfo> channels;
  std::vector<uint32_t> inputChannels;   // per circuit input
  std::vector<uint32_t> outputChannels;  // per circuit output
  std::vector<PlannedLayer> mlp;         // per layer (0-based; IR level l is mlp[l-1])
  Gains gains;
};

/// The ONE channel's index: the anchor whose normalised value is 1.
constexpr uint32_t kOneChannel = 0;

LayerPlan planLayers(const Circuit& c, const Schedule& s, uint32_t anchors, const Gains& gains = {});

}  // namespace qgpu::compiler
