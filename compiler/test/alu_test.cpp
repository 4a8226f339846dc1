// The machine step's integer ALU (alu.h) joined on the operand select and the front end, fed
// nothing but each token's features, against the reference executor: at every step's first
// position of the lowered corpus runs (and the guarded-writes kernel), each lane's result of
// an ALU op as machine::computeLane gives it for the operands the executor reads (SHFL's as
// the executor exchanges lanes), 0 for every other op, and the active lanes
// (machine::guardedMask); then the weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "corpus_runs.h"
#include "qgpu/compiler/alu.h"
#include "qgpu/machine/control.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

constexpr size_t kActiveAt = 4 * 64, kUndefinedAt = kActiveAt + 4, kWordAt = kUndefinedAt + 4;

struct AluStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;  // per position: (output, bit)
  std::map<machine::MOp, size_t> computed;  // ALU steps checked, by op
  size_t others = 0;                        // steps of other ops (their results must be 0)
};

AluStream aluStream(const CorpusRun& r) {
  StepStream ss = stepStream(r);
  AluStream as{std::move(ss.stream), {}, {}, 0};
  for (const std::optional<ComputedStep>& step : ss.steps) {
    std::vector<std::pair<size_t, int64_t>> want;
    if (step) {
      const machine::MInstr& in = step->in;
      const bool alu = aluOp(in.op);
      const uint32_t active = machine::guardedMask(step->state->mask, in.g != machine::kNoGuard,
                                                   (in.g & machine::kGuardNegated) != 0, step->predicates);
      const auto& x = step->operand;
      for (uint32_t l = 0; l < 4; ++l) {
        uint64_t v = 0;
        if (in.op == machine::MOp::Shfl) {
          // Every lane's mux, executing or not: the source lane's a (none beyond lane 3). An
          // executing lane's source executes too (or the executor stops: undefined).
          const uint32_t src = machine::shuffleSource(in.fl & 3, l, static_cast<uint32_t>(x[1][l]), static_cast<uint32_t>(x[2][l]));
          v = src < 4 ? x[0][src] & 0xffffffffu : 0;
          if ((active >> l) & 1) want.push_back({kUndefinedAt + l, 0});
        } else if (alu) {
          v = machine::computeLane(in, x[0][l], x[1][l], x[2][l]);
        }
        for (uint32_t b = 0; b < 64; ++b) want.push_back({64 * l + b, static_cast<int64_t>((v >> b) & 1)});
      }
      for (uint32_t l = 0; l < 4; ++l) want.push_back({kActiveAt + l, (active >> l) & 1});
      if (alu) ++as.computed[in.op];
      else ++as.others;
    }
    as.want.push_back(std::move(want));
  }
  return as;
}

std::string describeOutput(size_t i) {
  return i < kActiveAt      ? fmt::format("lane {} result bit {}", i / 64, i % 64)
         : i < kUndefinedAt ? fmt::format("lane {} active", i - kActiveAt)
         : i < kWordAt      ? fmt::format("lane {} SHFL undefined", i - kUndefinedAt)
                            : fmt::format("word bit {}", i - kWordAt);
}

TEST(Alu, TheIrComputesEveryIntegerStepFromTheTokens) {
  Unit u = aluUnit();
  size_t runs = 0, others = 0;
  std::map<machine::MOp, size_t> computed;
  for (const CorpusRun& r : corpusRuns()) {
    const AluStream as = aluStream(r);
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < as.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(as.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kAluOutputs);
      for (const auto& [i, bit] : as.want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << as.stream.positions[p].describe << ": " << describeOutput(i);
    }
    ++runs;
    others += as.others;
    for (const auto& [op, n] : as.computed) computed[op] += n;
  }
  EXPECT_GE(runs, 90u);
  std::string counts;
  size_t total = 0;
  for (const auto& [op, n] : computed) {
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", machine::opName(op), n);
    total += n;
  }
  // The corpus's integer steps: every op of the ALU occurs.
  for (machine::MOp op : {machine::MOp::Add, machine::MOp::Sub, machine::MOp::And, machine::MOp::Or, machine::MOp::Xor,
                          machine::MOp::Mov, machine::MOp::Selp, machine::MOp::Setp, machine::MOp::Shfl})
    EXPECT_GT(computed[op], 0u) << machine::opName(op);
  EXPECT_GT(total, 50000u);
  RecordProperty("alu_steps", static_cast<int>(total));
  RecordProperty("other_steps", static_cast<int>(others));
  std::cout << "[ alu ] " << runs << " runs: " << total << " ALU steps (" << counts << "), " << others
            << " steps of other ops (result 0), x 4 lanes x 64 bits\n";
}

// The weights against the IR at every position and every output: the launches of up to
// 1,500 positions, prompt included, at the 2B's hidden size.
TEST(Alu, CompiledThroughTheEngine) {
  Unit u = aluUnit();
  const Proven p = compileAndProve(u, 2048);
  const CompiledUnit& cu = p.cu;
  RecordProperty("layers", cu.config.numLayers);
  RecordProperty("hidden", cu.config.hiddenSize);
  std::cout << "[ alu ] " << cu.config.numLayers << " layers, hidden " << cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

}  // namespace
}  // namespace qgpu::compiler
