// Token I/O (token_io.h): a compiled circuit driven by generation. A counter reads the
// current token (a chunk value or HALT) through the embedding and names the next one (value
// + 1, HALT after 255) through the token head; the engine's greedy generation, prefill and
// token by token, dense and sparse, must produce exactly the counter's stream. And the
// machine protocol's 255,560 ids as a vocabulary (machine_vocabulary.h) through an echo.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>

#include "edited_unit.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/machine_vocabulary.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/token_io.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/model/generate.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {
namespace {

const TokenVocabulary kVocab{{{"chunk", 0, 8}, {"halt", 256, 0}}};
constexpr int kHalt = 256;

Circuit counter() {
  Circuit c("counter8");
  const TokenPort in = tokenInput(c, kVocab);
  std::vector<Expr> a, zero;
  for (WireId b : in.valueBits) {
    a.push_back(w(b));
    zero.push_back(Expr(0));
  }
  Bus sum = addBuses(c, "inc", a, zero, 1, true);
  const WireId carry = sum.back();
  sum.pop_back();
  TokenPort next;
  const WireId halt = in.classBits[1];
  next.classBits = {c.step("next.is.chunk", -w(carry) - w(halt)), c.step("next.is.halt", w(carry) + w(halt) - 1)};
  for (size_t i = 0; i < sum.size(); ++i)
    next.valueBits.push_back(c.node(sum[i]).structuralBit ? sum[i] : c.step(fmt::format("next.bit{}", i), w(sum[i]) - 1));
  tokenOutput(c, kVocab, next);
  return c;
}

int successor(int id) { return id >= 255 ? kHalt : id + 1; }

EmitOptions withTokens() {
  EmitOptions o;
  o.tokens = &kVocab;
  return o;
}

model::Model load(const CompiledUnit& cu, double sparseDensity) {
  model::ModelOptions o;
  o.linear.sparseDensity = sparseDensity;
  return model::Model::fromStore(cu.config, cu.store, o);
}

// One prefill over every token: position i's argmax is the successor of token i.
std::vector<int> successors(const model::Model& m) {
  std::vector<int> prompt;
  for (int id = 0; id <= kHalt; ++id) prompt.push_back(id);
  const model::Generation g = model::generateGreedy(m, prompt, 0, model::PromptMode::Prefill);
  std::vector<int> out;
  for (Eigen::Index t = 0; t < g.promptLogits.cols(); ++t) out.push_back(model::argmaxToken(g.promptLogits.col(t)));
  return out;
}

TEST(TokenIO, EveryTokenEmbedsAndItsSuccessorIsTheArgmax) {
  const Circuit c = counter();
  const CompiledUnit cu = compileCircuit(c, withTokens());
  EXPECT_EQ(cu.config.vocabSize, 257);
  const ProofReport proof = proveExact(cu);
  EXPECT_GT(proof.minMargin, 0);
  for (double density : {1.0, 0.0}) {
    const std::vector<int> got = successors(load(cu, density));
    ASSERT_EQ(got.size(), 257u);
    for (int id = 0; id <= kHalt; ++id) EXPECT_EQ(got[static_cast<size_t>(id)], successor(id)) << "token " << id;
  }
}

TEST(TokenIO, GenerationIsTheCountersStream) {
  const CompiledUnit cu = compileCircuit(counter(), withTokens());
  for (double density : {1.0, 0.0}) {
    const model::Model m = load(cu, density);
    for (int start : {0, 97, 250}) {
      std::vector<int> expected;
      for (int id = start, k = 0; k < 12; ++k) expected.push_back(id = successor(id));
      for (model::PromptMode mode : {model::PromptMode::Prefill, model::PromptMode::TokenByToken}) {
        const model::Generation g = model::generateGreedy(m, {start}, 12, mode);
        EXPECT_EQ(g.tokens, expected) << "from " << start << " density " << density;
        // The margin the head promises: the chosen logit beats every other by >= 1.
        for (Eigen::Index t = 0; t < g.stepLogits.cols(); ++t) {
          Eigen::VectorXf l = g.stepLogits.col(t);
          const float top = l[g.tokens[static_cast<size_t>(t)]];
          l[g.tokens[static_cast<size_t>(t)]] = -1e30f;
          EXPECT_GE(top - l.maxCoeff(), 1.0f);
        }
      }
    }
  }
}

// A head mutant (token 7's row loses its class weight) changes one successor: caught.
TEST(TokenIO, AHeadMutantIsCaught) {
  const CompiledUnit cu = compileCircuit(counter(), withTokens());
  const int64_t hidden = cu.config.hiddenSize;
  const CompiledUnit bad = withTensorEdit(cu, "lm_head.weight", [&](std::vector<float>& head) {
    for (int64_t ch = 0; ch < hidden; ++ch)
      if (head[static_cast<size_t>(7 * hidden + ch)] == static_cast<float>(kHeadClassWeight))
        head[static_cast<size_t>(7 * hidden + ch)] = 0;
  });
  const std::vector<int> got = successors(load(bad, 1.0));
  EXPECT_NE(got[6], 7);
  for (int id = 0; id <= kHalt; ++id)
    if (id != 6) {
      EXPECT_EQ(got[static_cast<size_t>(id)], successor(id)) << id;
    }
}

TEST(TokenIO, RefusesWhatTheHeadOrEmbeddingCannotCarry) {
  {  // a class bit that is a linear form, not a structural bit
    Circuit c("bad");
    const TokenPort in = tokenInput(c, kVocab);
    TokenPort next = in;
    next.classBits[0] = c.sum("not.a.bit", w(in.classBits[0]) + w(in.classBits[1]) - w(in.classBits[1]));
    EXPECT_THROW(tokenOutput(c, kVocab, next), CompileError);
  }
  {  // class bits that may both be 1
    Circuit c("bad");
    const TokenPort in = tokenInput(c, kVocab);
    TokenPort next = in;
    next.classBits = {c.step("a", w(in.valueBits[0]) - 1), c.step("b", w(in.valueBits[1]) - 1)};
    next.valueBits.clear();
    for (WireId b : in.valueBits) next.valueBits.push_back(c.step(c.node(b).name + ".copy", w(b) - 1));
    EXPECT_THROW(tokenOutput(c, kVocab, next), CompileError);
  }
  {  // an input that no token sets
    Circuit c = counter();
    c.inputBit("operand");
    EXPECT_THROW(compileCircuit(c, withTokens()), CompileError);
  }
  TokenVocabulary overlapping{{{"a", 0, 4}, {"b", 10, 0}}};
  EXPECT_THROW(overlapping.size(), CompileError);
}

// The counter as a checkpoint on disk with the engine's streams (expected.json): from disk it
// generates what it does in memory. With QGPU_TOKEN_CHECKPOINT=DIR the files stay in DIR for
// tools/hf_token_check.py (ctest compiler.hf_token_check: stock transformers' generate).
TEST(TokenIO, CheckpointOnDiskGeneratesTheSameStreams) {
  const char* keep = std::getenv("QGPU_TOKEN_CHECKPOINT");
  const std::filesystem::path dir = keep ? std::filesystem::path(keep) : std::filesystem::temp_directory_path() / "qgpu_token_ckpt";
  std::filesystem::remove_all(dir);
  const CompiledUnit cu = compileCircuit(counter(), withTokens());
  writeHfCheckpoint(cu, dir);
  const model::Model disk = model::Model::load(dir);
  nlohmann::json streams = nlohmann::json::array();
  for (int start : {0, 97, 250, kHalt}) {
    const model::Generation g = model::generateGreedy(disk, {start}, 12, model::PromptMode::TokenByToken);
    std::vector<int> expected;
    for (int id = start, k = 0; k < 12; ++k) expected.push_back(id = successor(id));
    EXPECT_EQ(g.tokens, expected) << "from " << start;
    streams.push_back({{"prompt", {start}}, {"tokens", g.tokens}});
  }
  std::ofstream(dir / "expected.json") << nlohmann::json{{"unit", cu.name},
                                                         {"model_safetensors_sha256", sha256OfFile(dir / "model.safetensors")},
                                                         {"streams", streams}}.dump(2);
  if (!keep) std::filesystem::remove_all(dir);
}

// The machine protocol's classes number the ids as machine/tokens.h does.
TEST(MachineVocabulary, ClassesAreTheProtocolsIds) {
  const TokenVocabulary v = machineVocabulary(machine::kTextVocab);
  EXPECT_EQ(v.size(), int64_t{machine::kTextVocab} + machine::kNumMachineIds);
  EXPECT_EQ(machineVocabulary(0).size(), int64_t{machine::kNumMachineIds});
  auto is = [&](uint32_t id, const std::string& cls, int64_t value) {
    const auto [k, got] = v.decode(id);
    ASSERT_GE(k, 0) << machine::tokenName(id);
    EXPECT_EQ(v.classes[static_cast<size_t>(k)].name, cls) << machine::tokenName(id);
    EXPECT_EQ(got, value) << machine::tokenName(id);
  };
  is(machine::kChunkMore + 7, "chunk_more", 7);
  is(machine::kChunkLast + 65535, "chunk_last", 65535);
  is(machine::kPack4 + 0x1234, "pack4", 0x1234);
  is(machine::topToken(1023, 0xf, 1), "top_depth1", 1023 * 16 + 0xf);
  is(machine::topToken(5, 0x3, 2), "top_depth2", 5 * 16 + 3);
  is(machine::topToken(7, 0x1, 9), "top_deeper", 7 * 16 + 1);
  is(machine::kGoto + 517, "goto", 517);
  is(machine::kBlock + 4095, "block", 4095);
  is(machine::kWarpStart + 255, "warp_start", 255);
  is(machine::kWarpResume + 3, "warp", 3);
  is(machine::kDepth + 31, "depth", 31);
  is(machine::ctl(machine::Ctl::Lanes, 3), "lanes", 3);
  is(machine::ctl(machine::Ctl::LanesHigh, 0), "lanes_high", 0);
  is(machine::ctl(machine::Ctl::Halt), "halt", 0);
  is(machine::ctl(machine::Ctl::Done), "done", 0);
  is(machine::ctl(machine::Ctl::Go), "go", 0);
  is(machine::ctl(machine::Ctl::Wait), "wait", 0);
  is(machine::ctl(machine::Ctl::Fall), "fall", 0);
  is(machine::ctl(machine::Ctl::Atomic), "atomic", 0);
  is(machine::ctl(machine::Ctl::InnerLanesHigh), "inner_lanes_high", 0);
  is(machine::kAt + 4095, "at", 4095);
  is(machine::kActive + 0xd, "active", 0xd);
  EXPECT_EQ(v.decode(int64_t{machine::kTextVocab} + machine::kNumMachineIds).first, -1);  // past the last machine id
  EXPECT_EQ(v.decode(1000).first, -1);                                        // text
}

// Every class of the protocol through a compiled echo (the next token is the current one):
// the embedding and the head carry each id of a sample (every control id, each class's
// edge values, random values) exactly, in the engine's prefill.
TEST(MachineVocabulary, EveryClassRoundTripsThroughEmbeddingAndHead) {
  const TokenVocabulary v = machineVocabulary(0);
  Circuit c("echo");
  const TokenPort in = tokenInput(c, v);
  TokenPort next;
  for (size_t k = 0; k < in.classBits.size(); ++k) {  // exclusive: every other class bit weighs against it
    Expr cond = w(in.classBits[k]) - 1;
    for (size_t j = 0; j < in.classBits.size(); ++j)
      if (j != k) cond -= w(in.classBits[j]);
    next.classBits.push_back(c.step("next." + v.classes[k].name, cond));
  }
  for (size_t i = 0; i < in.valueBits.size(); ++i)
    next.valueBits.push_back(c.step(fmt::format("next.bit{}", i), w(in.valueBits[i]) - 1));
  tokenOutput(c, v, next);
  EmitOptions o;
  o.tokens = &v;
  const CompiledUnit cu = compileCircuit(c, o);
  proveExact(cu);
  std::set<int> ids;
  std::mt19937_64 rng(5);
  for (size_t k = 0; k < v.classes.size(); ++k) {
    const TokenClass& cls = v.classes[k];
    for (int64_t value : {int64_t{0}, int64_t{1}, cls.ids() - 1, cls.ids() / 2})
      if (value < cls.ids()) ids.insert(static_cast<int>(v.id(k, value)));
    for (int r = 0; r < 40; ++r) ids.insert(static_cast<int>(v.id(k, static_cast<int64_t>(rng() % static_cast<uint64_t>(cls.ids())))));
  }
  const std::vector<int> prompt(ids.begin(), ids.end());
  const model::Generation g = model::generateGreedy(load(cu, 0.0), prompt, 0, model::PromptMode::Prefill);
  for (size_t t = 0; t < prompt.size(); ++t)
    EXPECT_EQ(model::argmaxToken(g.promptLogits.col(static_cast<Eigen::Index>(t))), prompt[t]);
  EXPECT_GT(prompt.size(), 100u);
}

}  // namespace
}  // namespace qgpu::compiler
