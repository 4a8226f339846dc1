// The machine step's front end (step_front.h) — sequencer, fetch, pending write, committed
// instruction and register file in one circuit, fed nothing but each token's features and
// the launch's shape — against the reference executor: the committed instruction's width
// for every op and width code; at every step's first position of the lowered corpus runs
// (and the guarded-writes kernel), every register operand of its instruction for every lane
// as the executor wrote it; then the compiled weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "corpus_runs.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

// Every op with every width code in ty and c and both I2F destinations: the committed
// instruction's width and destination one position later, against machine::writeBytes.
TEST(Front, TheCommittedWriteHasTheExecutorsWidth) {
  Circuit c("committed");
  const WireId one = c.inputBit("one");
  const Bus word = c.inputBus("word", 64);
  const Bus warp = c.inputBus("warp", kRegisterWarpBits);
  const Bus k = c.inputBus("k", kRegisterShifts);
  const CommittedWrite cw = buildCommittedWrite(c, word, one, warp, k);
  c.outputBus("slot", cw.slot);
  c.outputBus("width", cw.width);
  constexpr uint32_t kWarp = 5, kShift = 4;  // 2^4 registers per warp: d's low 4 bits, then the warp
  size_t checked = 0, writes = 0;
  for (uint32_t op = 0; op < static_cast<uint32_t>(machine::MOp::Count); ++op)
    for (uint8_t ty = 0; ty < 8; ++ty)
      for (uint16_t cw4 = 0; cw4 < 4; ++cw4)
        for (uint8_t fl : {uint8_t{0}, machine::kFlI2FDest64}) {
          machine::MInstr in;
          in.op = static_cast<machine::MOp>(op);
          in.ty = ty;
          in.fl = fl;
          in.d = static_cast<uint16_t>((op * 37 + ty) % 511);
          in.c = cw4;
          const uint64_t bits = machine::encode(in);
          Evaluator ev(c);
          std::vector<int64_t> at{1};
          putBits(at, bits, 64);
          putBits(at, kWarp, kRegisterWarpBits);
          putBits(at, 1u << kShift, kRegisterShifts);
          ev.stepOutputs(at);
          std::vector<int64_t> next{1};
          putBits(next, ~bits, 64);  // the next position: any other word and warp
          putBits(next, kWarp + 1, kRegisterWarpBits);
          putBits(next, 1u << kShift, kRegisterShifts);
          const std::vector<int64_t> got = ev.stepOutputs(next);
          const uint32_t bytes = machine::writeBytes(in);
          std::vector<int64_t> want;
          putBits(want, (kWarp << kShift | (in.d & ((1u << kShift) - 1))) & ((1u << kRegisterSlotBits) - 1), kRegisterSlotBits);
          // One-hot over 1, 2, 4, 8 bytes; none for an op that writes nothing (and for
          // MULWIDE of 8-byte operands, 16 bytes, which no lowering emits).
          for (uint32_t b : {1u, 2u, 4u, 8u}) want.push_back(bytes == b ? 1 : 0);
          ASSERT_EQ(got, want) << machine::disassemble(in) << ": " << bytes << " bytes";
          ++checked;
          writes += bytes != 0;
        }
  EXPECT_GT(writes, 1000u);
  RecordProperty("words", static_cast<int>(checked));
}

constexpr size_t kFrontWrites = kRegisterFileOutputs + 64;  // the lanes written, after the word

// A corpus run as front positions: the prompt (its last token GO), then every generated
// token; the reads the executor implies at each step's first position (registerStream's,
// whose position 0 is GO) and the lanes each position writes — an atomic step's one lane at
// each of its values' last tokens (docs/machine.md §5.3). At an atomic step's first position
// port b reads nothing: its address is a alone there.
struct FrontStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;  // per position
  size_t reads = 0;  // register read bits checked
  size_t atomicSteps = 0, atomicCommits = 0;
};
std::optional<FrontStream> frontStream(const CorpusRun& r) {
  std::optional<RegisterStream> rs = registerStream(r);
  if (!rs) return std::nullopt;
  const size_t end = r.tokens.size();
  FrontStream fs{{r.name, {}, r.prompt.size() - 1}, {}, 0, 0, 0};
  auto add = [&](uint32_t id, std::string describe, std::vector<std::pair<size_t, int64_t>> want) {
    fs.stream.positions.push_back({frontInputs(id), {}, std::move(describe)});
    fs.want.push_back(std::move(want));
  };
  for (size_t i = 0; i < r.prompt.size(); ++i)  // GO, the last: the first step's reads (registers still 0)
    add(r.prompt[i], fmt::format("{} prompt token {} ({})", r.name, i, machine::tokenName(r.prompt[i])),
        i + 1 == r.prompt.size() ? rs->want[0] : std::vector<std::pair<size_t, int64_t>>{});
  for (size_t i = 0; i < end; ++i)
    add(r.tokens[i], fmt::format("{} token {} ({})", r.name, i, machine::tokenName(r.tokens[i])), rs->want[i + 1]);
  for (const machine::StepState& st : r.steps) {
    const machine::MOp op = r.program.code.at(st.pc).op;
    if (op != machine::MOp::Atom && op != machine::MOp::AtomS) continue;
    ++fs.atomicSteps;
    for (auto& [i, bit] : fs.want.at(r.prompt.size() - 1 + st.firstToken))
      if (i >= 256 && i < 512) bit = 0;
  }
  for (const auto& w : fs.want) fs.reads += w.size();
  // The lanes written: the executor's writes at their last tokens, nothing anywhere else
  // (the prompt included).
  std::vector<uint32_t> lanes(fs.stream.positions.size(), 0);
  for (const machine::RegisterWrite& w : r.writes) {
    lanes.at(r.prompt.size() + w.lastToken) = w.lanes;
    fs.atomicCommits += w.atomic;
  }
  for (size_t p = 0; p < lanes.size(); ++p)
    for (uint32_t l = 0; l < 4; ++l) fs.want[p].push_back({kFrontWrites + l, (lanes[p] >> l) & 1});
  return fs;
}

std::string describeRead(size_t i) {
  return i < 768 ? fmt::format("port {} lane {} bit {}", "abc"[i / 256], i % 256 / 64, i % 64)
         : i < kRegisterFileOutputs ? fmt::format("guard lane {}", i - 768)
                                    : fmt::format("lane {} written", i - kFrontWrites);
}

TEST(Front, TheIrReadsEveryOperandFromTheTokens) {
  Unit u = frontUnit();
  size_t runs = 0, reads = 0, atomicSteps = 0, atomicCommits = 0;
  for (const CorpusRun& r : corpusRuns()) {
    const std::optional<FrontStream> fs = frontStream(r);
    ASSERT_TRUE(fs) << r.name << ": its warps' registers do not fit the register file";
    ++runs;
    atomicSteps += fs->atomicSteps;
    atomicCommits += fs->atomicCommits;
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < fs->stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(fs->stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kFrontOutputs);
      for (const auto& [i, bit] : fs->want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << fs->stream.positions[p].describe << ": " << describeRead(i);
    }
    reads += fs->reads;
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  // Every run to its end, atomics included (histogram, atomics_int, prime_sieve, radix_pass).
  EXPECT_GT(atomicSteps, 100u);
  EXPECT_GT(atomicCommits, 2 * atomicSteps);
  EXPECT_GT(reads, walksEveryRun() ? 90000000u : 40000000u);  // 44 million register read bits in CI's runs
  RecordProperty("register_read_bits", static_cast<int>(reads));
  RecordProperty("atomic_steps", static_cast<int>(atomicSteps));
  RecordProperty("atomic_commits", static_cast<int>(atomicCommits));
}

// The weights against the IR at every position and every output: the launches of up to
// 1,500 positions, prompt included.
TEST(Front, CompiledThroughTheEngine) {
  Unit u = frontUnit();
  const Proven p = compileAndProve(u);
  const CompiledUnit& cu = p.cu;
  RecordProperty("layers", cu.config.numLayers);
  RecordProperty("hidden", cu.config.hiddenSize);
  std::cout << "[ front    ] " << cu.config.numLayers << " layers, hidden " << cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, cu, [](const CorpusRun& r) {
    std::optional<FrontStream> fs = frontStream(r);
    EXPECT_TRUE(fs) << r.name << ": its warps' registers do not fit the register file";
    return fs ? fs->stream : Stream{r.name, {}, 0};
  });
}

}  // namespace
}  // namespace qgpu::compiler
