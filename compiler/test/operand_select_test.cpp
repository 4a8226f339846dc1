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

// A corpus run as operand-select positions: the prompt (its last token GO), then every
// generated token up to the first atomic register write (whose old values the pending write
// does not rebuild, docs/machine.md §5.2); at each step's first position, the executor's
// operands: (output index, bit).
struct OperandStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;
  size_t registers = 0, constants = 0, specials = 0, none = 0;  // operands checked, by kind
};

OperandStream operandStream(const CorpusRun& r) {
  const size_t end = firstAtomicWrite(r);
  const size_t first = r.prompt.size();  // the position of generated token 0
  OperandStream os{{r.name, {}, first - 1}, {}, 0, 0, 0, 0};
  std::map<size_t, const machine::RegisterWrite*> writeAt;  // position -> the write committed there
  for (const machine::RegisterWrite& w : r.writes)
    if (w.lastToken < end) writeAt.emplace(first + w.lastToken, &w);
  std::map<size_t, const machine::StepState*> stepAt;  // position -> the step computed there
  for (const machine::StepState& st : r.steps)
    if (st.firstToken <= end) stepAt.emplace(first - 1 + st.firstToken, &st);
  const uint32_t regs = r.program.numRegs;
  ShadowRegisters shadow(r);
  machine::StreamDeriver d(r.valid);
  for (size_t p = 0; p < first + end; ++p) {
    const uint32_t id = p < first ? r.prompt[p] : r.tokens[p - first];
    if (p >= first) d.take(id);
    if (const auto wi = writeAt.find(p); wi != writeAt.end()) shadow.commit(*wi->second, d.state().warp);
    std::vector<std::pair<size_t, int64_t>> want;
    if (const auto si = stepAt.find(p); si != stepAt.end()) {
      const machine::StepState& st = *si->second;
      const machine::MInstr& in = r.program.code.at(st.pc);
      const uint16_t fields[3] = {in.a, in.b, in.c};
      for (uint32_t port = 0; port < 3; ++port) {
        if (!machine::isOperandField(in.op, port + 1)) continue;
        const uint32_t f = fields[port];
        for (uint32_t l = 0; l < 4; ++l) {
          uint64_t v = 0;
          if (f < regs) {
            v = shadow.value(st.warp, f, l);
          } else if (f >= machine::kConstBase && f < machine::kSpecialBase) {
            v = r.program.constants.at(f - machine::kConstBase);
          } else if (f >= machine::kSpecialBase && f != machine::kNoOperand) {
            EXPECT_TRUE(compiledSpecial(f - machine::kSpecialBase))
                << r.name << " pc " << st.pc << ": " << machine::disassemble(in) << " reads a special the compiled machine lacks";
            v = machine::specialValue(static_cast<machine::MSpecial>(f - machine::kSpecialBase),
                                      {r.grid, r.block, st.block, st.warp, l, static_cast<uint32_t>(r.valid.size())});
          } else {
            EXPECT_EQ(f, machine::kNoOperand) << r.name << " pc " << st.pc << ": " << machine::disassemble(in);
          }
          for (uint32_t b = 0; b < 64; ++b) want.push_back({port * 256 + 64 * l + b, static_cast<int64_t>((v >> b) & 1)});
        }
        (f < regs ? os.registers : f < machine::kSpecialBase ? os.constants : f == machine::kNoOperand ? os.none : os.specials) += 1;
      }
    }
    const std::string describe = p < first ? fmt::format("{} prompt token {} ({})", r.name, p, machine::tokenName(id))
                                           : fmt::format("{} token {} ({})", r.name, p - first, machine::tokenName(id));
    os.stream.positions.push_back({frontInputs(id), {}, describe});
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
  EXPECT_GE(runs, 90u);
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
  model::Model sparse = load(cu, 1.0);
  size_t tokens = 0, runs = 0;
  for (const CorpusRun& r : corpusRuns()) {
    if (r.prompt.size() + r.tokens.size() > 1500) continue;
    OperandStream os = operandStream(r);
    Evaluator ev(u.circuit);
    for (Position& q : os.stream.positions) q.expected = ev.stepOutputs(q.inputs);
    ++runs;
    const size_t checked = checkInPieces(cu, sparse, os.stream.positions, 0);
    ASSERT_EQ(checked, os.stream.positions.size()) << r.name;
    tokens += checked;
  }
  EXPECT_GE(runs, 4u);
  RecordProperty("engine_positions", static_cast<int>(tokens));
}

}  // namespace
}  // namespace qgpu::compiler
