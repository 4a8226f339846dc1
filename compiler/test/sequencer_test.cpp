// The machine step's token intake and sequencer (sequencer.h) against the reference,
// machine::StreamDeriver: after every token of every lowered corpus run's generated stream
// (W=4, both PTX flavours), the block, warp, pc, mask, SIMT depth, step end and steps since
// the last pc-carrying token — first the IR (tier 2), then the compiled weights in the engine
// on the streams of up to 1,000 tokens (every one in the nightly label's run, QGPU_SEQUENCER_ALL=1).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "engine_run.h"
#include "machine_test_util.h"
#include "qgpu/backend.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/stream_state.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

// One lowered corpus run's generated stream, as sequencer positions: GO (the prompt's last
// token) and then every generated token, each expecting the deriver's state after it.
struct Stream {
  std::string name;
  std::vector<Position> positions;
};

std::vector<int64_t> expectedAfter(const machine::StreamDeriver& d) {
  const machine::StreamState& s = d.state();
  std::vector<int64_t> out;
  auto bits = [&](uint64_t v, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) out.push_back(static_cast<int64_t>((v >> i) & 1));
  };
  bits(s.block, 12);
  bits(s.warp, 8);
  bits(s.pc, 11);
  bits(s.mask, 4);
  bits(s.depth - 1, 5);
  out.push_back(d.lastEndedStep() ? 1 : 0);
  for (uint32_t j = 1; j <= machine::kPcCheckpointSteps; ++j) out.push_back(s.stepsSincePc >= j ? 1 : 0);
  return out;
}

std::optional<Stream> corpusStream(const machine::test::CorpusCase& c) {
  LaunchSpec spec = loadLaunchSpec(c.dir);
  machine::MachineProgram mp;
  try {
    mp = machine::lowerKernel(loadProgram(spec.ptxPath(c.flavour)), spec.entry);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Decode) throw;
    return std::nullopt;  // does not lower (docs/machine.md §2.4)
  }
  machine::MachineLaunch ml = machine::machineLaunch(mp, materializeLaunch(spec));
  machine::MachineResult ex = machine::execute(mp, ml);
  const uint32_t threads = static_cast<uint32_t>(ml.block.count());
  std::vector<uint32_t> valid;
  for (uint32_t w = 0; w * 4 < threads; ++w) valid.push_back((1u << std::min(4u, threads - 4 * w)) - 1);
  const uint32_t full = threads / 4, tail = (1u << (threads % 4)) - 1;
  machine::StreamDeriver d(valid);
  Stream s{machine::test::corpusCaseName(c), {}};
  Position go;
  go.inputs = sequencerInputs(machine::ctl(machine::Ctl::Go), full, tail);
  go.expected = expectedAfter(d);
  go.describe = "GO";
  s.positions.push_back(std::move(go));
  for (size_t i = 0; i < ex.trace.tokens.size(); ++i) {
    const uint32_t id = ex.trace.tokens[i];
    d.take(id);
    Position p;
    p.inputs = sequencerInputs(id, full, tail);
    p.expected = expectedAfter(d);
    p.describe = fmt::format("{} token {} ({})", s.name, i, machine::tokenName(id));
    s.positions.push_back(std::move(p));
  }
  return s;
}

const std::vector<Stream>& corpusStreams() {
  static const std::vector<Stream> streams = [] {
    std::vector<Stream> out;
    for (const auto& c : machine::test::corpusCases())
      if (auto s = corpusStream(c)) out.push_back(std::move(*s));
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
  EXPECT_GE(corpusStreams().size(), 90u);  // the lowered runs of both flavours
  EXPECT_GT(tokens, 1000000u);
  RecordProperty("tokens", static_cast<int>(tokens));
}

TEST(Sequencer, CompiledThroughTheEngine) {
  Unit u = sequencerUnit();
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  size_t counterHeads = 0;
  for (const LayerProof& lp : proof.layers) counterHeads += lp.counterHeads;
  EXPECT_EQ(counterHeads, 2u + 4u + 16u);
  EXPECT_LE(cu.config.hiddenSize, 2048);
  RecordProperty("layers", cu.config.numLayers);
  model::Model sparse = load(cu, 1.0), dense = load(cu, 0.0);
  const bool all = std::getenv("QGPU_SEQUENCER_ALL") != nullptr;
  size_t tokens = 0, streams = 0;
  for (const Stream& s : corpusStreams()) {
    // CI: the streams of up to 1,000 tokens; QGPU_SEQUENCER_ALL=1 (label nightly): every one.
    if (!all && s.positions.size() > 1000) continue;
    ++streams;
    // Prefill in pieces of 512 positions on one state (the attention layer is quadratic).
    model::DecodeState st = sparse.newState();
    for (size_t first = 0; first < s.positions.size(); first += 512) {
      const size_t n = std::min<size_t>(512, s.positions.size() - first);
      Eigen::MatrixXf x(cu.config.hiddenSize, static_cast<Eigen::Index>(n));
      for (size_t i = 0; i < n; ++i) x.col(static_cast<Eigen::Index>(i)) = cu.residual(s.positions[first + i].inputs);
      Eigen::MatrixXf logits = sparse.forwardEmbeddings(st, x);
      for (size_t i = 0; i < n; ++i) {
        const Position& p = s.positions[first + i];
        const std::vector<int64_t> got = cu.decode(logits.col(static_cast<Eigen::Index>(i)));
        ASSERT_EQ(got, p.expected) << "engine (sparse prefill) vs StreamDeriver at " << p.describe << ":"
                                   << describeDiff(got, p.expected);
        ++tokens;
      }
    }
  }
  EXPECT_GE(streams, 10u);
  RecordProperty("engine_tokens", static_cast<int>(tokens));
  // One stream token by token with dense projections.
  const Stream& first = corpusStreams().front();
  std::vector<Position> head(first.positions.begin(), first.positions.begin() + std::min<size_t>(300, first.positions.size()));
  std::vector<std::vector<int64_t>> got = run(cu, dense, head, true);
  for (size_t t = 0; t < head.size(); ++t) ASSERT_EQ(got[t], head[t].expected) << "dense decode: " << head[t].describe;
}

}  // namespace
}  // namespace qgpu::compiler
