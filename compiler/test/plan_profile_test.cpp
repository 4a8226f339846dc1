// The layer plan's profile (plan_profile.h) on the joined step and its parts: the widest
// layer needs exactly the plan's residual channels (the profile counts what the allocator
// must hold at once), the groups at a layer add up to its count, and a layer outside the
// plan is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <numeric>

#include "qgpu/compiler/catalogue.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/plan_profile.h"
#include "qgpu/compiler/report.h"

namespace qgpu::compiler {
namespace {

TEST(PlanProfile, TheWidestLayerNeedsThePlansChannels) {
  for (const char* name : {"alu_write", "memory", "float_lane", "step"}) {
    const Unit u = findUnitOrPlan(name).build();
    const LayerPlan plan = planLayers(u.circuit, schedule(u.circuit), 2);
    const std::vector<LayerProfile> layers = layerProfiles(plan);
    ASSERT_EQ(layers.size(), static_cast<size_t>(plan.layers)) << name;
    const auto widest = std::max_element(layers.begin(), layers.end(),
                                         [](const LayerProfile& a, const LayerProfile& b) { return a.channels < b.channels; });
    EXPECT_EQ(widest->channels, plan.physicalChannels) << name << " at layer " << widest->layer;
    for (const LayerProfile& p : layers) {
      const std::vector<ChannelGroup> groups = liveChannelGroups(plan, p.layer);
      const size_t sum = std::accumulate(groups.begin(), groups.end(), size_t{0},
                                         [](size_t s, const ChannelGroup& g) { return s + g.channels; });
      ASSERT_EQ(sum, p.channels) << name << " layer " << p.layer;
      ASSERT_TRUE(std::is_sorted(groups.begin(), groups.end(),
                                 [](const ChannelGroup& a, const ChannelGroup& b) { return a.channels > b.channels; }));
    }
    EXPECT_THROW(liveChannelGroups(plan, 0), CompileError);
    EXPECT_THROW(liveChannelGroups(plan, plan.layers + 1), CompileError);
  }
}

// The joined step in the 2B's shape: its residual channels within the hidden size and every
// layer's MLP within the intermediate size — the gate for anything added to the step.
TEST(PlanProfile, TheJoinedStepFitsTheTwoB) {
  const Unit u = findUnitOrPlan("step").build();
  const LayerPlan plan = planLayers(u.circuit, schedule(u.circuit), 2);
  EXPECT_LE(plan.physicalChannels, static_cast<uint32_t>(Budget2B::hidden));
  for (const LayerProfile& p : layerProfiles(plan)) {
    EXPECT_LE(p.neurons, static_cast<size_t>(Budget2B::intermediate)) << "layer " << p.layer;
    EXPECT_LE(p.heads, static_cast<size_t>(Budget2B::deltaNetHeads)) << "layer " << p.layer;
    const std::vector<ChannelGroup> neurons = neuronGroups(plan, p.layer);
    const size_t sum = std::accumulate(neurons.begin(), neurons.end(), size_t{0},
                                       [](size_t s, const ChannelGroup& g) { return s + g.channels; });
    EXPECT_EQ(sum, p.neurons) << "layer " << p.layer;
  }
  std::cout << "[ step ] " << plan.layers << " layers, " << plan.physicalChannels << " residual channels\n";
}

}  // namespace
}  // namespace qgpu::compiler
