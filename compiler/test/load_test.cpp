// The memory banks and the loads (load.h) joined on the operand select and the front end,
// fed nothing but each token's features, against the reference executor: at every LD step's
// first position before the launch's first store or atomic (the banks take the prompt's
// segments; stores are not written yet), each active lane's loaded value as the executor
// writes it; then the weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "corpus_runs.h"
#include "qgpu/compiler/load.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {
namespace {

bool writesMemory(machine::MOp op) {
  return op == machine::MOp::St || op == machine::MOp::Atom || op == machine::MOp::AtomS;
}

// Per position: the (output, bit) pairs the executor decides — each active lane's loaded
// value at an LD step's first position, up to the first step that writes memory.
struct LoadStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;
  std::map<machine::MSpace, size_t> loads;  // LD steps checked, by space
  size_t lanes = 0;
};

LoadStream loadStream(const CorpusRun& r) {
  StepStream ss = stepStream(r);
  LoadStream ls{std::move(ss.stream), {}, {}, 0};
  ls.want.resize(ls.stream.positions.size());
  bool stored = false;
  size_t end = ls.stream.positions.size();
  for (size_t p = 0; p < ss.steps.size(); ++p) {
    if (!ss.steps[p]) continue;
    const ComputedStep& step = *ss.steps[p];
    if (writesMemory(step.in.op)) {
      stored = true;
      end = p + 1;
      break;
    }
    if (step.in.op != machine::MOp::Ld) continue;
    // The executor's write of this step: its last token lies among the step's tokens.
    const auto next = std::upper_bound(r.steps.begin(), r.steps.end(), step.state->firstToken,
                                       [](size_t t, const machine::StepState& s) { return t < s.firstToken; });
    const size_t until = next == r.steps.end() ? r.tokens.size() : next->firstToken;
    const auto wr = std::find_if(r.writes.begin(), r.writes.end(), [&](const machine::RegisterWrite& w) {
      return w.lastToken >= step.state->firstToken && w.lastToken < until;
    });
    if (wr == r.writes.end()) continue;  // no lane active: nothing written
    for (uint32_t l = 0; l < 4; ++l) {
      if (!((wr->lanes >> l) & 1)) continue;
      for (uint32_t i = 0; i < 64; ++i)
        ls.want[p].push_back({64 * l + i, i < 8 * wr->bytes ? static_cast<int64_t>((wr->values[l] >> i) & 1) : 0});
      ++ls.lanes;
    }
    ++ls.loads[static_cast<machine::MSpace>(step.in.fl & 7)];
  }
  (void)stored;
  ls.stream.positions.resize(end);
  ls.want.resize(end);
  return ls;
}

TEST(Load, TheIrLoadsThePromptsMemoryForEveryLane) {
  Unit u = loadUnit();
  size_t runs = 0, lanes = 0;
  std::map<machine::MSpace, size_t> loads;
  for (const CorpusRun& r : corpusRuns()) {
    const LoadStream ls = loadStream(r);
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < ls.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(ls.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kLoadOutputs);
      for (const auto& [i, bit] : ls.want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << ls.stream.positions[p].describe << ": lane " << i / 64 << " loaded bit " << i % 64;
    }
    ++runs;
    lanes += ls.lanes;
    for (const auto& [space, n] : ls.loads) loads[space] += n;
  }
  EXPECT_GE(runs, 90u);
  size_t total = 0;
  std::string by;
  for (const auto& [space, n] : loads) {
    total += n;
    by += fmt::format("{}{} {}", by.empty() ? "" : ", ", machine::spaceName(space), n);
  }
  // Every kernel loads its parameters first; global and const loads follow in most.
  EXPECT_GT(loads[machine::MSpace::Param], 90u);
  EXPECT_GT(loads[machine::MSpace::Global] + loads[machine::MSpace::Generic], 50u);
  RecordProperty("load_steps", static_cast<int>(total));
  RecordProperty("lanes", static_cast<int>(lanes));
  std::cout << "[ load ] " << runs << " runs: " << total << " LD steps before the first store (" << by << "), " << lanes
            << " active lanes' values\n";
}

// The weights against the IR at every position and output, the launches of up to 1,500
// positions, at the 2B's hidden size.
TEST(Load, CompiledThroughTheEngine) {
  Unit u = loadUnit();
  const Proven p = compileAndProve(u, 2048);
  RecordProperty("layers", p.cu.config.numLayers);
  std::cout << "[ load ] " << p.cu.config.numLayers << " layers, hidden " << p.cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, p.cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

}  // namespace
}  // namespace qgpu::compiler
