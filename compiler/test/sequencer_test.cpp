// The machine step's token intake, sequencer and fetch (sequencer.h) against the reference,
// machine::StreamDeriver: after every token of every lowered corpus run's generated stream
// (W=4, both PTX flavours), the block, warp, pc, mask, SIMT depth, step end and steps since
// the last pc-carrying token — first the IR (tier 2), then the compiled weights in the engine
// on the streams of up to 1,000 tokens (every one in the nightly label's run, QGPU_SEQUENCER_ALL=1);
// the fetch: the prompt's code words, looked up by the pc, against the lowered program; and
// the pending write: at each register write's last token its lanes and values, against the
// executor's register writes; the register file: at every step's first position, the
// registers its instruction reads, for every lane, against the executor's writes before it.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "corpus_runs.h"
#include "engine_run.h"
#include "qgpu/compiler/commit.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/register_file.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/stream_state.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

std::vector<int64_t> expectedAfter(const machine::StreamDeriver& d) {
  const machine::StreamState& s = d.state();
  std::vector<int64_t> out;
  putBits(out, s.block, 12);
  putBits(out, s.warp, 8);
  putBits(out, s.pc, 11);
  putBits(out, s.mask, 4);
  putBits(out, s.depth - 1, 5);
  out.push_back(d.lastEndedStep() ? 1 : 0);
  for (uint32_t j = 1; j <= machine::kPcCheckpointSteps; ++j) out.push_back(s.stepsSincePc >= j ? 1 : 0);
  return out;
}

// The sequencer's positions: GO (the prompt's last token) and then every generated token,
// each expecting the deriver's state after it.
Stream sequencerStream(const CorpusRun& r) {
  machine::StreamDeriver d(r.valid);
  Stream s{r.name, {}, 0};
  Position go;
  go.inputs = sequencerInputs(machine::ctl(machine::Ctl::Go), r.full, r.tail);
  go.expected = expectedAfter(d);
  go.describe = "GO";
  s.positions.push_back(std::move(go));
  for (size_t i = 0; i < r.tokens.size(); ++i) {
    const uint32_t id = r.tokens[i];
    d.take(id);
    Position p;
    p.inputs = sequencerInputs(id, r.full, r.tail);
    p.expected = expectedAfter(d);
    p.describe = fmt::format("{} token {} ({})", s.name, i, machine::tokenName(id));
    s.positions.push_back(std::move(p));
  }
  return s;
}

const std::vector<Stream>& corpusStreams() {
  static const std::vector<Stream> streams = [] {
    std::vector<Stream> out;
    for (const CorpusRun& r : corpusRuns()) out.push_back(sequencerStream(r));
    return out;
  }();
  return streams;
}

std::string describeDiff(const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
  static const std::pair<const char*, uint32_t> fields[] = {{"block", 12}, {"warp", 8}, {"pc", 11}, {"mask", 4},
                                                           {"depth-1", 5}, {"ended", 1}, {"steps>=", 16}};
  std::string out;
  size_t at = 0;
  for (const auto& [name, n] : fields) {
    uint64_t g = 0, x = 0;
    for (uint32_t i = 0; i < n; ++i) {
      g |= static_cast<uint64_t>(got[at + i] & 1) << i;
      x |= static_cast<uint64_t>(want[at + i] & 1) << i;
    }
    if (g != x) out += fmt::format(" {} {:#x} (expected {:#x})", name, g, x);
    at += n;
  }
  return out;
}

TEST(Sequencer, TheIrFollowsEveryCorpusStream) {
  Unit u = sequencerUnit();
  size_t tokens = 0;
  for (const Stream& s : corpusStreams()) {
    Evaluator ev(u.circuit);
    for (const Position& p : s.positions) {
      const std::vector<int64_t> got = ev.stepOutputs(p.inputs);
      ASSERT_EQ(got.size(), kSequencerOutputs);
      ASSERT_EQ(got, p.expected) << "IR vs StreamDeriver at " << p.describe << ":" << describeDiff(got, p.expected);
      ++tokens;
    }
  }
  EXPECT_GE(corpusStreams().size() + corpusRunsLeftOut(), 90u);  // the lowered runs of both flavours
  EXPECT_GT(tokens, walksEveryRun() ? 1000000u : 400000u);  // 1.2 million, 0.43 million in CI's runs
  RecordProperty("tokens", static_cast<int>(tokens));
}

TEST(Sequencer, CompiledThroughTheEngine) {
  Unit u = sequencerUnit();
  const Proven p = compileAndProve(u);
  const CompiledUnit& cu = p.cu;
  EXPECT_EQ(p.counterHeads, 2u + 5u + 16u);
  RecordProperty("layers", cu.config.numLayers);
  model::Model sparse = load(cu, 1.0), dense = load(cu, 0.0);
  const bool all = std::getenv("QGPU_SEQUENCER_ALL") != nullptr;
  size_t tokens = 0, streams = 0;
  for (const Stream& s : corpusStreams()) {
    // CI: the streams of up to 1,000 tokens; QGPU_SEQUENCER_ALL=1 (label nightly): every one.
    if (!all && s.positions.size() > 1000) continue;
    ++streams;
    const size_t checked = checkInPieces(cu, sparse, s.positions, s.from, describeDiff);
    ASSERT_EQ(checked, s.positions.size()) << s.name;
    tokens += checked;
  }
  EXPECT_GE(streams, 10u);
  RecordProperty("engine_tokens", static_cast<int>(tokens));
  // One stream token by token with dense projections.
  const Stream& first = corpusStreams().front();
  std::vector<Position> head(first.positions.begin(), first.positions.begin() + std::min<size_t>(300, first.positions.size()));
  std::vector<std::vector<int64_t>> got = run(cu, dense, head, true);
  for (size_t t = 0; t < head.size(); ++t) ASSERT_EQ(got[t], head[t].expected) << "dense decode: " << head[t].describe;
}

// A corpus run's prompt and generated stream as fetch positions: the prompt expects the
// word 0 (its sequencer state means nothing yet: the first pc-carrying token is GO, after
// which the word at pc 0 is fetched), every generated token the sequencer state after it and
// the code word at its pc. Checked from GO on.
Stream fetchStream(const CorpusRun& r) {
  machine::StreamDeriver d(r.valid);
  Stream s{r.name, {}, r.prompt.size() - 1};
  auto add = [&](uint32_t id, uint64_t word, std::string describe) {
    Position p;
    p.inputs = fetchInputs(id, r.full, r.tail);
    p.expected = expectedAfter(d);
    putBits(p.expected, word, 64);
    p.describe = std::move(describe);
    s.positions.push_back(std::move(p));
  };
  for (size_t i = 0; i < r.prompt.size(); ++i)
    add(r.prompt[i], i + 1 == r.prompt.size() ? machine::encode(r.program.code.at(0)) : 0,
        fmt::format("{} prompt token {} ({})", r.name, i, machine::tokenName(r.prompt[i])));
  for (size_t i = 0; i < r.tokens.size(); ++i) {
    const uint32_t id = r.tokens[i];
    d.take(id);
    const uint32_t pc = d.state().pc;
    add(id, pc < r.program.code.size() ? machine::encode(r.program.code[pc]) : 0,
        fmt::format("{} token {} ({}), pc {}", r.name, i, machine::tokenName(id), pc));
  }
  return s;
}

// The wires of the fetched word in an output vector (its last 64 entries).
Bus seqWordBus() {
  Bus b;
  for (uint32_t i = 0; i < 64; ++i) b.push_back(kSequencerOutputs + i);
  return b;
}

TEST(Fetch, TheIrFetchesEveryStepsWordFromThePrompt) {
  Unit u = fetchUnit();
  size_t tokens = 0, runs = 0;
  for (const CorpusRun& r : corpusRuns()) {
    const Stream seq = fetchStream(r);
    ++runs;
    Evaluator ev(u.circuit);
    for (size_t t = 0; t < seq.positions.size(); ++t) {
      const Position& p = seq.positions[t];
      const std::vector<int64_t> got = ev.stepOutputs(p.inputs);
      const std::vector<int64_t> word(got.end() - 64, got.end()), wantWord(p.expected.end() - 64, p.expected.end());
      if (t < seq.from) {  // the prompt before GO: only the word (0) means something
        ASSERT_EQ(word, wantWord) << "IR at " << p.describe;
        continue;
      }
      ASSERT_EQ(std::vector<int64_t>(got.begin(), got.end() - 64), std::vector<int64_t>(p.expected.begin(), p.expected.end() - 64))
          << "IR at " << p.describe << ":" << describeDiff(got, p.expected);
      ASSERT_EQ(word, wantWord) << "IR at " << p.describe << ": fetched " << fmt::format("{:#018x}", busValue(got, seqWordBus()))
                                << ", expected " << fmt::format("{:#018x}", busValue(p.expected, seqWordBus()));
      ++tokens;
    }
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  RecordProperty("tokens", static_cast<int>(tokens));
}

TEST(Fetch, CompiledThroughTheEngine) {
  Unit u = fetchUnit();
  const Proven p = compileAndProve(u);
  const CompiledUnit& cu = p.cu;
  EXPECT_EQ(p.lookups, 1u);
  EXPECT_LE(cu.config.numLayers, 8);  // the word after layer 8 (docs/machine.md §5.2)
  RecordProperty("layers", cu.config.numLayers);
  model::Model sparse = load(cu, 1.0);
  size_t tokens = 0, runs = 0;
  for (const CorpusRun& r : corpusRuns()) {
    if (r.prompt.size() + r.tokens.size() > 1500) continue;  // CI: the launches of up to 1,500 positions
    const Stream seq = fetchStream(r);
    ++runs;
    const size_t checked = checkInPieces(cu, sparse, seq.positions, seq.from, describeDiff);
    ASSERT_EQ(checked, seq.positions.size() - seq.from) << r.name;
    tokens += checked;
  }
  EXPECT_GE(runs, 4u);
  RecordProperty("engine_tokens", static_cast<int>(tokens));
}

// A corpus run as pending-write positions: GO, then every generated token with the width of
// the register write it ends (0 elsewhere), and the executor's writes by their last token.
struct CommitStream {
  Stream stream;
  std::vector<const machine::RegisterWrite*> writeAt;  // per position: the write it commits, if any
};
CommitStream commitStream(const CorpusRun& r) {
  CommitStream cs{{r.name, {}, 1}, {}};
  std::vector<const machine::RegisterWrite*> at(r.tokens.size(), nullptr);
  std::vector<uint32_t> bytes(r.tokens.size(), 0);  // the width of the write each token's step commits
  for (const machine::RegisterWrite& w : r.writes) {
    if (w.atomic) continue;
    at.at(w.lastToken) = &w;
    const auto next = std::upper_bound(r.stepStarts.begin(), r.stepStarts.end(), w.lastToken);
    const size_t first = next == r.stepStarts.begin() ? 0 : *(next - 1);
    for (size_t t = first; t <= w.lastToken; ++t) bytes[t] = w.bytes;
  }
  Position go;
  go.inputs = commitInputs(machine::ctl(machine::Ctl::Go), r.full, r.tail, 0);
  go.describe = "GO";
  cs.stream.positions.push_back(std::move(go));
  cs.writeAt.push_back(nullptr);
  for (size_t i = 0; i < r.tokens.size(); ++i) {
    Position p;
    p.inputs = commitInputs(r.tokens[i], r.full, r.tail, bytes[i]);
    p.describe = fmt::format("{} token {} ({})", r.name, i, machine::tokenName(r.tokens[i]));
    cs.stream.positions.push_back(std::move(p));
    cs.writeAt.push_back(at[i]);
  }
  return cs;
}

// The outputs the executor decides at a position: commit, the lanes, and each written
// lane's value (in `got`'s layout, from `got` where the executor leaves them open).
std::vector<int64_t> expectedCommit(const machine::RegisterWrite* w, const std::vector<int64_t>& got) {
  std::vector<int64_t> want = got;
  want[0] = w ? 1 : 0;
  for (uint32_t l = 0; l < 4; ++l) {
    const bool on = w && ((w->lanes >> l) & 1);
    want[1 + l] = on ? 1 : 0;
    if (on)
      for (uint32_t b = 0; b < 64; ++b) want[5 + 64 * l + b] = static_cast<int64_t>((w->values[l] >> b) & 1);
  }
  return want;
}

std::string describeCommit(const std::vector<int64_t>& got, const machine::RegisterWrite* w) {
  std::string out = fmt::format("commit {}, lanes", got[0]);
  for (uint32_t l = 0; l < 4; ++l) out += fmt::format(" {}", got[1 + l]);
  for (uint32_t l = 0; l < 4; ++l) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < 64; ++b) v |= static_cast<uint64_t>(got[5 + 64 * l + b] & 1) << b;
    out += fmt::format(" l{}={:#x}", l, v);
  }
  if (w) {
    out += fmt::format("; the executor writes r{} lanes {:#x}, {} bytes:", w->reg, w->lanes, w->bytes);
    for (uint64_t v : w->values) out += fmt::format(" {:#x}", v);
  }
  return out;
}

TEST(PendingWrite, TheIrRebuildsEveryRegisterWriteFromItsTokens) {
  Unit u = commitUnit();
  size_t commits = 0, runs = 0, active = 0, activeAfterWait = 0;
  for (const CorpusRun& r : corpusRuns()) {
    const CommitStream cs = commitStream(r);
    ++runs;
    Evaluator ev(u.circuit);
    for (size_t t = 0; t < cs.stream.positions.size(); ++t) {
      const Position& p = cs.stream.positions[t];
      const std::vector<int64_t> got = ev.stepOutputs(p.inputs);
      ASSERT_EQ(got.size(), kCommitOutputs);
      const machine::RegisterWrite* w = cs.writeAt[t];
      ASSERT_EQ(got, expectedCommit(w, got)) << "IR at " << p.describe << ": " << describeCommit(got, w);
      commits += w ? 1 : 0;
    }
    for (size_t i = 0; i < r.tokens.size(); ++i) {
      const bool isActive = machine::isActiveToken(r.tokens[i]);
      active += isActive;
      activeAfterWait += isActive && i > 0 && r.tokens[i - 1] == machine::ctl(machine::Ctl::Wait);
    }
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  EXPECT_GT(commits, 100000u);
  EXPECT_GT(active, 0u);  // ACTIVE steps: the predicated kernel's (the lowered corpus has none)
  EXPECT_GT(activeAfterWait, 0u);  // a guarded lane-serial step: ACTIVE after its WAITs
  RecordProperty("commits", static_cast<int>(commits));
  RecordProperty("active_tokens", static_cast<int>(active));
}

// The weights against the IR at every position and every output (the IR is the executor's
// where the executor decides: the test above): the streams of up to 1,000 tokens.
TEST(PendingWrite, CompiledThroughTheEngine) {
  Unit u = commitUnit();
  const Proven p = compileAndProve(u);
  const CompiledUnit& cu = p.cu;
  RecordProperty("layers", cu.config.numLayers);
  engineEqualsTheIr(u, cu, [](const CorpusRun& r) { return commitStream(r).stream; });
}

TEST(RegisterFile, TheIrReadsWhatTheExecutorWrote) {
  Unit u = registerFileUnit();
  size_t runs = 0, reads = 0, tooBig = 0;
  for (const CorpusRun& r : corpusRuns()) {
    const std::optional<RegisterStream> rs = registerStream(r);
    if (!rs) {
      ++tooBig;
      ADD_FAILURE() << r.name << ": " << r.valid.size() << " warps of " << r.program.numRegs << " registers do not fit";
      continue;
    }
    ++runs;
    reads += rs->reads;
    Evaluator ev(u.circuit);
    for (size_t p = 0; p < rs->stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(rs->stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kRegisterFileOutputs);
      for (const auto& [i, bit] : rs->want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << rs->stream.positions[p].describe << ": port " << i / 256 << " lane "
                               << (i < 768 ? i % 256 / 64 : i - 768) << " bit " << (i < 768 ? i % 64 : 0);
    }
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  EXPECT_EQ(tooBig, 0u);
  EXPECT_GT(reads, 100000u);
  RecordProperty("register_reads", static_cast<int>(reads));
}

// The weights against the IR at every position and output: the streams of up to 1,000 tokens.
TEST(RegisterFile, CompiledThroughTheEngine) {
  Unit u = registerFileUnit();
  const Proven p = compileAndProve(u);
  const CompiledUnit& cu = p.cu;
  RecordProperty("layers", cu.config.numLayers);
  std::cout << "[ regfile  ] " << cu.config.numLayers << " layers, hidden " << cu.config.hiddenSize << "\n";
  engineEqualsTheIr(u, cu, [](const CorpusRun& r) {
    std::optional<RegisterStream> rs = registerStream(r);
    EXPECT_TRUE(rs) << r.name;
    return rs ? rs->stream : Stream{r.name, {}, 0};
  });
}

}  // namespace
}  // namespace qgpu::compiler
