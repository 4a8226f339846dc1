// The memory banks, the loads and the stores (memory_access.h) joined on the operand select
// and the front end, fed nothing but each token's features, against the reference executor:
// at every LD step's first position up to the launch's first atomic (whose writes the banks
// do not take yet), each active lane's loaded value as the executor writes it — the prompt's
// memory and every store before it; then the weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "corpus_runs.h"
#include "qgpu/compiler/memory_access.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/machine/control.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {
namespace {

bool atomic(machine::MOp op) { return op == machine::MOp::Atom || op == machine::MOp::AtomS; }

// Per position: the (output, bit) pairs the executor decides — each active lane's loaded
// value at an LD step's first position, up to the first atomic step.
struct LoadStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;
  std::map<machine::MSpace, size_t> loads;  // LD steps checked, by space
  size_t lanes = 0, stores = 0, afterStores = 0;  // ST steps before them; LD steps after a store
  size_t genericLocalStores = 0;  // generic stores into the local window (the banks write every copy)
};

LoadStream loadStream(const CorpusRun& r) {
  StepStream ss = stepStream(r);
  LoadStream ls{std::move(ss.stream), {}, {}, 0, 0, 0, 0};
  ls.want.resize(ls.stream.positions.size());
  size_t end = ls.stream.positions.size();
  for (size_t p = 0; p < ss.steps.size(); ++p) {
    if (!ss.steps[p]) continue;
    const ComputedStep& step = *ss.steps[p];
    if (atomic(step.in.op)) {
      end = p + 1;
      break;
    }
    if (step.in.op == machine::MOp::St) {
      ++ls.stores;
      const uint32_t active = machine::guardedMask(step.state->mask, step.in.g != machine::kNoGuard,
                                                   (step.in.g & machine::kGuardNegated) != 0, step.predicates);
      for (uint32_t l = 0; l < 4; ++l) {
        const uint64_t flat = step.operand[0][l] + step.operand[1][l];
        if ((active >> l) & 1 && static_cast<machine::MSpace>(step.in.fl & 7) == machine::MSpace::Generic &&
            flat >= machine::kLocalWindow && flat < machine::kLocalWindow + machine::kWindowBytes)
          ++ls.genericLocalStores;
      }
    }
    if (step.in.op != machine::MOp::Ld) continue;
    ls.afterStores += ls.stores > 0 ? 1 : 0;
    const machine::RegisterWrite* wr = writeOfStep(r, step.state->firstToken);
    if (!wr) continue;  // no lane active: nothing written
    for (uint32_t l = 0; l < 4; ++l) {
      if (!((wr->lanes >> l) & 1)) continue;
      for (uint32_t i = 0; i < 64; ++i)
        ls.want[p].push_back({64 * l + i, i < 8 * wr->bytes ? static_cast<int64_t>((wr->values[l] >> i) & 1) : 0});
      ++ls.lanes;
    }
    ++ls.loads[static_cast<machine::MSpace>(step.in.fl & 7)];
  }
  ls.stream.positions.resize(end);
  ls.want.resize(end);
  return ls;
}

TEST(MemoryAccess, TheIrLoadsWhatThePromptAndTheStoresWrote) {
  Unit u = memoryAccessUnit();
  size_t runs = 0, lanes = 0, stores = 0, afterStores = 0;
  std::map<machine::MSpace, size_t> loads;
  for (const CorpusRun& r : corpusRuns()) {
    const LoadStream ls = loadStream(r);
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < ls.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(ls.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kMemoryAccessOutputs);
      for (const auto& [i, bit] : ls.want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << ls.stream.positions[p].describe << ": lane " << i / 64 << " loaded bit " << i % 64;
    }
    ++runs;
    lanes += ls.lanes;
    stores += ls.stores;
    afterStores += ls.afterStores;
    // A generic store into local memory goes into every lane copy (the unit cannot tell the
    // window from the low 13 bits): none in the corpus, which this keeps visible.
    EXPECT_EQ(ls.genericLocalStores, 0u) << r.name << ": generic stores into local memory";
    for (const auto& [space, n] : ls.loads) loads[space] += n;
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  size_t total = 0;
  std::string by;
  for (const auto& [space, n] : loads) {
    total += n;
    by += fmt::format("{}{} {}", by.empty() ? "" : ", ", machine::spaceName(space), n);
  }
  // Every kernel loads its parameters first; global, shared, const and local loads follow,
  // most of them after stores.
  EXPECT_GT(loads[machine::MSpace::Param], 90u);
  EXPECT_GT(loads[machine::MSpace::Global] + loads[machine::MSpace::Generic], 1000u);
  EXPECT_GT(loads[machine::MSpace::Shared], 100u);
  EXPECT_GT(afterStores, total / 2);
  RecordProperty("load_steps", static_cast<int>(total));
  RecordProperty("lanes", static_cast<int>(lanes));
  RecordProperty("store_steps", static_cast<int>(stores));
  std::cout << "[ memory ] " << runs << " runs: " << total << " LD steps (" << by << "), " << afterStores
            << " of them after a store, " << lanes << " active lanes' values; " << stores << " ST steps before them\n";
}

// The weights against the IR at every position and output, the launches of up to 1,500
// positions, at the 2B's hidden size.
TEST(MemoryAccess, CompiledThroughTheEngine) {
  Unit u = memoryAccessUnit();
  const Proven p = compileAndProve(u, 2048);
  RecordProperty("layers", p.cu.config.numLayers);
  std::cout << "[ memory ] " << p.cu.config.numLayers << " layers, hidden " << p.cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, p.cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

}  // namespace
}  // namespace qgpu::compiler
