// Probe mode (probe.h) on a compiled unit: a correct unit's residual equals the IR's wire
// values after every layer, and a weight corrupted in one neuron's down projection is found
// after that neuron's layer, in the channel it writes, with that neuron named among the
// channel's writers.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <random>

#include "edited_unit.h"
#include "engine_run.h"
#include "qgpu/compiler/probe.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {

std::vector<int64_t> randomInputs(const Circuit& c, std::mt19937_64& rng) {
  std::vector<int64_t> in;
  for (WireId x : c.inputs()) {
    const Range r = c.node(x).range;
    in.push_back(r.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(r.hi - r.lo + 1)));
  }
  return in;
}

TEST(Probe, FindsACorruptedWeightInItsLayerAndNamesItsNeuron) {
  const Unit u = integerAddUnit(32, 4, false);
  const CompiledUnit cu = compileCircuit(u.circuit);
  ASSERT_GE(cu.plan.layers, 2);
  const model::Model clean = load(cu, 0.0);
  std::mt19937_64 rng(3);
  for (int t = 0; t < 20; ++t) {
    const std::optional<ProbeDifference> d = probeLastPosition(u.circuit, cu, clean, {randomInputs(u.circuit, rng)});
    ASSERT_FALSE(d) << d->describe();
  }
  // Corrupt layer 2's first write: one neuron's weight into the channel it writes.
  const int layer = 2;
  const PlannedLayer& pl = cu.plan.mlp[layer - 1];
  ASSERT_FALSE(pl.writes.empty());
  const PlannedWrite& w = pl.writes.front();
  const uint32_t neuron = w.neurons.front().first;
  const uint32_t physical = cu.plan.channels[w.channel].physical;
  const int64_t inter = cu.config.intermediateSize;
  const CompiledUnit bad = withTensorEdit(cu, fmt::format("model.layers.{}.mlp.down_proj.weight", layer - 1),
                                          [&](std::vector<float>& v) { v[physical * static_cast<size_t>(inter) + neuron] += 0.5f; });
  const model::Model broken = load(bad, 0.0);
  int found = 0;
  for (int t = 0; t < 200 && found < 3; ++t) {
    const std::optional<ProbeDifference> d = probeLastPosition(u.circuit, bad, broken, {randomInputs(u.circuit, rng)});
    if (!d) continue;  // the neuron was silent at these inputs
    ++found;
    EXPECT_EQ(d->layer, layer) << d->describe();
    EXPECT_EQ(d->channel, physical) << d->describe();
    EXPECT_EQ(d->wire, cu.plan.channels[w.channel].name);
    const std::string gate = pl.neurons[neuron].gateName;
    EXPECT_NE(d->describe().find(fmt::format("neuron {} (gate '{}'", neuron, gate)), std::string::npos) << d->describe();
  }
  EXPECT_EQ(found, 3) << "the corrupted neuron never fired";
}

}  // namespace
}  // namespace qgpu::compiler
