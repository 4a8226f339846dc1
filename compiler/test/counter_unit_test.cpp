// The sequencer's counter (circuit.h's countSince, docs/compiler.md §1.3): sequences of
// markers and counted positions through the IR and the engine's real layers — a halving
// DeltaNet head whose read is 2^-k up to the gated norm, then 16 threshold heads whose beta
// and decay saturate on it — against a plain integer counter; and the proof's refusals.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cstring>
#include <random>

#include "edited_unit.h"
#include "engine_run.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {

constexpr uint32_t kBits = 16;

// A sequence of positions: markers with probability 1/`markerEvery` (none before position
// `firstMarker`), counted with probability 3/4; the expected bits from a plain counter
// (unbounded before the first marker, the marker winning over a count at its position).
std::vector<Position> sequence(size_t n, std::mt19937_64& rng, int markerEvery, size_t firstMarker) {
  std::vector<Position> out;
  int64_t k = -1;
  for (size_t t = 0; t < n; ++t) {
    Position p;
    const bool marker = t == firstMarker || (t > firstMarker && rng() % static_cast<uint64_t>(markerEvery) == 0);
    const bool counted = rng() % 4 != 0;
    if (marker) k = 0;
    else if (counted && k >= 0) ++k;
    p.inputs = {marker ? 1 : 0, counted ? 1 : 0};
    for (uint32_t j = 1; j <= kBits; ++j) p.expected.push_back(k < 0 || k >= j ? 1 : 0);
    p.describe = fmt::format("t={} marker {} counted {} k {}", t, marker, counted, k < 0 ? "unbounded" : std::to_string(k));
    out.push_back(std::move(p));
  }
  return out;
}

TEST(CounterUnit, TheIrCountsSinceTheMarker) {
  Unit u = counterUnit(kBits);
  std::mt19937_64 rng(41);
  for (int markerEvery : {3, 12, 40}) {
    const std::vector<Position> seq = sequence(30000, rng, markerEvery, 20);
    Evaluator ev(u.circuit);
    for (const Position& p : seq) ASSERT_EQ(ev.stepOutputs(p.inputs), p.expected) << "IR: " << p.describe;
  }
}

TEST(CounterUnit, ThroughTheEngine) {
  Unit u = counterUnit(kBits);
  CompiledUnit cu = compileCircuit(u.circuit);
  EXPECT_EQ(cu.config.numLayers, 3);  // the halving head, the threshold heads, the attention layer
  ProofReport proof = proveExact(cu);
  size_t counterHeads = 0;
  for (const LayerProof& lp : proof.layers) counterHeads += lp.counterHeads;
  EXPECT_EQ(counterHeads, 1 + kBits);
  EXPECT_GE(proof.minReadMargin, 0.49);
  EXPECT_GE(proof.minSaturationMargin, 1.0);
  std::mt19937_64 rng(43);
  model::Model sparse = load(cu, 1.0), dense = load(cu, 0.0);
  size_t positions = 0;
  // Long runs without a marker (counts far past 16), frequent markers, and the unbounded
  // count before the first marker.
  for (const auto& [markerEvery, firstMarker] : {std::pair{40, 30}, std::pair{6, 0}, std::pair{25, 3}, std::pair{100, 200}}) {
    const std::vector<Position> seq = sequence(512, rng, markerEvery, static_cast<size_t>(firstMarker));
    Evaluator ev(u.circuit);
    std::vector<std::vector<int64_t>> got = run(cu, sparse, seq, false);
    for (size_t t = 0; t < seq.size(); ++t) {
      ASSERT_EQ(ev.stepOutputs(seq[t].inputs), seq[t].expected) << "IR vs counter (tier 2 vs 1): " << seq[t].describe;
      ASSERT_EQ(got[t], seq[t].expected) << "engine (sparse prefill) vs counter: " << seq[t].describe;
      ++positions;
    }
  }
  EXPECT_EQ(positions, 2048u);
  const std::vector<Position> seq = sequence(200, rng, 30, 2);
  for (const auto& [name, m, decode] : {std::tuple{"dense prefill", &dense, false}, std::tuple{"dense decode", &dense, true},
                                        std::tuple{"sparse decode", &sparse, true}}) {
    std::vector<std::vector<int64_t>> got = run(cu, *m, seq, decode);
    for (size_t t = 0; t < seq.size(); ++t) ASSERT_EQ(got[t], seq[t].expected) << name << ": " << seq[t].describe;
  }
}

TEST(CounterUnit, TheProofRefusesWhatWouldNotBeExact) {
  Unit u = counterUnit(kBits);
  CompiledUnit cu = compileCircuit(u.circuit);
  ASSERT_NO_THROW(proveExact(cu));
  const int64_t H = cu.config.hiddenSize;
  const std::string halving = "model.layers.0.linear_attn.", thresholds = "model.layers.1.linear_attn.";
  // The halving head's decay 1/2 where the marker is set too (its marker weight cut).
  expectRefused(withTensorEdit(cu, halving + "in_proj_a.weight",
                               [&](std::vector<float>& w) {
                                 for (int64_t c = 1; c < H; ++c)
                                   if (w[static_cast<size_t>(c)] == static_cast<float>(-kCounterDecayGain))
                                     w[static_cast<size_t>(c)] = 0;
                               }),
                "its decay can be below 1 where the marker bit is 1", "layer 1");
  // Threshold 8's theta moved onto the level k = 8: sigmoid no longer saturates there.
  const double level8 = counterRead(8);
  expectRefused(withTensorEdit(cu, thresholds + "in_proj_b.weight",
                               [&](std::vector<float>& w) {
                                 const size_t row = 7 * static_cast<size_t>(H);  // head 7: [k >= 8]
                                 float onRead = 0;  // -G, on the halving read's channel
                                 for (int64_t c = 1; c < H; ++c)
                                   if (w[row + static_cast<size_t>(c)] != 0) onRead = w[row + static_cast<size_t>(c)];
                                 w[row] = static_cast<float>(-onRead * level8);  // ONE: G theta with theta = level 8
                               }),
                "inside (-89, 17)", "layer 2");
  // Threshold 3's decay left at 1 (a = 0, dt_bias -200): beta 0 would keep an older slot.
  CompiledUnit noErase = withTensorEdit(cu, thresholds + "in_proj_a.weight", [&](std::vector<float>& w) {
    for (int64_t c = 0; c < H; ++c) w[static_cast<size_t>(2 * H + c)] = 0;
  });
  noErase = withTensorEdit(noErase, thresholds + "dt_bias", [&](std::vector<float>& w) { w[2] = -200; });
  expectRefused(noErase, "would keep an older slot", "layer 2");
  // An assumed read error of 1/5 lets the halving read's levels reach the thresholds.
  ProofOptions loose;
  loose.readError = 0.2;
  expectRefused(cu, "inside (-89, 17)", "layer 2", loose);
}

TEST(CounterUnit, MutantsThatProveStillDisagree) {
  // Threshold heads 3 and 7 answering into each other's channels: each read is still a
  // proven 0/1 read, but the bits [k >= 3] and [k >= 7] trade places.
  Unit u = counterUnit(kBits);
  CompiledUnit cu = compileCircuit(u.circuit);
  const int64_t H = cu.config.hiddenSize, dv = cu.config.linearValueHeadDim, V = cu.config.valueDim();
  CompiledUnit frozen = withTensorEdit(cu, "model.layers.1.linear_attn.out_proj.weight", [&](std::vector<float>& w) {
    for (int64_t r = 0; r < H; ++r)
      std::swap(w[static_cast<size_t>(r * V + 2 * dv)], w[static_cast<size_t>(r * V + 6 * dv)]);
  });
  ASSERT_NO_THROW(proveExact(frozen));
  std::mt19937_64 rng(47);
  const std::vector<Position> seq = sequence(300, rng, 20, 1);
  model::Model m = load(frozen, 1.0);
  std::vector<std::vector<int64_t>> got = run(frozen, m, seq, false);
  size_t wrong = 0;
  for (size_t t = 0; t < seq.size(); ++t) wrong += got[t] != seq[t].expected ? 1 : 0;
  EXPECT_GT(wrong, 30u) << "two swapped threshold heads went unnoticed";
}

// The engine's one-hot DeltaNet fast path with a decay of exactly 0 (the threshold heads'
// erase): every logit's bits equal the dense loop's, position by position, while nearly
// every head-step takes the fast path.
TEST(CounterUnit, ErasingHeadsOnTheFastPathGiveTheDensePathsBits) {
  Unit u = counterUnit(kBits);
  CompiledUnit cu = compileCircuit(u.circuit);
  std::mt19937_64 rng(53);
  const std::vector<Position> seq = sequence(400, rng, 12, 3);
  model::ModelOptions fastOpts, slowOpts;
  slowOpts.linear.oneHotDeltaNet = false;  // the same sparse projections, every head dense
  const model::Model fast = model::Model::fromStore(cu.config, cu.store, fastOpts);
  const model::Model slow = model::Model::fromStore(cu.config, cu.store, slowOpts);
  model::DecodeState sf = fast.newState(), ss = slow.newState();
  for (size_t t = 0; t < seq.size(); ++t) {
    const Eigen::MatrixXf x = cu.residual(seq[t].inputs);
    const Eigen::VectorXf a = fast.forwardEmbeddings(sf, x).col(0), b = slow.forwardEmbeddings(ss, x).col(0);
    ASSERT_EQ(cu.decode(a), seq[t].expected) << seq[t].describe;
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size()))) << "position " << t;
  }
  // The threshold heads (layer 2) take the fast path at nearly every position, erasing or not.
  uint64_t taken = 0, headSteps = 0;
  for (uint64_t steps : sf.deltaNet.at(1).oneHotSteps) {
    taken += steps;
    headSteps += seq.size();
  }
  EXPECT_GE(static_cast<double>(taken), 0.9 * static_cast<double>(headSteps)) << taken << " of " << headSteps;
}

}  // namespace
}  // namespace qgpu::compiler
