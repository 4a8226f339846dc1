// Emission pass: plan -> Qwen3.5 tensors, config and checkpoint files.
#include "qgpu/compiler/emit.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "qgpu/compiler/error.h"
#include "qgpu/model/checkpoint_check.h"
#include "qgpu/model/safetensors_writer.h"

namespace qgpu::compiler {
namespace {

int ceilPow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  Tensor(std::vector<int64_t> s, float fill = 0.0f) : shape(std::move(s)) {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    data.assign(n, fill);
  }
  float& at(int64_t r, int64_t c) { return data[static_cast<size_t>(r * shape[1] + c)]; }
};

// A zero-centred RMSNorm weight w with 1 + w == gain exactly in f32.
float normWeightFor(double gain) {
  float w = static_cast<float>(gain - 1.0);
  if (static_cast<double>(1.0f + w) != gain)
    throw CompileError(fmt::format("emit: norm gain {} is not exactly 1 + an f32 weight", gain));
  return w;
}

// The mixer of a layer holding memory banks (docs/compiler.md §2, "memory heads"): every
// head is a bank, conv is the identity, decay is off (alpha = 1), beta is 0 or 1.
template <typename Add>
void emitMemoryMixer(const CompiledUnit& u, const PlannedLayer& pl, Add add) {
  const model::ModelConfig& cfg = u.config;
  const int64_t hidden = cfg.hiddenSize, dk = cfg.linearKeyHeadDim, dv = cfg.linearValueHeadDim;
  const int64_t keyDim = cfg.linearKeyHeads * dk, heads = cfg.linearValueHeads;
  Tensor qkv({cfg.convDim(), hidden}), z({cfg.valueDim(), hidden}), b({heads, hidden}), a({heads, hidden});
  Tensor conv({cfg.convDim(), 1, cfg.convKernel}), dt({heads}, -200.0f), alog({heads}), wn({dv}, 1.0f);
  Tensor out({hidden, cfg.valueDim()});
  for (int64_t c = 0; c < cfg.convDim(); ++c) conv.data[static_cast<size_t>(c * cfg.convKernel + cfg.convKernel - 1)] = 1;
  const uint32_t one = kOneChannel;
  for (const PlannedHead& h : pl.heads) {
    const int64_t H = h.head;
    for (size_t j = 0; j < h.readKey.size(); ++j)
      qkv.at(H * dk + static_cast<int64_t>(j), u.plan.physical(h.readKey[j])) = kMemoryKey;
    for (size_t j = 0; j < h.writeKey.size(); ++j)
      qkv.at(keyDim + H * dk + static_cast<int64_t>(j), u.plan.physical(h.writeKey[j])) = kMemoryKey;
    const int64_t v0 = 2 * keyDim + H * dv, rail = dv / 2;
    for (size_t i = 0; i < h.data.size(); ++i) {
      const uint32_t ch = u.plan.physical(h.data[i]);
      for (int64_t r : {v0 + static_cast<int64_t>(i), v0 + rail + static_cast<int64_t>(i)}) {  // the conv tap
        for (int64_t j = 0; j < cfg.convKernel; ++j) conv.data[static_cast<size_t>(r * cfg.convKernel + j)] = 0;
        conv.data[static_cast<size_t>(r * cfg.convKernel + cfg.convKernel - 1 - h.delay)] = 1;
      }
      qkv.at(v0 + static_cast<int64_t>(i), ch) = kMemoryValue;
      if (ch == one) continue;  // a constant 1 (a threshold head's): no complement rail
      qkv.at(v0 + rail + static_cast<int64_t>(i), ch) = -kMemoryValue;
      qkv.at(v0 + rail + static_cast<int64_t>(i), one) = kMemoryValue;
    }
    switch (h.kind) {
      case PlannedHead::Kind::Bank:
        b.at(H, one) = static_cast<float>(kWriteGain * h.writeEnable.constant - kWriteGain / 2);
        for (const auto& [ch, k] : h.writeEnable.terms) b.at(H, u.plan.physical(ch)) += static_cast<float>(kWriteGain * k);
        break;
      case PlannedHead::Kind::Halving: {
        // Keys: slot 0 = the marker bit, slot 1 its complement; the query both slots; beta 1
        // everywhere; the decay 1/2 where counted (exp(A_log) * 32 = ln 2), else 1.
        const uint32_t m = u.plan.physical(h.data.at(0));
        qkv.at(keyDim + H * dk, m) = kMemoryKey;
        qkv.at(keyDim + H * dk + 1, m) = -kMemoryKey;
        qkv.at(keyDim + H * dk + 1, one) = kMemoryKey;
        qkv.at(H * dk, one) = kMemoryKey;
        qkv.at(H * dk + 1, one) = kMemoryKey;
        b.at(H, one) = static_cast<float>(kWriteGain / 2);
        a.at(H, one) = static_cast<float>(h.decay.constant);
        for (const auto& [ch, k] : h.decay.terms) a.at(H, u.plan.physical(ch)) += static_cast<float>(k);
        dt.data[static_cast<size_t>(H)] = 0;
        alog.data[static_cast<size_t>(H)] = static_cast<float>(std::log(std::log(2.0) / static_cast<double>(kCounterDecayOn)));
        break;
      }
      case PlannedHead::Kind::Threshold: {
        // b = G (theta - r), a = -b, decay exp(-softplus(a)): where the halving read r is
        // below theta (k >= threshold) beta and decay are exactly 1 (the slot holds 1), above
        // it both are exactly 0 (the state is erased). theta is the geometric mean of the two
        // levels around it; G the power of two that puts every level kThresholdSwing away,
        // allowing a relative read error of 2^-5 (the proof assumes less than 2^-7 up to k = 16).
        const double above = counterRead(static_cast<int>(h.threshold) - 1), below = counterRead(static_cast<int>(h.threshold));
        const double theta = std::sqrt(above * below), err = std::ldexp(1.0, -5);
        const double gap = std::min(above * (1 - err) - theta, theta - below * (1 + err));
        const double G = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(kThresholdSwing / gap))));
        const uint32_t r = u.plan.physical(*h.count);
        b.at(H, one) = static_cast<float>(G * theta);
        b.at(H, r) = static_cast<float>(-G);
        a.at(H, one) = static_cast<float>(-G * theta);
        a.at(H, r) = static_cast<float>(G);
        dt.data[static_cast<size_t>(H)] = 0;
        break;
      }
    }
    // A set bit comes out of the gated norm as sqrt(dv / W) * z (W the data width): z makes
    // that 128 * 2^k (z >= 32: silu passes it unchanged), out_proj scales it to 1.
    int k = 0;
    auto zFor = [&](int e) { return std::ldexp(128.0, e) * std::sqrt(static_cast<double>(h.data.size()) / static_cast<double>(dv)); };
    while (zFor(k) < 32) ++k;
    const float Z = static_cast<float>(zFor(k)), wo = static_cast<float>(std::ldexp(1.0, -7 - k));
    for (int64_t i = 0; i < dv; ++i) z.at(H * dv + i, h.readSelect ? u.plan.physical(*h.readSelect) : one) = Z;
    for (size_t i = 0; i < h.out.size(); ++i)
      if (h.out[i] != kNotRead) out.at(u.plan.physical(h.out[i]), H * dv + static_cast<int64_t>(i)) = wo;
  }
  add("linear_attn.in_proj_qkv.weight", std::move(qkv));
  add("linear_attn.in_proj_z.weight", std::move(z));
  add("linear_attn.in_proj_b.weight", std::move(b));
  add("linear_attn.in_proj_a.weight", std::move(a));
  add("linear_attn.conv1d.weight", std::move(conv));
  add("linear_attn.dt_bias", std::move(dt));
  add("linear_attn.A_log", std::move(alog));
  add("linear_attn.norm.weight", std::move(wn));
  add("linear_attn.out_proj.weight", std::move(out));
}

// The attention heads of a lookup (docs/compiler.md §2, "lookups"): dual-rail key and queries
// in the unrotated dims, norm gains that make a matching bit score 256, a constant output
// gate; query head h (rows h * 2hd.., its gate at h * 2hd + hd..) reads the one key-value
// head and writes its read through o_proj's columns h * hd... Heads past the queries have
// zero query and zero o_proj columns: silent.
template <typename Add>
void emitLookup(const CompiledUnit& u, const PlannedLookup& lk, Add add) {
  const model::ModelConfig& cfg = u.config;
  const int64_t hidden = cfg.hiddenSize, hd = cfg.headDim, rd = cfg.rotaryDim();
  Tensor q({2 * cfg.numHeads * hd, hidden}), k({cfg.numKvHeads * hd, hidden}), v({cfg.numKvHeads * hd, hidden});
  Tensor o({hidden, cfg.numHeads * hd}), qn({hd}, static_cast<float>(kLookupGain - 1)), kn({hd}, static_cast<float>(kLookupGain - 1));
  const uint32_t one = kOneChannel;
  // Pair b: dims rd + 2b (rail x bit) and rd + 2b + 1 (rail x (1 - bit)); past the key's
  // width a constant 0 bit in both, which always matches.
  auto rails = [&](Tensor& m, const std::vector<uint32_t>& bits, int64_t at = 0) {
    for (uint32_t b = 0; b < kLookupKeyBits; ++b) {
      m.at(at + rd + 2 * b + 1, one) = kLookupRail;
      if (b < bits.size()) {
        m.at(at + rd + 2 * b, u.plan.physical(bits[b])) = kLookupRail;
        m.at(at + rd + 2 * b + 1, u.plan.physical(bits[b])) = -kLookupRail;
      }
    }
  };
  rails(k, lk.key);
  for (size_t i = 0; i < lk.value.size(); ++i) v.at(static_cast<int64_t>(i), u.plan.physical(lk.value[i])) = 1;
  for (size_t h = 0; h < lk.queries.size(); ++h) {
    const int64_t qAt = static_cast<int64_t>(h) * 2 * hd, oAt = static_cast<int64_t>(h) * hd;
    rails(q, lk.queries[h], qAt);
    for (int64_t i = 0; i < hd; ++i) q.at(qAt + hd + i, one) = kLookupGate;  // the output gate: sigmoid(200) = 1
    for (size_t i = 0; i < lk.value.size(); ++i) o.at(u.plan.physical(lk.outs[h][i]), oAt + static_cast<int64_t>(i)) = 1;
  }
  add("self_attn.q_proj.weight", std::move(q));
  add("self_attn.k_proj.weight", std::move(k));
  add("self_attn.v_proj.weight", std::move(v));
  add("self_attn.o_proj.weight", std::move(o));
  add("self_attn.q_norm.weight", std::move(qn));
  add("self_attn.k_norm.weight", std::move(kn));
}

// The physical channel of the token wire `name` among the circuit's inputs or outputs, or -1.
int64_t tokenChannel(const Circuit& c, const CompiledUnit& u, const std::string& name, bool output) {
  if (output) {
    for (size_t i = 0; i < c.outputs().size(); ++i)
      if (c.outputs()[i].first == name) return u.plan.physical(u.plan.outputChannels[i]);
    return -1;
  }
  for (size_t i = 0; i < c.inputs().size(); ++i)
    if (c.node(c.inputs()[i]).name == name) return u.plan.physical(u.plan.inputChannels[i]);
  return -1;
}

// Every embedding row of a class holds its token's features (EmitOptions::tokenFeatures), each
// inside its input's range.
void embedFeatures(const Circuit& c, const CompiledUnit& u, const TokenVocabulary& v,
                   const std::function<std::vector<int64_t>(int64_t)>& features, Tensor& embed) {
  const LayerPlan& p = u.plan;
  for (size_t k = 0; k < v.classes.size(); ++k)
    for (int64_t value = 0; value < v.classes[k].ids(); ++value) {
      const int64_t row = v.id(k, value);
      const std::vector<int64_t> in = features(row);
      if (in.size() != p.inputChannels.size())
        throw CompileError(fmt::format("{}: token {} has {} features for {} inputs", c.name(), row, in.size(), p.inputChannels.size()));
      for (size_t i = 0; i < in.size(); ++i) {
        const ChannelInfo& ch = p.channels[p.inputChannels[i]];
        if (in[i] < ch.range.lo || in[i] > ch.range.hi)
          throw CompileError(fmt::format("{}: token {}: input '{}' = {} is outside [{}, {}]", c.name(), row, ch.name, in[i],
                                         ch.range.lo, ch.range.hi));
        if (in[i] != 0) embed.at(row, p.physical(p.inputChannels[i])) = static_cast<float>(in[i]);
      }
    }
}

// Every embedding row sets its token's class bit and value bits (token_io.h).
void embedTokens(const Circuit& c, const CompiledUnit& u, const TokenVocabulary& v, Tensor& embed) {
  for (WireId in : c.inputs()) {
    const std::string& n = c.node(in).name;
    if (n.rfind("token.class.", 0) != 0 && n.rfind("token.value[", 0) != 0)
      throw CompileError(fmt::format("{}: input '{}' is not a token input: a token-driven circuit reads only its token", c.name(), n));
  }
  std::vector<int64_t> cls, bit;
  for (const TokenClass& k : v.classes) cls.push_back(tokenChannel(c, u, "token.class." + k.name, false));
  for (uint32_t i = 0; i < v.valueBits(); ++i) bit.push_back(tokenChannel(c, u, fmt::format("token.value[{}]", i), false));
  for (size_t k = 0; k < v.classes.size(); ++k)
    for (int64_t value = 0; value < v.classes[k].ids(); ++value) {
      const int64_t row = v.id(k, value);
      if (cls[k] >= 0) embed.at(row, cls[k]) = 1.0f;
      for (uint32_t i = 0; i < v.classes[k].valueBits; ++i)
        if (bit[i] >= 0 && ((value >> i) & 1)) embed.at(row, bit[i]) = 1.0f;
    }
}

// Head rows: W on the class bit, ±1 on the class's value bits, −popcount(value) from ONE.
void tokenHead(const Circuit& c, const CompiledUnit& u, const TokenVocabulary& v, Tensor& head) {
  std::vector<int64_t> cls, bit;
  for (const TokenClass& k : v.classes) cls.push_back(tokenChannel(c, u, "next.class." + k.name, true));
  for (uint32_t i = 0; i < v.valueBits(); ++i) bit.push_back(tokenChannel(c, u, fmt::format("next.value[{}]", i), true));
  for (int64_t ch : cls)
    if (ch < 0) throw CompileError(fmt::format("{}: no token output (tokenOutput) for the token head", c.name()));
  for (size_t k = 0; k < v.classes.size(); ++k)
    for (int64_t value = 0; value < v.classes[k].ids(); ++value) {
      const int64_t row = v.id(k, value);
      head.at(row, cls[k]) = static_cast<float>(kHeadClassWeight);
      for (uint32_t i = 0; i < v.classes[k].valueBits; ++i) head.at(row, bit[i]) = ((value >> i) & 1) ? 1.0f : -1.0f;
      head.at(row, kOneChannel) = -static_cast<float>(std::popcount(static_cast<uint64_t>(value)));
    }
}

}  // namespace

CompiledUnit planUnit(const Circuit& c, const EmitOptions& o) {
  CompiledUnit u;
  u.name = c.name();
  Schedule s = schedule(c);
  u.plan = planLayers(c, s, 2, o.gains, o.reuseChannels);
  u.anchorExponent = o.anchorExponent;

  const int channels = static_cast<int>(u.plan.physicalChannels);
  const int hidden = std::max(o.minHidden, ceilPow2(channels));
  const int h = static_cast<int>(std::lround(std::log2(hidden)));
  // Sum of anchor squares = nA * 2^(2m); mean = 2^(2m + nA - 1 - h) must be a power of 4.
  u.liveAnchors = ((2 * o.anchorExponent - h) % 2 == 0) ? 1u : 2u;
  u.normExponent = (2 * o.anchorExponent + static_cast<int>(u.liveAnchors) - 1 - h) / 2;
  if (u.normExponent < 3) throw CompileError(fmt::format("{}: anchors too small for hidden {}", c.name(), hidden));
  size_t neurons = 1;
  for (const PlannedLayer& l : u.plan.mlp) neurons = std::max(neurons, l.neurons.size());
  const int inter = roundUp(static_cast<int>(neurons), 8);
  const int vocab = o.tokens ? static_cast<int>(o.tokens->size())
                             : std::max(8, roundUp(static_cast<int>(u.plan.outputChannels.size()), 8));

  model::ModelConfig& cfg = u.config;
  cfg.modelType = "qwen3_5_text";
  cfg.vocabSize = vocab;
  cfg.hiddenSize = hidden;
  cfg.intermediateSize = inter;
  cfg.numLayers = u.plan.layers;
  // DeltaNet mixers everywhere but the last layer: Hugging Face's cache needs one attention
  // layer to count positions. Every mixer is silent.
  cfg.layerTypes.assign(static_cast<size_t>(u.plan.layers), model::LayerType::LinearAttention);
  cfg.layerTypes.back() = model::LayerType::FullAttention;
  for (size_t l = 0; l < u.plan.mlp.size(); ++l)
    if (u.plan.mlp[l].lookup) cfg.layerTypes[l] = model::LayerType::FullAttention;  // a lookup's layer
  // One key-value head; as many query heads as the lookup with the most queries reads.
  cfg.numHeads = 1;
  for (const PlannedLayer& l : u.plan.mlp)
    if (l.lookup) cfg.numHeads = std::max(cfg.numHeads, static_cast<int>(l.lookup->queries.size()));
  cfg.numKvHeads = 1;
  cfg.headDim = 256;
  cfg.ropeTheta = 1e7;
  cfg.partialRotaryFactor = 0.25;
  bool memory = false;
  for (const PlannedLayer& l : u.plan.mlp) memory = memory || !l.heads.empty();
  cfg.linearKeyHeads = memory ? kHeadsPerLayer : 1;
  cfg.linearValueHeads = memory ? kHeadsPerLayer : 1;
  cfg.linearKeyHeadDim = 128;
  cfg.linearValueHeadDim = 128;
  cfg.convKernel = 4;
  cfg.rmsNormEps = 1e-6;
  cfg.tieWordEmbeddings = false;

  return u;
}

CompiledUnit compileCircuit(const Circuit& c, const EmitOptions& o) {
  CompiledUnit u = planUnit(c, o);
  const model::ModelConfig& cfg = u.config;
  const int vocab = cfg.vocabSize, hidden = cfg.hiddenSize, inter = cfg.intermediateSize;
  const double anchor = std::ldexp(1.0, o.anchorExponent);
  const double dataGain = std::ldexp(1.0, u.normExponent);
  const double oneGain = std::ldexp(1.0, u.normExponent - o.anchorExponent);

  std::map<std::string, Tensor> t;
  auto add = [&](const std::string& name, Tensor x) { t.emplace("model." + name, std::move(x)); };
  Tensor embed({vocab, hidden});
  for (int r = 0; r < vocab; ++r)
    for (uint32_t a = 0; a < u.liveAnchors; ++a) embed.at(r, a) = static_cast<float>(anchor);
  if (o.tokens && o.tokenFeatures) embedFeatures(c, u, *o.tokens, o.tokenFeatures, embed);
  else if (o.tokens) embedTokens(c, u, *o.tokens, embed);
  add("embed_tokens.weight", std::move(embed));

  // Every norm: data channels gain 2^e (value in = value out), ONE gain 2^(e-m) (reads 1),
  // the second anchor gain 0.
  Tensor norm({hidden}, normWeightFor(dataGain));
  norm.data[kOneChannel] = normWeightFor(oneGain);
  norm.data[1] = normWeightFor(0.0);
  const Tensor silent({hidden}, normWeightFor(0.0));

  const int64_t conv = cfg.convDim(), value = cfg.valueDim();
  for (int l = 0; l < u.plan.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    const PlannedLayer& pl = u.plan.mlp[static_cast<size_t>(l)];
    // A mixer without memory banks reads an exact zero vector; one with banks the residual
    // normalised as the MLP reads it (values unchanged, ONE = 1).
    add(p + "input_layernorm.weight", pl.heads.empty() && !pl.lookup ? silent : norm);
    add(p + "post_attention_layernorm.weight", norm);
    if (pl.lookup) {
      emitLookup(u, *pl.lookup, [&](const std::string& name, Tensor x) { add(p + name, std::move(x)); });
    } else if (!pl.heads.empty()) {
      emitMemoryMixer(u, pl, [&](const std::string& name, Tensor x) { add(p + name, std::move(x)); });
    } else if (cfg.layerTypes[static_cast<size_t>(l)] == model::LayerType::LinearAttention) {
      add(p + "linear_attn.in_proj_qkv.weight", Tensor({conv, hidden}));
      add(p + "linear_attn.in_proj_z.weight", Tensor({value, hidden}));
      add(p + "linear_attn.in_proj_b.weight", Tensor({cfg.linearValueHeads, hidden}));
      add(p + "linear_attn.in_proj_a.weight", Tensor({cfg.linearValueHeads, hidden}));
      add(p + "linear_attn.conv1d.weight", Tensor({conv, 1, cfg.convKernel}));
      add(p + "linear_attn.dt_bias", Tensor({cfg.linearValueHeads}));
      add(p + "linear_attn.A_log", Tensor({cfg.linearValueHeads}));
      add(p + "linear_attn.norm.weight", Tensor({cfg.linearValueHeadDim}));
      add(p + "linear_attn.out_proj.weight", Tensor({hidden, value}));
    } else {
      const int64_t hd = cfg.headDim, nh = cfg.numHeads, nkv = cfg.numKvHeads;
      add(p + "self_attn.q_proj.weight", Tensor({2 * nh * hd, hidden}));
      add(p + "self_attn.k_proj.weight", Tensor({nkv * hd, hidden}));
      add(p + "self_attn.v_proj.weight", Tensor({nkv * hd, hidden}));
      add(p + "self_attn.o_proj.weight", Tensor({hidden, nh * hd}));
      add(p + "self_attn.q_norm.weight", Tensor({hd}));
      add(p + "self_attn.k_norm.weight", Tensor({hd}));
    }
    Tensor gate({inter, hidden}), up({inter, hidden}), down({hidden, inter});
    auto put = [&](Tensor& m, int64_t row, const ChannelForm& f, double scale) {
      m.at(row, kOneChannel) += static_cast<float>(static_cast<double>(f.constant) * scale);
      for (const auto& [ch, k] : f.terms) m.at(row, u.plan.physical(ch)) += static_cast<float>(static_cast<double>(k) * scale);
    };
    for (size_t n = 0; n < pl.neurons.size(); ++n) {
      put(gate, static_cast<int64_t>(n), pl.neurons[n].gate, static_cast<double>(pl.neurons[n].gain));
      put(up, static_cast<int64_t>(n), pl.neurons[n].up, 1.0);
    }
    for (const PlannedWrite& wr : pl.writes)
      for (const auto& [n, weight] : wr.neurons) down.at(u.plan.physical(wr.channel), n) += static_cast<float>(weight);
    add(p + "mlp.gate_proj.weight", std::move(gate));
    add(p + "mlp.up_proj.weight", std::move(up));
    add(p + "mlp.down_proj.weight", std::move(down));
  }
  add("norm.weight", norm);
  Tensor head({vocab, hidden});
  if (o.tokens)
    tokenHead(c, u, *o.tokens, head);
  else
    for (size_t o2 = 0; o2 < u.plan.outputChannels.size(); ++o2)
      head.at(static_cast<int64_t>(o2), u.plan.physical(u.plan.outputChannels[o2])) = 1.0f;
  t.emplace("lm_head.weight", std::move(head));

  u.store = std::make_shared<model::TensorStore>();
  for (auto& [name, x] : t) {
    std::vector<std::byte> bytes(x.data.size() * 4);
    std::memcpy(bytes.data(), x.data.data(), bytes.size());
    u.store->addOwned(name, model::DType::F32, x.shape, std::move(bytes));
    std::vector<float>().swap(x.data);  // one copy at a time: a machine vocabulary's embedding and head are 2 GB each
  }
  model::checkTensors(cfg, *u.store);  // every tensor the format names, with its shape
  return u;
}

Eigen::VectorXf CompiledUnit::residual(const std::vector<int64_t>& inputs) const {
  if (inputs.size() != plan.inputChannels.size())
    throw CompileError(fmt::format("{}: {} input values for {} inputs", name, inputs.size(), plan.inputChannels.size()));
  Eigen::VectorXf x = Eigen::VectorXf::Zero(config.hiddenSize);
  for (uint32_t a = 0; a < liveAnchors; ++a) x[a] = std::ldexp(1.0f, anchorExponent);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Range& r = plan.channels[plan.inputChannels[i]].range;
    if (inputs[i] < r.lo || inputs[i] > r.hi)
      throw CompileError(fmt::format("{}: input '{}' = {} is outside [{}, {}]", name,
                                     plan.channels[plan.inputChannels[i]].name, inputs[i], r.lo, r.hi));
    x[plan.physical(plan.inputChannels[i])] = static_cast<float>(inputs[i]);
  }
  return x;
}

std::vector<int64_t> CompiledUnit::decode(const Eigen::VectorXf& logits) const {
  std::vector<int64_t> out;
  for (size_t o = 0; o < plan.outputChannels.size(); ++o) {
    const float v = logits[static_cast<Eigen::Index>(o)];
    const int64_t k = static_cast<int64_t>(std::llround(v));
    if (static_cast<float>(k) != v)
      throw CompileError(fmt::format("{}: output '{}' read {} (not an integer)", name,
                                     plan.channels[plan.outputChannels[o]].name, v));
    out.push_back(k);
  }
  return out;
}

std::string hfConfigJson(const model::ModelConfig& c) {
  // The engine's own writer of a text config (one spelling of every field for every producer:
  // compiled units, the machine, spliced checkpoints and `qgpu model random`); the compiler's
  // weights are f32.
  return model::configJson(c, model::DType::F32).dump(2) + "\n";
}

namespace {
std::string hexOf(const unsigned char* d, unsigned int n) {
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += fmt::format("{:02x}", d[i]);
  return hex;
}
}  // namespace

std::string sha256OfBytes(std::string_view bytes) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), d, &n, EVP_sha256(), nullptr);
  return hexOf(d, n);
}

std::string sha256OfFile(const std::filesystem::path& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw CompileError(fmt::format("cannot read {}", file.string()));
  // In blocks: a machine checkpoint is gigabytes.
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> block(size_t{1} << 22);
  while (f) {
    f.read(block.data(), static_cast<std::streamsize>(block.size()));
    EVP_DigestUpdate(ctx.get(), block.data(), static_cast<size_t>(f.gcount()));
  }
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx.get(), d, &n);
  return hexOf(d, n);
}

CheckpointFiles writeHfCheckpoint(const CompiledUnit& unit, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << hfConfigJson(unit.config);
  CheckpointFiles files;
  std::vector<model::TensorSlice> slices;
  for (const auto& [name, view] : unit.store->tensors()) {
    const model::ValueCensus census = model::censusOf(view);
    const bool narrow = census.allBf16 && view.dtype == model::DType::F32;
    slices.push_back({name, &view, narrow ? model::DType::BF16 : view.dtype});
    ++(narrow ? files.bf16Tensors : files.f32Tensors);
    files.entries += view.numel();
    files.nonZeros += census.nonZeros;
  }
  files.safetensorsBytes = model::writeSafetensors(dir / "model.safetensors", slices);
  return files;
}

}  // namespace qgpu::compiler
