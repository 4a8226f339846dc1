// Every compiled unit through the engine's real layers (Model::fromStore, the same
// forward pass as a checkpoint from disk): prefill of many positions and token-by-token
// decoding, dense and sparse projections, bit-equal to the machine's units and to the IR
// evaluator. Also: mutated weights must fail, and the checkpoint bytes are deterministic.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <random>

#include "edited_unit.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/model/model.h"
#include "unit_reference.h"

namespace qgpu::compiler {
namespace {

struct Batch {
  std::vector<UnitSample> samples;
};

Batch makeBatch(const UnitCase& uc, const Unit& u, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Batch b;
  for (int i = 0; i < n; ++i) b.samples.push_back(uc.sample(u, rng, i));
  return b;
}

// Runs the samples as positions of one sequence (prefill) or one position at a time (decode).
std::vector<std::vector<int64_t>> runEngine(const CompiledUnit& cu, const model::Model& m, const Batch& b, bool decode) {
  std::vector<std::vector<int64_t>> out;
  model::DecodeState st = m.newState();
  if (decode) {
    for (const UnitSample& s : b.samples) {
      Eigen::MatrixXf x = cu.residual(s.inputs);
      out.push_back(cu.decode(m.forwardEmbeddings(st, x).col(0)));
    }
    return out;
  }
  // Sequences of 512 positions: the unit's last layer is an attention layer (silent, but
  // quadratic in the sequence length).
  constexpr size_t kSequence = 512;
  for (size_t first = 0; first < b.samples.size(); first += kSequence) {
    const size_t n = std::min(kSequence, b.samples.size() - first);
    Eigen::MatrixXf x(cu.config.hiddenSize, static_cast<Eigen::Index>(n));
    for (size_t i = 0; i < n; ++i) x.col(static_cast<Eigen::Index>(i)) = cu.residual(b.samples[first + i].inputs);
    model::DecodeState seq = m.newState();
    Eigen::MatrixXf logits = m.forwardEmbeddings(seq, x);
    for (Eigen::Index t = 0; t < logits.cols(); ++t) out.push_back(cu.decode(logits.col(t)));
  }
  return out;
}

model::Model load(const CompiledUnit& cu, double sparseDensity) {
  model::ModelOptions o;
  o.linear.sparseDensity = sparseDensity;
  return model::Model::fromStore(cu.config, cu.store, o);
}

class CompiledUnit_ : public ::testing::TestWithParam<UnitCase> {};

TEST_P(CompiledUnit_, BitEqualThroughTheEngine) {
  const UnitCase& uc = GetParam();
  Unit u = uc.build();
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  EXPECT_GE(proof.minMargin, 1.0);
  // >= 10^5 lane operations (4 lanes per position) through the sparse path in prefill.
  Batch big = makeBatch(uc, u, uc.bigBatch, 1);
  ASSERT_GE(big.samples.size() * u.lanes.size(), 100000u);
  model::Model sparse = load(cu, 1.0);
  std::vector<std::vector<int64_t>> got = runEngine(cu, sparse, big, false);
  for (size_t i = 0; i < big.samples.size(); ++i) {
    const std::vector<int64_t> ir = evaluateOutputs(u.circuit, big.samples[i].inputs);
    ASSERT_EQ(ir, big.samples[i].expected) << "IR vs machine units (tier 2 vs 1): " << big.samples[i].describe;
    ASSERT_EQ(got[i], ir) << "engine vs IR (tier 3 vs 2), position " << i << ": " << big.samples[i].describe;
  }
  // Dense projections, prefill and decode, on a smaller set.
  Batch small = makeBatch(uc, u, uc.smallBatch, 2);
  model::Model dense = load(cu, 0.0);
  std::vector<std::vector<int64_t>> prefill = runEngine(cu, dense, small, false);
  std::vector<std::vector<int64_t>> decode = runEngine(cu, dense, small, true);
  std::vector<std::vector<int64_t>> sparseDecode = runEngine(cu, sparse, small, true);
  for (size_t i = 0; i < small.samples.size(); ++i) {
    ASSERT_EQ(prefill[i], small.samples[i].expected) << "dense prefill: " << small.samples[i].describe;
    ASSERT_EQ(decode[i], small.samples[i].expected) << "dense decode: " << small.samples[i].describe;
    ASSERT_EQ(sparseDecode[i], small.samples[i].expected) << "sparse decode: " << small.samples[i].describe;
  }
}

INSTANTIATE_TEST_SUITE_P(Units, CompiledUnit_, ::testing::ValuesIn(unitCases()),
                         [](const ::testing::TestParamInfo<UnitCase>& i) { return i.param.name; });

// Mutants of the emitted weights: a wrong sign, an off-by-one threshold. Each must make
// the unit disagree with the machine on the same input set.
class Mutant : public ::testing::TestWithParam<std::string> {};

std::vector<float> copyTensor(const CompiledUnit& cu, const std::string& name) {
  const model::TensorView* v = cu.store->find(name);
  std::vector<float> out(v->numel());
  for (size_t i = 0; i < v->numel(); ++i) out[i] = v->at(i);
  return out;
}

CompiledUnit withTensor(const CompiledUnit& cu, const std::string& name, const std::vector<float>& data) {
  return withTensorEdit(cu, name, [&](std::vector<float>& d) { d = data; });
}

bool agreesEverywhere(const CompiledUnit& cu, const Batch& b) {
  model::Model m = load(cu, 1.0);
  try {
    std::vector<std::vector<int64_t>> got = runEngine(cu, m, b, false);
    for (size_t i = 0; i < b.samples.size(); ++i)
      if (got[i] != b.samples[i].expected) return false;
    return true;
  } catch (const CompileError&) {
    return false;  // a non-integer output: also a detected mutant
  }
}

TEST(CompiledMutants, WrongSignAndOffByOneThresholdAreCaught) {
  const UnitCase uc = unitCases()[0];  // add32
  Unit u = uc.build();
  CompiledUnit cu = compileCircuit(u.circuit);
  Batch b = makeBatch(uc, u, 3000, 7);
  ASSERT_TRUE(agreesEverywhere(cu, b));
  const int64_t H = cu.config.hiddenSize;
  // (1) One gate-projection weight of a carry neuron in layer 1 with the wrong sign.
  {
    const std::string name = "model.layers.0.mlp.gate_proj.weight";
    std::vector<float> g = copyTensor(cu, name);
    size_t n = 10;  // a carry threshold of lane 0
    size_t ch = cu.plan.physical(cu.plan.inputChannels[0]);
    ASSERT_NE(g[n * static_cast<size_t>(H) + ch], 0.0f);
    g[n * static_cast<size_t>(H) + ch] = -g[n * static_cast<size_t>(H) + ch];
    EXPECT_FALSE(agreesEverywhere(withTensor(cu, name, g), b)) << "a sign flip went unnoticed";
  }
  // (2) One threshold off by one: the constant (ONE channel) of a step pair moved by one
  // unit of its gain in both neurons.
  {
    const std::string name = "model.layers.0.mlp.gate_proj.weight";
    std::vector<float> g = copyTensor(cu, name);
    const auto& neurons = cu.plan.mlp[0].neurons;
    size_t n = 0;
    while (n < neurons.size() && neurons[n].role != NeuronRole::StepHigh) ++n;
    n += 20;  // a later carry
    ASSERT_LT(n + 1, neurons.size());
    g[n * static_cast<size_t>(H) + kOneChannel] -= static_cast<float>(cu.plan.gains.step);
    g[(n + 1) * static_cast<size_t>(H) + kOneChannel] -= static_cast<float>(cu.plan.gains.step);
    EXPECT_FALSE(agreesEverywhere(withTensor(cu, name, g), b)) << "an off-by-one threshold went unnoticed";
  }
}

TEST(CompiledCheckpoint, DeterministicAndLoadableFromDisk) {
  const UnitCase uc = unitCases()[0];
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "qgpu_compiler_ckpt";
  std::filesystem::remove_all(dir);
  Unit u1 = uc.build(), u2 = uc.build();
  CompiledUnit a = compileCircuit(u1.circuit), b = compileCircuit(u2.circuit);
  writeHfCheckpoint(a, dir / "a");
  writeHfCheckpoint(b, dir / "b");
  EXPECT_EQ(sha256OfFile(dir / "a" / "model.safetensors"), sha256OfFile(dir / "b" / "model.safetensors"));
  EXPECT_EQ(sha256OfFile(dir / "a" / "config.json"), sha256OfFile(dir / "b" / "config.json"));
  // The checkpoint from disk runs like the one in memory.
  model::Model m = model::Model::load(dir / "a");
  Batch batch = makeBatch(uc, u1, 200, 3);
  std::vector<std::vector<int64_t>> got = runEngine(a, m, batch, false);
  for (size_t i = 0; i < batch.samples.size(); ++i) ASSERT_EQ(got[i], batch.samples[i].expected);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qgpu::compiler
