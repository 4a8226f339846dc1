// The machine step's operand select (operand_select.h) on the front end, fed nothing but each
// token's features, against the reference executor: at every step's first position of the
// lowered corpus runs (and the guarded-writes kernel), every source operand a, b, c of its
// instruction for every lane — register, ROM constant, special register or none — as the
// executor reads it; then the compiled weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "corpus_runs.h"
#include "qgpu/compiler/operand_select.h"
#include <map>

#include "qgpu/machine/isa.h"
#include "qgpu/machine/stream_state.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

// A corpus run as operand-select positions (stepStream's); at each step's first position,
// the executor's operands: (output index, bit).
struct OperandStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;
  size_t registers = 0, constants = 0, specials = 0, none = 0;  // operands checked, by kind
};

OperandStream operandStream(const CorpusRun& r) {
  StepStream ss = stepStream(r);
  OperandStream os{std::move(ss.stream), {}, 0, 0, 0, 0};
  const uint32_t regs = r.program.numRegs;
  for (const std::optional<ComputedStep>& step : ss.steps) {
    std::vector<std::pair<size_t, int64_t>> want;
    if (step) {
      const uint16_t fields[3] = {step->in.a, step->in.b, step->in.c};
      for (uint32_t port = 0; port < 3; ++port) {
        if (!machine::isOperandField(step->in.op, port + 1)) continue;
        for (uint32_t l = 0; l < 4; ++l)
          for (uint32_t b = 0; b < 64; ++b)
            want.push_back({port * 256 + 64 * l + b, static_cast<int64_t>((step->operand[port][l] >> b) & 1)});
        const uint32_t f = fields[port];
        (f < regs ? os.registers : f < machine::kSpecialBase ? os.constants : f == machine::kNoOperand ? os.none : os.specials) += 1;
      }
    }
    os.want.push_back(std::move(want));
  }
  return os;
}

std::string describeOperand(size_t i) {
  return i < 768 ? fmt::format("port {} lane {} bit {}", "abc"[i / 256], i % 256 / 64, i % 64) : fmt::format("output {}", i);
}

TEST(Operands, TheIrSelectsEveryOperandFromTheTokens) {
  Unit u = operandsUnit();
  size_t runs = 0, registers = 0, constants = 0, specials = 0, none = 0;
  for (const CorpusRun& r : corpusRuns()) {
    const OperandStream os = operandStream(r);
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < os.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(os.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kOperandOutputs);
      for (const auto& [i, bit] : os.want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << os.stream.positions[p].describe << ": " << describeOperand(i);
    }
    ++runs;
    registers += os.registers;
    constants += os.constants;
    specials += os.specials;
    none += os.none;
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  // Each kind of field is read many times (the corpus's ROMs hold constants and specials).
  EXPECT_GT(registers, 100000u);
  EXPECT_GT(constants, 10000u);
  EXPECT_GT(specials, 1000u);
  RecordProperty("register_operands", static_cast<int>(registers));
  RecordProperty("constant_operands", static_cast<int>(constants));
  RecordProperty("special_operands", static_cast<int>(specials));
  RecordProperty("none_operands", static_cast<int>(none));
  std::cout << "[ operands ] " << runs << " runs: " << registers << " register, " << constants << " constant, " << specials
            << " special, " << none << " none operands (x 4 lanes x 64 bits)\n";
}

// The weights against the IR at every position and every output: the launches of up to
// 1,500 positions, prompt included, at the 2B's hidden size.
TEST(Operands, CompiledThroughTheEngine) {
  Unit u = operandsUnit();
  const Proven p = compileAndProve(u, 2048);
  const CompiledUnit& cu = p.cu;
  RecordProperty("layers", cu.config.numLayers);
  RecordProperty("hidden", cu.config.hiddenSize);
  std::cout << "[ operands ] " << cu.config.numLayers << " layers, hidden " << cu.config.hiddenSize << ", "
            << cu.config.numHeads << " query heads\n";
  engineEqualsTheIrOnLaunches(u, cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

}  // namespace
}  // namespace qgpu::compiler
