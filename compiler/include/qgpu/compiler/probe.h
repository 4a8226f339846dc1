// Probe mode: where the weights first part from the IR at one position. The engine's
// residual stream after the embedding and after every layer is compared, channel by
// channel, with the IR's value of the wire the layer plan keeps in that channel (the
// plan's channel map); the first layer with a difference, its channel and wire, both values
// and the neurons of that layer that write the channel name the fault — a corrupted weight
// is localised to its layer and gate. A difference nowhere in the residual puts the fault in
// the final norm or the token head.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {

struct ProbeDifference {
  int layer = 0;             // after which layer the residual first differs (0: the embedding)
  uint32_t channel = 0;      // the residual channel
  std::string wire;          // the IR wire the plan keeps there
  double weights = 0;        // the engine's value
  int64_t ir = 0;            // the IR's
  std::vector<std::string> writers;  // that layer's neurons that write the channel
  std::string describe() const;
};

/// One sequence through the IR (`c`, with `cu` compiled from it) and the engine (`m`), from
/// empty states: position p's IR inputs are inputs[p]; the engine reads tokens[p] where
/// `tokens` is given (a unit with token I/O), else cu.residual(inputs[p]). Compares the last
/// position's residual after every layer; nothing when every channel holds its wire's value.
std::optional<ProbeDifference> probeLastPosition(const Circuit& c, const CompiledUnit& cu, const model::Model& m,
                                                 const std::vector<std::vector<int64_t>>& inputs,
                                                 const std::vector<int>& tokens = {});
/// The same with the IR's values at the last position already known (Evaluator::step's), for
/// a caller that evaluated the sequence itself.
std::optional<ProbeDifference> probeLastPosition(const std::vector<int64_t>& irValues, const CompiledUnit& cu,
                                                 const model::Model& m, const std::vector<std::vector<int64_t>>& inputs,
                                                 const std::vector<int>& tokens = {});

}  // namespace qgpu::compiler
