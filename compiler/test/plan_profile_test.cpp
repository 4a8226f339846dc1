// The layer plan's profile (plan_profile.h) on the joined step and its parts: the widest
// layer needs exactly the plan's residual channels (the profile counts what the allocator
// must hold at once), the groups at a layer add up to its count, and a layer outside the
// plan is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "qgpu/compiler/catalogue.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/plan_profile.h"

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

}  // namespace
}  // namespace qgpu::compiler
