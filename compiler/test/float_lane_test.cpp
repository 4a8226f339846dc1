// The lane-serial float step (float_lane.h) joined on the operand select and the front end,
// fed nothing but each token's features, against the reference executor: at each position of
// every FADD, FSUB (f32), FMUL and FFMA step (one per active lane, in lane order), the result
// of that lane as machine::computeLane gives it for the operands the executor reads; then the
// weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "corpus_runs.h"
#include "qgpu/compiler/float_lane.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/machine/control.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

struct FloatStream {
  Stream stream;
  std::vector<std::optional<uint32_t>> want;  // per position: the lane's result
  std::map<machine::MOp, size_t> lanes;      // lane results checked, by op
};

FloatStream floatStream(const CorpusRun& r) {
  StepStream ss = stepStream(r);
  FloatStream fs{std::move(ss.stream), {}, {}};
  fs.want.resize(fs.stream.positions.size());
  for (size_t p = 0; p < ss.steps.size(); ++p) {
    if (!ss.steps[p]) continue;
    const ComputedStep& step = *ss.steps[p];
    const machine::MInstr& in = step.in;
    if (!floatLaneComputes(in)) continue;
    const uint32_t active = machine::guardedMask(step.state->mask, in.g != machine::kNoGuard,
                                                 (in.g & machine::kGuardNegated) != 0, step.predicates);
    size_t at = p;
    for (uint32_t l = 0; l < 4; ++l) {
      if (!((active >> l) & 1)) continue;
      if (at >= fs.want.size()) break;
      fs.want[at++] = static_cast<uint32_t>(
          machine::computeLane(in, step.operand[0][l], step.operand[1][l], step.operand[2][l]) & 0xffffffffu);
      ++fs.lanes[in.op];
    }
  }
  return fs;
}

TEST(LaneSerialFloat, TheIrComputesEveryLaneOfEveryFmulAndFfma) {
  Unit u = laneSerialFloatUnit();
  size_t runs = 0;
  std::map<machine::MOp, size_t> lanes;
  for (const CorpusRun& r : corpusRuns()) {
    const FloatStream fs = floatStream(r);
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < fs.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(fs.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kLaneSerialFloatOutputs);
      if (!fs.want[p]) continue;
      uint32_t v = 0;
      for (uint32_t i = 0; i < 32; ++i) v |= static_cast<uint32_t>(got[i]) << i;
      ASSERT_EQ(v, *fs.want[p]) << "IR at " << fs.stream.positions[p].describe
                                << fmt::format(": got {:#010x}, want {:#010x}", v, *fs.want[p]);
    }
    ++runs;
    for (const auto& [op, n] : fs.lanes) lanes[op] += n;
  }
  EXPECT_GE(runs, 90u);
  EXPECT_GT(lanes[machine::MOp::FAdd], 1000u);
  EXPECT_GT(lanes[machine::MOp::FSub], 0u);
  EXPECT_GT(lanes[machine::MOp::FMul], 1000u);
  EXPECT_GT(lanes[machine::MOp::FFma], 1000u);
  RecordProperty("fadd_lanes", static_cast<int>(lanes[machine::MOp::FAdd]));
  RecordProperty("fsub_lanes", static_cast<int>(lanes[machine::MOp::FSub]));
  RecordProperty("fmul_lanes", static_cast<int>(lanes[machine::MOp::FMul]));
  RecordProperty("ffma_lanes", static_cast<int>(lanes[machine::MOp::FFma]));
  std::cout << "[ float ] " << runs << " runs: " << lanes[machine::MOp::FAdd] << " FADD, " << lanes[machine::MOp::FSub]
            << " FSUB, " << lanes[machine::MOp::FMul] << " FMUL and " << lanes[machine::MOp::FFma]
            << " FFMA lane results, one per position\n";
}

// The weights against the IR at every position and output, the launches of up to 1,500
// positions, at the 2B's hidden size.
TEST(LaneSerialFloat, CompiledThroughTheEngine) {
  Unit u = laneSerialFloatUnit();
  const Proven p = compileAndProve(u, 2048);
  RecordProperty("layers", p.cu.config.numLayers);
  std::cout << "[ float ] " << p.cu.config.numLayers << " layers, hidden " << p.cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, p.cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

}  // namespace
}  // namespace qgpu::compiler
