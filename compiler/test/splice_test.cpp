// Part 2c's splice (splice.h) on small compiled units and small random bases: text through
// the spliced model is the base's, logit for logit; the unit's positions are the unit's alone.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/splice.h"
#include "qgpu/interp/error.h"
#include "qgpu/model/model.h"
#include "qgpu/model/random_model.h"
#include "engine_run.h"
#include "qgpu/compiler/units.h"
#include "unit_reference.h"

namespace qgpu::compiler {
namespace {

namespace fs = std::filesystem;

// A random base with the unit's head shapes (the spliced model has one set of them).
model::ModelConfig baseConfigFor(const model::ModelConfig& gpu, int hidden, int vocab) {
  model::ModelConfig c = gpu;
  c.vocabSize = vocab;
  c.hiddenSize = hidden;
  c.intermediateSize = 96;
  c.numLayers = 2;
  c.layerTypes = {model::LayerType::LinearAttention, model::LayerType::FullAttention};
  c.numHeads = 4;  // 4 query heads over one key-value head, as the unit's lookups need
  c.numKvHeads = 1;
  c.tieWordEmbeddings = true;
  return c;
}

struct Spliced {
  fs::path dir;
  SplicePlan plan;
  SpliceFiles files;
  ~Spliced() { fs::remove_all(dir); }
};

UnitCase caseNamed(const std::string& name) {
  for (const UnitCase& c : unitCases())
    if (c.name == name) return c;
  throw std::runtime_error("no unit case " + name);
}

// A unit and a sequence of its inputs: one of the MLP-only units' samples, the memory's
// stores and loads (DeltaNet slot banks), or the lookup's keys, values and queries (attention).
struct SpliceCase {
  std::string name;
  std::function<Unit()> build;
  std::function<std::vector<int64_t>(const Unit&, std::mt19937_64&, int)> inputs;
};

std::vector<SpliceCase> spliceCases() {
  const UnitCase add = caseNamed("add32");
  return {
      {"add32", add.build, [add](const Unit& u, std::mt19937_64& rng, int i) { return add.sample(u, rng, i).inputs; }},
      {"memory", [] { return loadStoreUnit(1); },
       [](const Unit&, std::mt19937_64& rng, int) {
         std::vector<int64_t> in;
         const uint64_t hot = rng() % 4;  // a few hot words, so that loads find stores
         putBits(in, rng() % 2, 1);
         putBits(in, rng() % 2 ? hot : rng() % 2048, 11);
         putBits(in, rng(), 32);
         putBits(in, rng() % 2 ? hot : rng() % 2048, 11);
         return in;
       }},
      {"lookup", [] { return lookupUnit(12, 32); },
       [](const Unit&, std::mt19937_64& rng, int i) {  // key i, a random value, a query of a key written so far
         std::vector<int64_t> in;
         putBits(in, static_cast<uint64_t>(i), 12);
         putBits(in, rng(), 32);
         putBits(in, rng() % static_cast<uint64_t>(i + 1), 12);
         return in;
       }},
  };
}

// Positions of the unit's own samples in the spliced residual: the spliced embedding's row of
// the GPU's id 0 (its anchors and the splice's extra anchors; a unit's ids hold nothing else),
// with the unit's inputs in the GPU's channels.
Eigen::MatrixXf splicedResidual(const SplicePlan& p, const fs::path& dir, const Eigen::MatrixXf& alone) {
  const std::shared_ptr<model::TensorStore> st = model::TensorStore::openCheckpoint(dir);
  const model::TensorView& e = *st->find("model.embed_tokens.weight");
  Eigen::VectorXf row(p.spliced.hiddenSize);
  for (Eigen::Index c = 0; c < row.size(); ++c)
    row[c] = e.at(static_cast<size_t>(p.gpuIdOffset * p.spliced.hiddenSize + c));
  Eigen::MatrixXf x(p.spliced.hiddenSize, alone.cols());
  for (Eigen::Index t = 0; t < x.cols(); ++t) {
    x.col(t) = row;
    for (Eigen::Index c = 0; c < alone.rows(); ++c)
      if (alone(c, t) != 0.0f) x(p.gpuChannel0 + c, t) = alone(c, t);
  }
  return x;
}

class Splice_ : public ::testing::TestWithParam<SpliceCase> {};

TEST_P(Splice_, TextIsTheBaseAndTheUnitIsTheUnit) {
  const SpliceCase& uc = GetParam();
  Unit u = uc.build();
  CompiledUnit cu = compileCircuit(u.circuit);
  // Hidden 32 in a splice of hundreds of channels: the base's matrices are mostly padding, and
  // the engine must still compute them as the base's (docs/compiler.md §9).
  const model::ModelConfig bc = baseConfigFor(cu.config, 32, 200);
  model::RandomWeights rw;
  rw.seed = 7;
  const std::shared_ptr<model::TensorStore> baseStore = model::makeRandomTensors(bc, rw);
  const SpliceSide base{bc, baseStore.get(), "random base"}, gpu{cu.config, cu.store.get(), cu.name};
  SpliceOptions so;
  so.gpuIdOffset = 256;  // ids 200..255 belong to neither side
  Spliced s;
  s.dir = fs::temp_directory_path() / ("qgpu_splice_" + uc.name);
  fs::remove_all(s.dir);
  s.plan = planSplice(base, gpu, so);
  s.files = writeSplice(s.plan, base, gpu, s.dir);
  EXPECT_EQ(s.files.inexactScaled, 0u);
  EXPECT_EQ(s.plan.spliced.hiddenSize % 32, 0);
  EXPECT_EQ(s.plan.spliced.numLayers, bc.numLayers + cu.config.numLayers);
  EXPECT_EQ(s.plan.spliced.vocabSize, 256 + cu.config.vocabSize);

  const model::Model baseModel = model::Model::fromStore(bc, baseStore);
  const model::Model spliced = model::Model::load(s.dir);

  // Text: every base-vocabulary logit bit-identical, KL exactly 0, the other ids far below.
  const TextComparison text = compareText(baseModel, spliced, randomPrompts(bc.vocabSize, 3, 20, 11));
  EXPECT_EQ(text.positions, 60u);
  EXPECT_EQ(text.differingLogits, 0u);
  EXPECT_EQ(text.klMax, 0.0);
  EXPECT_EQ(text.otherIdsMassMax, 0.0);
  EXPECT_GT(text.otherIdsGapMin, 1000.0);
  EXPECT_TRUE(text.identical());

  // The unit: one sequence of its samples, alone and spliced; its logits rows bit-identical.
  model::ModelOptions sparse;
  sparse.linear.sparseDensity = 1.0;
  const model::Model alone = model::Model::fromStore(cu.config, cu.store, sparse);
  std::mt19937_64 rng(5);
  const int n = 48;
  Eigen::MatrixXf x(cu.config.hiddenSize, n);
  for (int i = 0; i < n; ++i) x.col(i) = cu.residual(uc.inputs(u, rng, i));
  model::DecodeState sa = alone.newState(), ss = spliced.newState();
  const Eigen::MatrixXf la = alone.forwardEmbeddings(sa, x);
  const Eigen::MatrixXf ls = spliced.forwardEmbeddings(ss, splicedResidual(s.plan, s.dir, x));
  for (int t = 0; t < n; ++t) {
    const Eigen::VectorXf a = la.col(t), g = ls.col(t).segment(so.gpuIdOffset, cu.config.vocabSize);
    ASSERT_EQ(std::memcmp(a.data(), g.data(), sizeof(float) * static_cast<size_t>(a.size())), 0) << "position " << t;
    // And the ids of the other side stay below the unit's outputs' decision.
    EXPECT_EQ(cu.decode(g), cu.decode(a));
  }
}

INSTANTIATE_TEST_SUITE_P(Units, Splice_, ::testing::ValuesIn(spliceCases()),
                         [](const ::testing::TestParamInfo<SpliceCase>& i) { return i.param.name; });

TEST(Splice, RefusesWhatDoesNotFit) {
  Unit u = caseNamed("add32").build();
  CompiledUnit cu = compileCircuit(u.circuit);
  model::ModelConfig bc = baseConfigFor(cu.config, 32, 300);
  const std::shared_ptr<model::TensorStore> store = model::makeRandomTensors(bc, {});
  const SpliceSide gpu{cu.config, cu.store.get(), cu.name};
  SpliceOptions so;
  so.gpuIdOffset = 256;
  try {
    planSplice({bc, store.get(), "big vocabulary"}, gpu, so);
    FAIL() << "a base vocabulary reaching the GPU's ids was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_NE(std::string(e.what()).find("reaches the GPU's ids"), std::string::npos) << e.what();
  }
  bc = baseConfigFor(cu.config, 32, 200);
  bc.headDim = 128;
  const std::shared_ptr<model::TensorStore> other = model::makeRandomTensors(bc, {});
  try {
    planSplice({bc, other.get(), "other heads"}, gpu, so);
    FAIL() << "a base with another head_dim was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim 128"), std::string::npos) << e.what();
  }
  // A GPU that is not a compiled one (no anchors): a random model in its place.
  const model::ModelConfig gc = baseConfigFor(cu.config, 64, 16);
  const std::shared_ptr<model::TensorStore> noAnchors = model::makeRandomTensors(gc, {});
  bc = baseConfigFor(cu.config, 32, 200);
  const std::shared_ptr<model::TensorStore> fits = model::makeRandomTensors(bc, {});
  try {
    planSplice({bc, fits.get(), "base"}, {gc, noAnchors.get(), "random gpu"}, so);
    FAIL() << "a GPU without anchors was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("anchors"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace qgpu::compiler
