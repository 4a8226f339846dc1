// Pass 1, scheduling: every gate at its MLP level (the longest path from the inputs
// in neuron levels; linear forms cost no level), and linear forms expanded into the
// wires that will hold channels.
#pragma once

#include <vector>

#include "qgpu/compiler/circuit.h"

namespace qgpu::compiler {

/// A wire that has neurons of its own (input, step, gate): what a channel can hold.
bool isBaseWire(const Node& n);

/// DeltaNet heads per layer (Qwen3.5-2B: linear_num_value_heads = linear_num_key_heads).
constexpr int kHeadsPerLayer = 16;

struct Schedule {
  std::vector<int> level;  // per wire: 0 for inputs, 1.. for the MLP layer that computes it
  int depth = 0;           // layers needed (at least 1)
  // Per memory port, per bank: the layer whose mixer holds it. A port's banks fill layers
  // from the first after its inputs, kHeadsPerLayer each; its read bits are re-quantised
  // in the MLP of its last bank's layer (their level).
  std::vector<std::vector<int>> bankLayer;
  // Per lookup: the attention layer that holds it (one head per layer; no banks there).
  std::vector<int> lookupLayer;
  // Per counter: the layer of its halving head; its threshold heads fill the next layer's
  // mixer, and its bits are re-quantised in that layer's MLP (their level).
  std::vector<int> counterLayer;
  std::vector<int> headsIn(int layer) const;  // per layer (1-based): the (port, bank) count
};

Schedule schedule(const Circuit& c);

/// `e` with every Sum wire replaced by its definition, recursively: a form over base wires.
Expr expand(const Circuit& c, const Expr& e);

}  // namespace qgpu::compiler
