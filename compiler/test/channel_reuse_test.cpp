// Channel reuse: a residual channel is zeroed by a clear neuron at its last reader's layer
// and taken by a wire written later; the proof accepts the clear as an exact zero, the
// engine agrees with the IR on every input, and a broken clear is caught. Bits packed into
// few channels (packBits) cross layers in fewer channels and come back exactly.
#include <gtest/gtest.h>

#include <cstring>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {
namespace {

// b is read at layer 1 only, a at layers 1 and 2: b's channel is free for v (layer 2).
Circuit reuseCircuit() {
  Circuit c("reuse");
  WireId a = c.input("a", {0, 255}), b = c.input("b", {0, 255});
  WireId u = c.step("u", w(a) - w(b));     // a >= b
  WireId v = c.gate("v", u, w(a));         // layer 2: a if a >= b
  WireId t = c.step("t", w(v) - 100);      // layer 3
  c.output("t", t);
  c.output("u", u);
  return c;
}

uint32_t channelNamed(const LayerPlan& p, const std::string& name) {
  for (uint32_t v = 0; v < p.channels.size(); ++v)
    if (p.channels[v].name == name) return v;
  ADD_FAILURE() << "no channel " << name;
  return 0;
}

// The engine's outputs for every (a, b), compared with the IR evaluator.
size_t disagreements(const CompiledUnit& cu, const Circuit& c) {
  model::Model m = model::Model::fromStore(cu.config, cu.store, {});
  size_t bad = 0;
  for (int a = 0; a < 256; ++a) {
    Eigen::MatrixXf x(cu.config.hiddenSize, 256);
    for (int b = 0; b < 256; ++b) x.col(b) = cu.residual({a, b});
    model::DecodeState st = m.newState();
    Eigen::MatrixXf logits = m.forwardEmbeddings(st, x);
    for (int b = 0; b < 256; ++b) {
      std::vector<int64_t> got;
      try {
        got = cu.decode(logits.col(b));
      } catch (const CompileError&) {
        ++bad;
        continue;
      }
      bad += got != evaluateOutputs(c, {a, b}) ? 1 : 0;
    }
  }
  return bad;
}

TEST(ChannelReuse, AClearedChannelIsTakenByALaterWire) {
  const Circuit c = reuseCircuit();
  CompiledUnit cu = compileCircuit(c);
  const LayerPlan& p = cu.plan;
  const uint32_t b = p.inputChannels[1], v = channelNamed(p, "v");
  EXPECT_EQ(p.channels[b].clearedAt, 1);
  EXPECT_EQ(p.channels[p.inputChannels[0]].clearedAt, 2);
  EXPECT_EQ(p.physical(v), p.physical(b));
  EXPECT_LT(p.physicalChannels, p.channels.size());
  size_t clears = 0, cleared = 0;
  for (const PlannedLayer& l : p.mlp)
    for (const PlannedNeuron& n : l.neurons) clears += n.role == NeuronRole::Clear ? 1 : 0;
  for (const ChannelInfo& ci : p.channels) cleared += ci.clearedAt > 0 ? 1 : 0;
  EXPECT_EQ(clears, cleared);
  EXPECT_NO_THROW(proveExact(cu));
  EXPECT_EQ(disagreements(cu, c), 0u);
}

TEST(ChannelReuse, WithoutReuseEveryChannelIsItsOwn) {
  const Circuit c = reuseCircuit();
  EmitOptions o;
  o.reuseChannels = false;
  CompiledUnit cu = compileCircuit(c, o);
  EXPECT_EQ(cu.plan.physicalChannels, cu.plan.channels.size());
  for (const ChannelInfo& ci : cu.plan.channels) EXPECT_EQ(ci.clearedAt, 0) << ci.name;
  EXPECT_NO_THROW(proveExact(cu));
  EXPECT_EQ(disagreements(cu, c), 0u);
}

TEST(ChannelReuse, ABrokenClearIsCaught) {
  const Circuit c = reuseCircuit();
  CompiledUnit cu = compileCircuit(c);
  // b's clear neuron in layer 1 with half its down weight: b / 2 stays in v's channel.
  const std::string name = "model.layers.0.mlp.down_proj.weight";
  const model::TensorView* d = cu.store->find(name);
  const auto& neurons = cu.plan.mlp[0].neurons;
  size_t n = 0;
  while (n < neurons.size() && neurons[n].role != NeuronRole::Clear) ++n;
  ASSERT_LT(n, neurons.size());
  const size_t I = static_cast<size_t>(cu.config.intermediateSize), row = cu.plan.physical(cu.plan.inputChannels[1]);
  std::vector<std::byte> bytes(d->numel() * 4);
  for (size_t i = 0; i < d->numel(); ++i) {
    float f = d->at(i) * (i == row * I + n ? 0.5f : 1.0f);
    std::memcpy(bytes.data() + 4 * i, &f, 4);
  }
  ASSERT_NE(d->at(row * I + n), 0.0f);
  auto store = std::make_shared<model::TensorStore>();
  for (const auto& [tn, tv] : cu.store->tensors()) {
    if (tn == name) continue;
    std::vector<std::byte> copy(tv.numel() * 4);
    for (size_t i = 0; i < tv.numel(); ++i) {
      float f = tv.at(i);
      std::memcpy(copy.data() + 4 * i, &f, 4);
    }
    store->addOwned(tn, model::DType::F32, tv.shape, std::move(copy));
  }
  store->addOwned(name, model::DType::F32, d->shape, std::move(bytes));
  CompiledUnit broken = cu;
  broken.store = store;
  EXPECT_GT(disagreements(broken, c), 0u);
}

// Eight input bits read four levels on (y_i = x_i or the OR of x0..x3, the OR a chain of
// four levels) across a wide level, either directly or packed four to a channel at level 1
// and unpacked at the chain's end.
Circuit lateBitsCircuit(bool packed) {
  Circuit c(packed ? "late bits packed" : "late bits");
  const Bus x = c.inputBus("x", 8);
  WireId chain = x[0], first = 0;
  for (uint32_t i = 1; i <= 3; ++i) {
    chain = bitOr(c, "or " + std::to_string(i), chain, x[i]);
    if (i == 1) first = chain;
  }
  const WireId late = bitAnd(c, "late", chain, chain);  // level 4
  // Something wide in between (48 wires of level 2, read at 3): the layers the bits cross.
  Expr wide;
  for (int j = 0; j < 48; ++j)
    wide += w(c.step("wide " + std::to_string(j), w(first) + w(x[j % 8]) + (j / 8 + 1) * w(x[(j + 1) % 8]) - 2));
  c.output("wide", c.step("wide sum", wide - 20));
  std::vector<Expr> bits;
  for (WireId b : x) bits.push_back(w(c.step("x" + std::to_string(bits.size()) + " at level 1", w(b) - 1)));
  if (packed) bits = unpackBits(c, "x", packBits(c, "x", bits), late);
  for (uint32_t i = 0; i < 8; ++i) c.output("y" + std::to_string(i), c.step("y" + std::to_string(i), bits[i] + w(late) - 1));
  return c;
}

TEST(ChannelReuse, PackedBitsCrossLayersInFewerChannels) {
  const Circuit direct = lateBitsCircuit(false), packed = lateBitsCircuit(true);
  const CompiledUnit cd = compileCircuit(direct), cp = compileCircuit(packed);
  EXPECT_EQ(cp.config.numLayers, cd.config.numLayers);  // the unpacking thresholds sit at late's level
  EXPECT_LT(cp.plan.physicalChannels, cd.plan.physicalChannels);
  EXPECT_NO_THROW(proveExact(cp));
  model::Model m = model::Model::fromStore(cp.config, cp.store, {});
  Eigen::MatrixXf in(cp.config.hiddenSize, 256);
  for (int v = 0; v < 256; ++v) {
    std::vector<int64_t> bits;
    for (int i = 0; i < 8; ++i) bits.push_back((v >> i) & 1);
    in.col(v) = cp.residual(bits);
  }
  model::DecodeState st = m.newState();
  const Eigen::MatrixXf logits = m.forwardEmbeddings(st, in);
  for (int v = 0; v < 256; ++v) {
    std::vector<int64_t> bits;
    for (int i = 0; i < 8; ++i) bits.push_back((v >> i) & 1);
    const std::vector<int64_t> want = evaluateOutputs(direct, bits);
    for (int i = 0; i < 8; ++i) ASSERT_EQ(want.at(1 + i), ((v >> i) & 1) | ((v & 15) != 0 ? 1 : 0)) << v;
    ASSERT_EQ(evaluateOutputs(packed, bits), want) << v;
    ASSERT_EQ(cp.decode(logits.col(v)), want) << v;
  }
  const PackedBits shape = [] {
    Circuit c("shape");
    std::vector<Expr> nine;
    for (int i = 0; i < 9; ++i) nine.push_back(w(c.inputBit("b" + std::to_string(i))));
    return packBits(c, "nine", nine);
  }();
  EXPECT_EQ(shape.widths, (std::vector<uint32_t>{4, 4, 1}));
}

}  // namespace
}  // namespace qgpu::compiler
