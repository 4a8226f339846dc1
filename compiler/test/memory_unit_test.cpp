// The load/store unit on slot memory (DeltaNet heads as memory banks): sequences of stores
// and loads through the engine's real layers, against a plain byte memory (the machine's
// flat memory, docs/machine.md §1.3, §5.3) and the IR evaluator, which keeps the slots from
// one position to the next. Also: the mixer proof's refusals.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>

#include "edited_unit.h"
#include "engine_run.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/isa.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {
namespace {

constexpr uint32_t kWords = 2048;  // 8 KiB: one memory copy

// A random sequence of stores and loads (a hot set of words, so that loads find stores),
// starting from an empty memory; the expected words from a byte array, little endian.
std::vector<Position> sequence(uint32_t lanes, size_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> mem(4 * kWords, 0);
  std::vector<uint32_t> hot;
  for (int i = 0; i < 24; ++i) hot.push_back(static_cast<uint32_t>(rng() % kWords));
  auto address = [&] { return rng() % 3 == 0 ? static_cast<uint32_t>(rng() % kWords) : hot[rng() % hot.size()]; };
  std::vector<Position> out;
  for (size_t t = 0; t < n; ++t) {
    Position p;
    const bool st = rng() % 2;
    const uint32_t sw = address();
    const uint32_t data = rng() % 4 == 0 ? static_cast<uint32_t>(rng() % 3) * 0x7fffffffu : static_cast<uint32_t>(rng());
    p.inputs.push_back(st);
    putBits(p.inputs, sw, 11);
    putBits(p.inputs, data, 32);
    if (st) std::memcpy(&mem[4 * sw], &data, 4);  // the bank writes before it reads
    p.describe = st ? fmt::format("t={} st [{}] = {:#x}", t, sw, data) : fmt::format("t={} no store", t);
    for (uint32_t l = 0; l < lanes; ++l) {
      const uint32_t lw = address();
      putBits(p.inputs, lw, 11);
      uint32_t word;
      std::memcpy(&word, &mem[4 * lw], 4);
      putBits(p.expected, word, 32);
      p.describe += fmt::format(", lane {} ld [{}] = {:#x}", l, lw, word);
    }
    out.push_back(std::move(p));
  }
  return out;
}

TEST(MemoryUnit, TheBankMapIsTheMachines) {
  // Byte x in bank x mod 64 (machine::kMemoryBanks), slot x / 64: a word's four bytes in
  // four banks of one group, which is what the unit's decoders assume.
  EXPECT_EQ(kBankSlots, machine::kBankBytes);
  EXPECT_EQ(machine::kBankBytes * machine::kMemoryBanks, 4 * kWords);
  for (uint32_t word = 0; word < kWords; word += 37)
    for (uint32_t k = 0; k < 4; ++k) {
      const uint32_t x = 4 * word + k;
      EXPECT_EQ(x % machine::kMemoryBanks, 4 * (word & 15) + k);
      EXPECT_EQ(x / machine::kMemoryBanks, word >> 4);
    }
}

TEST(MemoryUnit, OneLaneThroughTheEngine) {
  Unit u = loadStoreUnit(1);
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  size_t heads = 0;
  for (const LayerProof& lp : proof.layers) heads += lp.memoryHeads;
  EXPECT_EQ(heads, 64u);
  EXPECT_GE(proof.minReadMargin, 0.49);  // a bit reads 1 up to the assumed error, 0 exactly or about
  EXPECT_GE(proof.minMargin, 1.0);
  std::mt19937_64 rng(11);
  model::Model sparse = load(cu, 1.0);
  size_t loads = 0;
  for (int s = 0; s < 6; ++s) {
    const std::vector<Position> seq = sequence(1, 512, rng);
    Evaluator ev(u.circuit);
    std::vector<std::vector<int64_t>> got = run(cu, sparse, seq, false);
    for (size_t t = 0; t < seq.size(); ++t) {
      ASSERT_EQ(ev.stepOutputs(seq[t].inputs), seq[t].expected) << "IR vs byte memory (tier 2 vs 1): " << seq[t].describe;
      ASSERT_EQ(got[t], seq[t].expected) << "engine vs byte memory, sequence " << s << ": " << seq[t].describe;
      ++loads;
    }
  }
  EXPECT_EQ(loads, 3072u);
  // Dense prefill, dense and sparse decode of one more sequence.
  const std::vector<Position> seq = sequence(1, 160, rng);
  model::Model dense = load(cu, 0.0);
  for (const auto& [name, m, decode] : {std::tuple{"dense prefill", &dense, false}, std::tuple{"dense decode", &dense, true},
                                        std::tuple{"sparse decode", &sparse, true}}) {
    std::vector<std::vector<int64_t>> got = run(cu, *m, seq, decode);
    for (size_t t = 0; t < seq.size(); ++t) ASSERT_EQ(got[t], seq[t].expected) << name << ": " << seq[t].describe;
  }
}

TEST(MemoryUnit, FourLanesThroughTheEngine) {
  // Four copies (256 banks, 16 layers of 16 heads), each lane loading from its own.
  Unit u = loadStoreUnit(4);
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  size_t heads = 0;
  for (const LayerProof& lp : proof.layers) heads += lp.memoryHeads;
  EXPECT_EQ(heads, 256u);
  EXPECT_LE(cu.config.hiddenSize, 2048);
  std::mt19937_64 rng(13);
  const std::vector<Position> seq = sequence(4, 384, rng);
  model::Model sparse = load(cu, 1.0);
  std::vector<std::vector<int64_t>> got = run(cu, sparse, seq, false);
  Evaluator ev(u.circuit);
  for (size_t t = 0; t < seq.size(); ++t) {
    ASSERT_EQ(ev.stepOutputs(seq[t].inputs), seq[t].expected) << "IR: " << seq[t].describe;
    ASSERT_EQ(got[t], seq[t].expected) << "engine: " << seq[t].describe;
  }
}

// Token by token through `fast` and two engines it must equal (`slow`: a shortcut off;
// `dense`): at each position the decoded outputs are the expected ones and the three
// residual streams are the same f32 bit patterns. The states are left as the sequence leaves them.
void expectTheSameBitsEverywhere(const CompiledUnit& cu, const std::vector<Position>& seq, const model::Model& fast,
                                 const model::Model& slow, const model::Model& dense, model::DecodeState& sf,
                                 model::DecodeState& ss, model::DecodeState& sd) {
  for (size_t t = 0; t < seq.size(); ++t) {
    const Eigen::MatrixXf x = cu.residual(seq[t].inputs);
    const Eigen::VectorXf a = fast.forwardEmbeddings(sf, x).col(0), b = slow.forwardEmbeddings(ss, x).col(0),
                          c = dense.forwardEmbeddings(sd, x).col(0);
    ASSERT_EQ(cu.decode(a), seq[t].expected) << seq[t].describe;
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size()))) << "position " << t;
    ASSERT_EQ(0, std::memcmp(a.data(), c.data(), sizeof(float) * static_cast<size_t>(a.size()))) << "position " << t;
  }
}

// The engine's one-hot DeltaNet fast path (part of its sparse path) gives the dense loop's
// bits: every logit of every position equal as f32 bit patterns, token by token over a
// store/load sequence of lsu32x1's 64 memory heads, while nearly every head-step takes it.
TEST(MemoryUnit, OneHotFastPathGivesTheDensePathsBits) {
  Unit u = loadStoreUnit(1);
  CompiledUnit cu = compileCircuit(u.circuit);
  std::mt19937_64 rng(17);
  const std::vector<Position> seq = sequence(1, 300, rng);
  model::ModelOptions fastOpts, slowOpts;
  slowOpts.linear.oneHotDeltaNet = false;  // the same sparse projections, every head dense
  const model::Model fast = model::Model::fromStore(cu.config, cu.store, fastOpts);
  const model::Model slow = model::Model::fromStore(cu.config, cu.store, slowOpts);
  const model::Model dense = load(cu, 0.0);
  model::DecodeState sf = fast.newState(), ss = slow.newState(), sd = dense.newState();
  ASSERT_NO_FATAL_FAILURE(expectTheSameBitsEverywhere(cu, seq, fast, slow, dense, sf, ss, sd));
  // Over the heads out_proj reads (the others are not computed at all: skipUnreadHeads, and
  // never in the dense engine).
  uint64_t taken = 0, headSteps = 0, slowTaken = 0, unread = 0;
  for (size_t l = 0; l < sf.deltaNet.size(); ++l)
    for (size_t h = 0; h < sf.deltaNet[l].oneHotSteps.size(); ++h) {
      slowTaken += ss.deltaNet[l].oneHotSteps[h] + sd.deltaNet[l].oneHotSteps[h];
      EXPECT_EQ(sd.deltaNet[l].unreadSteps[h], 0u);
      const uint64_t skipped = sf.deltaNet[l].unreadSteps[h];
      EXPECT_TRUE(skipped == 0 || skipped == seq.size()) << "layer " << l << " head " << h;
      unread += skipped;
      if (skipped) continue;
      taken += sf.deltaNet[l].oneHotSteps[h];
      headSteps += seq.size();
    }
  std::cout << "[ one-hot ] " << taken << " of " << headSteps << " read head steps on the fast path; " << unread
            << " steps of unread heads not computed\n";
  EXPECT_EQ(slowTaken, 0u);
  EXPECT_GE(static_cast<double>(taken), 0.9 * static_cast<double>(headSteps)) << taken << " of " << headSteps;
}

TEST(MemoryUnit, TheMixerProofRefusesInexactHeads) {
  Unit u = loadStoreUnit(1);
  const CompiledUnit cu = compileCircuit(u.circuit);
  ASSERT_NO_THROW(proveExact(cu));
  const std::string p = "model.layers.1.linear_attn.";
  const int64_t H = cu.config.hiddenSize, K = cu.config.convKernel, dk = cu.config.linearKeyHeadDim;
  // A key row of head 0 with weight 16: silu(16) is not 16.
  expectRefused(withTensorEdit(cu, p + "in_proj_qkv.weight",
                         [&](std::vector<float>& w) {
                           for (int64_t c = 0; c < H; ++c)
                             if (w[static_cast<size_t>(16 * dk * H + c)] != 0) w[static_cast<size_t>(16 * dk * H + c)] = 16;
                         }),
                "power of two >= 32", "layer 2");
  // A conv tap on the previous token.
  expectRefused(withTensorEdit(cu, p + "conv1d.weight", [&](std::vector<float>& w) { w[static_cast<size_t>(K - 2)] = 0.5f; }),
                "conv channel 0 is not the identity", "layer 2");
  // Decay left on: dt_bias 0 gives softplus(0) = log 2.
  expectRefused(withTensorEdit(cu, p + "dt_bias", [](std::vector<float>& w) { w[3] = 0; }), "decay is not exactly 1", "layer 2");
  // beta's offset removed: E = 0 gives b = 0, sigmoid 1/2.
  expectRefused(withTensorEdit(cu, p + "in_proj_b.weight", [&](std::vector<float>& w) { w[0] += 200; }), "head 0 beta", "layer 2");
  // Reads assumed far less precise than they are: the re-quantiser's cell is too small.
  ProofOptions loose;
  loose.readError = 0.4;
  expectRefused(cu, "grid units of a rounding boundary", "layer 2", loose);
}

TEST(MemoryUnit, MutantsFailTheSequences) {
  Unit u = loadStoreUnit(1);
  const CompiledUnit cu = compileCircuit(u.circuit);
  std::mt19937_64 rng(3);
  const std::vector<Position> seq = sequence(1, 512, rng);
  auto agrees = [&](const CompiledUnit& m) {
    try {
      model::Model e = load(m, 1.0);
      std::vector<std::vector<int64_t>> got = run(m, e, seq, false);
      for (size_t t = 0; t < seq.size(); ++t)
        if (got[t] != seq[t].expected) return false;
      return true;
    } catch (const CompileError&) {
      return false;
    }
  };
  ASSERT_TRUE(agrees(cu));
  const std::string p = "model.layers.1.linear_attn.";
  const int64_t H = cu.config.hiddenSize, dk = cu.config.linearKeyHeadDim;
  const int64_t keyDim = cu.config.linearKeyHeads * dk;
  // Two write-key slots of every head of layer 2 swapped: still one-hot, proven, but wrong.
  CompiledUnit swapped = withTensorEdit(cu, p + "in_proj_qkv.weight", [&](std::vector<float>& w) {
    for (int64_t h = 0; h < cu.config.linearKeyHeads; ++h)
      for (int64_t c = 0; c < H; ++c)
        std::swap(w[static_cast<size_t>((keyDim + h * dk + 5) * H + c)], w[static_cast<size_t>((keyDim + h * dk + 9) * H + c)]);
  });
  EXPECT_NO_THROW(proveExact(swapped));
  EXPECT_FALSE(agrees(swapped)) << "swapped key slots went unnoticed";
  // The write enable's sign flipped in one head (writes where it should not).
  CompiledUnit flipped = withTensorEdit(cu, p + "in_proj_b.weight", [&](std::vector<float>& w) {
    for (int64_t c = 0; c < H; ++c) w[static_cast<size_t>(c)] = -w[static_cast<size_t>(c)];
  });
  EXPECT_FALSE(agrees(flipped)) << "a flipped write enable went unnoticed";
}

TEST(MemoryUnit, ConvWindowReadsThroughTheEngine) {
  // window16: x(t-1), x(t-2), x(t-3) from the conv taps; 0 before the sequence's start.
  Unit u = windowUnit(16);
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  EXPECT_GE(proof.minReadMargin, 0.49);
  std::mt19937_64 rng(17);
  std::vector<Position> seq;
  std::vector<uint32_t> xs;
  for (int t = 0; t < 700; ++t) {
    Position p;
    const uint32_t x = t % 50 == 7 ? 0 : static_cast<uint32_t>(rng() % 65536);
    xs.push_back(x);
    putBits(p.inputs, x, 16);
    for (int d = 1; d <= 3; ++d) putBits(p.expected, t >= d ? xs[static_cast<size_t>(t - d)] : 0, 16);
    p.describe = fmt::format("t={} x={:#x}", t, x);
    seq.push_back(std::move(p));
  }
  Evaluator ev(u.circuit);
  for (const Position& p : seq) ASSERT_EQ(ev.stepOutputs(p.inputs), p.expected) << "IR: " << p.describe;
  model::Model sparse = load(cu, 1.0), dense = load(cu, 0.0);
  for (const auto& [name, m, decode] : {std::tuple{"sparse prefill", &sparse, false},
                                        std::tuple{"dense decode", &dense, true}}) {
    std::vector<std::vector<int64_t>> got = run(cu, *m, seq, decode);
    for (size_t t = 0; t < seq.size(); ++t) ASSERT_EQ(got[t], seq[t].expected) << name << ": " << seq[t].describe;
  }
  // A value tap moved to another token in one head is refused (its two rails disagree).
  const std::string conv = "model.layers.1.linear_attn.conv1d.weight";
  const int64_t K = cu.config.convKernel, v0 = 2 * cu.config.linearKeyHeads * cu.config.linearKeyHeadDim;
  expectRefused(withTensorEdit(cu, conv,
                         [&](std::vector<float>& w) {
                           for (int64_t j = 0; j < K; ++j) w[static_cast<size_t>(v0 * K + j)] = j == 0 ? 1.0f : 0.0f;
                         }),
                "come from several tokens", "layer 2");
}

// rom12's positions with `queries` queries: 100 ROM entries (key 0x800 | t, a random word),
// then positions whose keys lack the ROM bit; every query names a stored entry, and the found
// words are those entries'.
std::vector<Position> romPositions(uint64_t seed, int queries) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> rom;
  std::vector<Position> seq;
  for (int t = 0; t < 600; ++t) {
    Position p;
    const uint32_t key = t < 100 ? 0x800u | static_cast<uint32_t>(t) : static_cast<uint32_t>(rng() % 0x800);
    const uint32_t word = static_cast<uint32_t>(rng());
    if (t < 100) rom.push_back(word);
    putBits(p.inputs, key, 12);
    putBits(p.inputs, word, 32);
    p.describe = fmt::format("t={} key {:#x}, query entries", t, key);
    for (int q = 0; q < queries; ++q) {
      const uint32_t entry = static_cast<uint32_t>(rng() % rom.size());
      putBits(p.inputs, 0x800u | entry, 12);
      putBits(p.expected, rom[entry], 32);
      p.describe += fmt::format(" {}", entry);
    }
    seq.push_back(std::move(p));
  }
  return seq;
}

// The lookups a unit's proof counts.
size_t provenLookups(const CompiledUnit& cu) {
  size_t lookups = 0;
  for (const LayerProof& lp : proveExact(cu).layers) lookups += lp.lookups;
  return lookups;
}

// The IR, the engine's sparse prefill and its dense decode all find each position's words.
void expectFoundEverywhere(const Unit& u, const CompiledUnit& cu, const std::vector<Position>& seq) {
  Evaluator ev(u.circuit);
  for (const Position& p : seq) ASSERT_EQ(ev.stepOutputs(p.inputs), p.expected) << "IR: " << p.describe;
  model::Model sparse = load(cu, 1.0), dense = load(cu, 0.0);
  for (const auto& [name, m, decode] : {std::tuple{"sparse prefill", &sparse, false}, std::tuple{"dense decode", &dense, true}}) {
    std::vector<std::vector<int64_t>> got = run(cu, *m, seq, decode);
    for (size_t t = 0; t < seq.size(); ++t) ASSERT_EQ(got[t], seq[t].expected) << name << ": " << seq[t].describe;
  }
}

TEST(LookupUnit, ARomThroughTheEngine) {
  // rom12: one query of the table.
  Unit u = lookupUnit(12, 32);
  CompiledUnit cu = compileCircuit(u.circuit);
  EXPECT_EQ(provenLookups(cu), 1u);
  expectFoundEverywhere(u, cu, romPositions(23, 1));
  // The precondition: a query whose key no position holds is refused by the IR.
  Evaluator ev2(u.circuit);
  std::vector<int64_t> in;
  putBits(in, 0x800, 12);
  putBits(in, 7, 32);
  putBits(in, 0x801, 12);
  EXPECT_THROW(ev2.step(in), CompileError);
  // The query's norm gain 4 instead of 16: a mismatched bit costs 16 x 64 / 16 = 64 < 104,
  // the softmax is not one-hot.
  expectRefused(withTensorEdit(cu, "model.layers.0.self_attn.q_norm.weight",
                               [](std::vector<float>& w) {
                                 for (float& x : w) x = 3;
                               }),
                "less than 104", "layer 1");
}

TEST(LookupUnit, OneTableReadByThreeQueries) {
  // rom12x3: rom12's table read by three queries at once, three query heads over one
  // key-value head (the machine's ROM constants, one query per operand port).
  Unit u = lookupUnit(12, 32, 3);
  CompiledUnit cu = compileCircuit(u.circuit);
  EXPECT_EQ(cu.config.numHeads, 3);
  EXPECT_EQ(cu.config.numKvHeads, 1);
  EXPECT_EQ(provenLookups(cu), 1u);
  expectFoundEverywhere(u, cu, romPositions(29, 3));
  // Head 2's output gate gone: sigmoid(0) = 1/2 is no exact copy. Head 1's query read by no
  // pair of the key's dims: refused, naming the head.
  const int64_t hd = cu.config.headDim, hidden = cu.config.hiddenSize;
  auto zeroRows = [&](int64_t from, int64_t to) {
    return withTensorEdit(cu, "model.layers.0.self_attn.q_proj.weight", [&](std::vector<float>& w) {
      std::fill(w.begin() + from * hidden, w.begin() + to * hidden, 0.0f);
    });
  };
  expectRefused(zeroRows(2 * 2 * hd + hd, 3 * 2 * hd), "output gate", "layer 1");
  expectRefused(zeroRows(2 * hd, 3 * hd), "head 1", "layer 1");
}

TEST(LookupUnit, HeadsThatOProjDoesNotReadAreSkippedBitForBit) {
  // The engine skips an attention head whose o_proj columns hold no entry (the sparse path's
  // skipUnreadHeads). rom12x3 with two levels after its lookup: the last layer's silent
  // attention (Hugging Face's position count) then has three such heads. The residual must
  // equal the unskipped sparse engine's and the dense one's at every position, bit for bit.
  Circuit circuit("rom12x3 then two levels");
  const Bus key = circuit.inputBus("key", 12), value = circuit.inputBus("value", 32);
  std::vector<Bus> query;
  for (int q = 0; q < 3; ++q) query.push_back(circuit.inputBus(fmt::format("query {}", q), 12));
  const std::vector<Bus> found = circuit.lookup("found", key, query, value);
  for (int q = 0; q < 3; ++q) circuit.outputBus(fmt::format("found {}", q), found[static_cast<size_t>(q)]);
  const WireId both = circuit.step("found 0 bits 0 and 1", w(found[0][0]) + w(found[0][1]) - 2);
  circuit.output("and found 1 bit 0", circuit.step("all three", w(both) + w(found[1][0]) - 2));
  const CompiledUnit cu = compileCircuit(circuit);
  std::vector<Position> seq = romPositions(31, 3);
  for (Position& p : seq) p.expected.push_back(p.expected[0] && p.expected[1] && p.expected[32] ? 1 : 0);
  model::ModelOptions keepAll;
  keepAll.linear.sparseDensity = 1.0;
  keepAll.linear.skipUnreadHeads = false;
  const model::Model fast = load(cu, 1.0);
  const model::Model slow = model::Model::fromStore(cu.config, cu.store, keepAll);
  const model::Model dense = load(cu, 0.0);
  model::DecodeState sf = fast.newState(), ss = slow.newState(), sd = dense.newState();
  ASSERT_NO_FATAL_FAILURE(expectTheSameBitsEverywhere(cu, seq, fast, slow, dense, sf, ss, sd));
  // Unread heads from the plan: every attention layer's heads but its lookup's queries.
  uint64_t unreadPerPosition = 0;
  for (size_t l = 0; l < cu.config.layerTypes.size(); ++l) {
    if (cu.config.layerTypes[l] != model::LayerType::FullAttention) continue;
    const PlannedLayer& pl = cu.plan.mlp.at(l);
    unreadPerPosition += static_cast<uint64_t>(cu.config.numHeads) - (pl.lookup ? pl.lookup->queries.size() : 0);
  }
  uint64_t skipped = 0, slowSkipped = 0;
  for (size_t l = 0; l < sf.kv.size(); ++l) {
    skipped += sf.kv[l].skippedHeads;
    slowSkipped += ss.kv[l].skippedHeads + sd.kv[l].skippedHeads;
  }
  EXPECT_GT(unreadPerPosition, 0u);
  EXPECT_EQ(skipped, unreadPerPosition * seq.size());
  EXPECT_EQ(slowSkipped, 0u);
}

TEST(LookupUnit, EqualKeysAreScoredOnceBitForBit) {
  // The machine's ROM: 64 entries in the prompt, then positions that hold no entry (key 0,
  // values random), each querying entries as the fetch and the constants' ports do. The
  // engine's grouped reads (groupEqualKeys: each distinct key scored once, the one selected
  // position read) must give the ungrouped sparse engine's and the dense engine's residual at
  // every position, bit for bit, and answer nearly every read once keys repeat.
  Unit u = lookupUnit(12, 32, 3);
  CompiledUnit cu = compileCircuit(u.circuit);
  std::mt19937_64 rng(43);
  std::vector<uint32_t> rom;
  std::vector<Position> seq;
  for (int t = 0; t < 700; ++t) {
    Position p;
    const bool entry = t < 64;
    const uint32_t word = static_cast<uint32_t>(rng());
    if (entry) rom.push_back(word);
    putBits(p.inputs, entry ? 0x800u | static_cast<uint32_t>(t) : 0u, 12);
    putBits(p.inputs, word, 32);
    p.describe = fmt::format("t={}", t);
    for (int q = 0; q < 3; ++q) {
      const uint32_t at = static_cast<uint32_t>(rng() % rom.size());
      putBits(p.inputs, 0x800u | at, 12);
      putBits(p.expected, rom[at], 32);
    }
    seq.push_back(std::move(p));
  }
  model::ModelOptions ungroupedOptions;
  ungroupedOptions.linear.groupEqualKeys = false;
  const model::Model grouped = load(cu, 1.0);
  const model::Model ungrouped = model::Model::fromStore(cu.config, cu.store, ungroupedOptions);
  const model::Model dense = load(cu, 0.0);
  model::DecodeState sg = grouped.newState(), su = ungrouped.newState(), sd = dense.newState();
  ASSERT_NO_FATAL_FAILURE(expectTheSameBitsEverywhere(cu, seq, grouped, ungrouped, dense, sg, su, sd));
  uint64_t groupedReads = 0, otherGroupedReads = 0;
  for (size_t l = 0; l < sg.kv.size(); ++l) {
    groupedReads += sg.kv[l].groupedReads;
    otherGroupedReads += su.kv[l].groupedReads + sd.kv[l].groupedReads;
  }
  std::cout << "[ grouped ] " << groupedReads << " of " << 3 * seq.size() << " lookup reads scored by key group\n";
  EXPECT_EQ(otherGroupedReads, 0u);
  // From position 130 on (65 groups, twice as many positions) every read can be grouped.
  EXPECT_GE(groupedReads, 3u * (seq.size() - 130));
}

TEST(MemoryUnit, ADeadReadBitHasNoReadChannel) {
  // A one-slot bank of 8 data bits written at every position, of which only bits 1 and 6 are
  // read: the plan gives the other six no Read channel (kNotRead: no out_proj column, no
  // re-quantiser), the proof accepts it and the engine's reads are the IR's.
  Circuit c("dead reads");
  const Bus data = c.inputBus("data", 8);
  const WireId always = c.step("always", Expr(0));
  const Bus read = c.memoryRead("bank", {MemoryBank{{always}, w(always), data, {always}, std::nullopt, 0}});
  c.output("bit 1", read[1]);
  c.output("bit 6", read[6]);
  const CompiledUnit cu = compileCircuit(c);
  size_t heads = 0, live = 0;
  for (const PlannedLayer& l : cu.plan.mlp)
    for (const PlannedHead& h : l.heads) {
      ++heads;
      ASSERT_EQ(h.out.size(), 8u);
      for (size_t i = 0; i < h.out.size(); ++i) {
        EXPECT_EQ(h.out[i] != kNotRead, i == 1 || i == 6) << "data bit " << i;
        live += h.out[i] != kNotRead ? 1 : 0;
      }
    }
  EXPECT_EQ(heads, 1u);
  EXPECT_EQ(live, 2u);
  size_t reads = 0;
  for (const ChannelInfo& ci : cu.plan.channels) reads += ci.kind == ChannelInfo::Kind::Read ? 1 : 0;
  EXPECT_EQ(reads, 2u);
  EXPECT_NO_THROW(proveExact(cu));
  std::vector<Position> seq;
  for (uint32_t v = 0; v < 256; ++v) {
    Position p;
    putBits(p.inputs, (v * 37) & 255, 8);
    p.expected = evaluateOutputs(c, p.inputs);
    seq.push_back(std::move(p));
  }
  const model::Model m = load(cu, 0);
  const std::vector<std::vector<int64_t>> got = run(cu, m, seq, false);
  for (size_t t = 0; t < seq.size(); ++t) ASSERT_EQ(got[t], seq[t].expected) << "position " << t;
}

TEST(MemoryUnit, TheIrKeepsSlotsAcrossPositions) {
  // 10^5 positions of the IR alone against the byte memory (the engine runs a sample above).
  Unit u = loadStoreUnit(1);
  std::mt19937_64 rng(5);
  for (int s = 0; s < 20; ++s) {
    const std::vector<Position> seq = sequence(1, 5000, rng);
    Evaluator ev(u.circuit);
    for (const Position& p : seq) ASSERT_EQ(ev.stepOutputs(p.inputs), p.expected) << p.describe;
  }
}

}  // namespace
}  // namespace qgpu::compiler
