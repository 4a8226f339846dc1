// The exactness proof over emitted weights (docs/compiler.md §3).
#include "qgpu/compiler/proof.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {
namespace {

constexpr double kExactInt = 16777216.0;  // 2^24: f32 integers (of a grain) are exact below this
constexpr double kSiluOne = 17.0;          // silu(x) == x for x >= 17 (f32, torch and engine)
constexpr double kSiluZero = -89.0;        // silu(x) == -0 for x <= -89 (exp overflows)

// A value known to lie in [lo, hi] and in `grain` * Z + offset (grain 0: the constant lo).
// An inexact fact is a memory read as a mixer returns it: in [zlo, zhi] (about 0) or in
// [lo, hi] (about its nominal value); no lattice.
// A multi-level read (a counter's halving head) is inexact with one interval per level in
// `levels` (lo, hi span them all; zlo, zhi is the tail of every deeper level).
struct Fact {
  double lo = 0, hi = 0;
  double grain = 0;  // 0: constant
  bool bit = false;
  bool inexact = false;
  double zlo = 0, zhi = 0;
  std::vector<std::pair<double, double>> levels;
  Fact() = default;
  Fact(double l, double h, double g, bool b) : lo(l), hi(h), grain(g), bit(b) {}
  bool isConstant() const { return grain == 0 && !inexact; }
  // Every value 0 or 1 (a bit, or a channel that is always 1 on a unit lattice).
  bool isBit() const { return !inexact && lo >= 0 && hi <= 1 && (grain == 1 || (grain > 0 && lo == hi && lo == 1)); }
};

// A unit step [g >= 0] recorded where it was written, g = constant + sum w * x over the raw
// residual channels (each at its version then, with its interval): what a proof of
// exclusivity between two steps reads.
struct StepRecord {
  uint64_t version = 0;  // of the step's own channel
  double constant = 0;
  struct T {
    uint32_t ch;
    uint64_t version;
    double w, lo, hi;
  };
  std::vector<T> terms;
};

// Greatest common divisor of two dyadic rationals (m * 2^e), 0 acting as identity.
double dyadicGcd(double a, double b) {
  a = std::fabs(a);
  b = std::fabs(b);
  if (a == 0) return b;
  if (b == 0) return a;
  int ea, eb;
  std::frexp(a, &ea);
  std::frexp(b, &eb);
  const int shift = 60 - std::max(ea, eb);
  double sa = std::ldexp(a, shift), sb = std::ldexp(b, shift);
  if (sa != std::floor(sa) || sb != std::floor(sb)) return std::ldexp(1.0, -shift);  // a finer lattice: still sound
  auto x = static_cast<unsigned long long>(sa), y = static_cast<unsigned long long>(sb);
  while (y) {
    auto r = x % y;
    x = y;
    y = r;
  }
  return std::ldexp(static_cast<double>(x), -shift);
}

bool isPowerOfTwo(double v) {
  if (v <= 0) return false;
  int e;
  return std::frexp(v, &e) == 0.5;
}

double log2Safe(double v) { return v > 0 ? std::log2(v) : std::numeric_limits<double>::infinity(); }

// A linear form sum_c W[c] * x[c] over facts: its own fact and the finest grain of a
// term (what bounds exactness of an f32 dot product in any order).
struct FormFact {
  Fact f;
  double constant = 0;  // the part from constant channels
  double absSum = 0;    // sum of |term| bounds (0: the form reads nothing)
  double pos = 0, neg = 0;  // every partial sum, in any order, lies in [neg, pos]
  double finest = 0;    // gcd of every term's grain and constant
  int inexactTerms = 0;   // terms on inexact channels (not in f, pos, neg, finest)
  int inexactChannel = -1;
  double inexactWeight = 0;
  int constantTerms = 0;  // terms on non-zero constant channels
};

// What a memory mixer's head stores (mixerMemory): its data's width and magnitude.
struct HeadFacts {
  bool used = false;
  int width = 0;  // data bits W
  double value = 0;
  std::optional<uint32_t> bit;  // the channel of its one data bit (a halving head's marker)
  bool halving = false;         // a counter's halving head: a multi-level read
  double decay = 1;             // a halving head's decay where it counts
};

// A head's query or key rows by kind: V x a bit, V - V x a bit, a constant V.
struct Slots {
  std::map<int, uint32_t> bits, complements;  // slot -> channel
  std::map<int, double> constants;            // slot -> V
};

class Prover {
 public:
  Prover(const CompiledUnit& u, const ProofOptions& o) : u_(u), o_(o), H_(u.config.hiddenSize) {}

  ProofReport run() {
    initialFacts();
    for (int l = 0; l < u_.config.numLayers; ++l) layer(l);
    finalHead();
    ProofReport r = report_;
    r.minMargin = std::numeric_limits<double>::infinity();
    r.minReadMargin = r.minSaturationMargin = std::numeric_limits<double>::infinity();
    for (const LayerProof& lp : r.layers) {
      r.minReadMargin = std::min(r.minReadMargin, lp.readMargin);
      r.minSaturationMargin = std::min(r.minSaturationMargin, lp.saturationMargin);
    }
    for (const LayerProof& lp : r.layers)
      if (lp.minMargin < r.minMargin) {
        r.minMargin = lp.minMargin;
        r.tightestGate = lp.tightestGate;
        r.tightestLayer = lp.layer;
      }
    return r;
  }

 private:
  [[noreturn]] void refuse(int layer, const std::string& what) const {
    throw CompileError(fmt::format("proof refused: unit '{}', layer {}: {}", u_.name, layer, what));
  }

  std::string neuronName(int layer, size_t n) const {
    const auto& ns = u_.plan.mlp.at(static_cast<size_t>(layer - 1)).neurons;  // layer is 1-based
    if (n < ns.size()) return fmt::format("neuron {} (gate '{}', {})", n, ns[n].gateName, neuronRoleName(ns[n].role));
    return fmt::format("neuron {} (not in the plan)", n);
  }

  // The wire a layer's down projection writes into physical channel `ch` (its name for the
  // messages): the virtual channel written there at that layer, else the one cleared there.
  std::string channelName(int layer, int ch) const {
    std::string cleared;
    for (const ChannelInfo& info : u_.plan.channels) {
      if (info.physical != static_cast<uint32_t>(ch)) continue;
      if (info.writtenAt == layer) return fmt::format("channel {} ('{}')", ch, info.name);
      if (info.clearedAt == layer) cleared = fmt::format("channel {} (clearing '{}')", ch, info.name);
    }
    return cleared.empty() ? fmt::format("channel {}", ch) : cleared;
  }

  // The declared range of the wire that layer L writes into physical channel ch, if it is a
  // declared one (ChannelInfo::declared).
  std::optional<Range> declaredRange(int layer, int ch) const {
    if (!declared_) {  // built once: (layer, physical channel) -> range
      declared_.emplace();
      for (const ChannelInfo& info : u_.plan.channels)
        if (info.declared) (*declared_)[{info.writtenAt, info.physical}] = info.range;
    }
    const auto it = declared_->find({layer, static_cast<uint32_t>(ch)});
    return it == declared_->end() ? std::nullopt : std::optional<Range>(it->second);
  }
  mutable std::optional<std::map<std::pair<int, uint32_t>, Range>> declared_;

  const model::TensorView& tensor(const std::string& name) const {
    const model::TensorView* v = u_.store->find(name);
    if (!v) throw CompileError(fmt::format("proof: unit '{}' has no tensor {}", u_.name, name));
    return *v;
  }
  float at(const model::TensorView& v, size_t i) const { return v.at(i); }

  void initialFacts() {
    facts_.assign(static_cast<size_t>(H_), Fact{});
    // The residual at the embedding: anchors as embedded (every row must agree), inputs
    // in their declared ranges (zero in every row when operands are placed by a test, the
    // token's class and value bits under token I/O: integers in range), every other channel
    // exactly zero.
    const model::TensorView& e = tensor("model.embed_tokens.weight");
    std::vector<bool> isInput(static_cast<size_t>(H_), false);
    for (uint32_t v : u_.plan.inputChannels) isInput[u_.plan.channels[v].physical] = true;
    for (int c = 0; c < H_; ++c) {
      const double v = at(e, static_cast<size_t>(c));
      facts_[c] = {v, v, 0, false};
      if (isInput[static_cast<size_t>(c)]) continue;
      for (int r = 1; r < u_.config.vocabSize; ++r)
        if (at(e, static_cast<size_t>(r) * H_ + c) != v)
          refuse(0, fmt::format("token embeddings differ in channel {}, which is no input", c));
    }
    for (uint32_t v : u_.plan.inputChannels) {
      const ChannelInfo& info = u_.plan.channels[v];
      const uint32_t ch = info.physical;
      for (int r = 0; r < u_.config.vocabSize; ++r) {
        const double x = at(e, static_cast<size_t>(r) * H_ + ch);
        if (x != 0 && (x != std::round(x) || x < static_cast<double>(info.range.lo) || x > static_cast<double>(info.range.hi)))
          refuse(0, fmt::format("token {} embeds {} into input '{}' (channel {}), outside its range [{}, {}]", r, x,
                                info.name, ch, info.range.lo, info.range.hi));
      }
      facts_[ch] = {static_cast<double>(info.range.lo), static_cast<double>(info.range.hi), 1.0, info.range.isBit()};
      if (std::max(std::fabs(facts_[ch].lo), std::fabs(facts_[ch].hi)) > kExactInt)
        refuse(0, fmt::format("input '{}' has range [{}, {}]: not every value is an exact f32 integer", info.name,
                              info.range.lo, info.range.hi));
    }
  }

  // RMSNorm with zero-centred weight `name`: the exact scale and the normalised facts.
  std::vector<Fact> norm(int layer, const std::string& name, LayerProof& lp) {
    double anchorSquares = 0, smallestAnchorSquare = std::numeric_limits<double>::infinity(), data = 0;
    for (const Fact& f : facts_) {
      if (f.isConstant() && f.lo != 0) {
        if (!isPowerOfTwo(std::fabs(f.lo))) refuse(layer, fmt::format("{}: a constant channel is not a power of two", name));
        anchorSquares += f.lo * f.lo;
        smallestAnchorSquare = std::min(smallestAnchorSquare, f.lo * f.lo);
      } else if (!f.isConstant()) {
        data += std::max({f.lo * f.lo, f.hi * f.hi, f.zlo * f.zlo, f.zhi * f.zhi});
      }
    }
    if (anchorSquares == 0) refuse(layer, fmt::format("{}: no anchor channel", name));
    // Each partial sum that holds an anchor absorbs every data square (in any order) when
    // the data's total stays below a quarter ulp of the smallest anchor square.
    const double absorbBelow = smallestAnchorSquare * std::ldexp(1.0, -25);
    if (data > absorbBelow)
      refuse(layer, fmt::format("{}: the data's squares (up to {:.3g}) are not absorbed by the anchors ({:.3g})", name,
                                data, smallestAnchorSquare));
    lp.normSlackBits = std::min(lp.normSlackBits, log2Safe(absorbBelow / data));
    const double mean = anchorSquares / H_;
    int e;
    if (std::frexp(mean, &e) != 0.5 || (e - 1) % 2 != 0)
      refuse(layer, fmt::format("{}: the mean square {} is not a power of 4", name, mean));
    const float meanF = static_cast<float>(mean);
    if (meanF + 1e-6f != meanF) refuse(layer, fmt::format("{}: eps is not absorbed by the mean square {}", name, mean));
    const double s = 1.0 / std::sqrt(mean);  // exact: mean is a power of 4
    const model::TensorView& w = tensor(name);
    std::vector<Fact> out(static_cast<size_t>(H_));
    scale_.assign(static_cast<size_t>(H_), 0.0);
    for (int c = 0; c < H_; ++c) {
      const double gain = static_cast<double>(1.0f + at(w, static_cast<size_t>(c)));
      const double k = s * gain;
      scale_[static_cast<size_t>(c)] = k;
      const Fact& f = facts_[c];
      if (k == 0 || (f.isConstant() && f.lo == 0)) continue;  // exact zero
      if (!isPowerOfTwo(std::fabs(k)))
        refuse(layer, fmt::format("{}: channel {} is scaled by {}, not a power of two", name, c, k));
      Fact g = f;
      if (f.inexact) {
        if (k < 0) refuse(layer, fmt::format("{}: inexact channel {} has a negative scale", name, c));
        g.zlo = f.zlo * k;
        g.zhi = f.zhi * k;
        for (auto& [lo, hi] : g.levels) {
          lo *= k;
          hi *= k;
        }
      }
      g.lo = std::min(f.lo * k, f.hi * k);
      g.hi = std::max(f.lo * k, f.hi * k);
      g.grain = f.grain * std::fabs(k);
      g.bit = f.bit && k == 1;
      out[c] = g;
    }
    return out;
  }

  FormFact form(const model::TensorView& m, size_t row, const std::vector<Fact>& x) const {
    FormFact r;
    r.f.grain = 0;
    for (int c = 0; c < H_; ++c) {
      const double wgt = at(m, row * H_ + static_cast<size_t>(c));
      if (wgt == 0) continue;
      const Fact& f = x[c];
      if (f.inexact) {
        ++r.inexactTerms;
        r.inexactChannel = c;
        r.inexactWeight = wgt;
        r.absSum += std::fabs(wgt) * std::max({std::fabs(f.lo), std::fabs(f.hi), std::fabs(f.zlo), std::fabs(f.zhi)});
        continue;
      }
      if (f.isConstant()) {
        if (f.lo == 0) continue;
        ++r.constantTerms;
        r.constant += wgt * f.lo;
        r.absSum += std::fabs(wgt * f.lo);
        (wgt * f.lo > 0 ? r.pos : r.neg) += wgt * f.lo;
        r.finest = dyadicGcd(r.finest, wgt * f.lo);
      } else {
        r.f.lo += std::min(wgt * f.lo, wgt * f.hi);
        r.f.hi += std::max(wgt * f.lo, wgt * f.hi);
        r.f.grain = dyadicGcd(r.f.grain, wgt * f.grain);
        r.absSum += std::max(std::fabs(wgt * f.lo), std::fabs(wgt * f.hi));
        r.pos += std::max(0.0, std::max(wgt * f.lo, wgt * f.hi));
        r.neg += std::min(0.0, std::min(wgt * f.lo, wgt * f.hi));
        r.finest = dyadicGcd(r.finest, wgt * f.grain);
      }
    }
    r.f.lo += r.constant;
    r.f.hi += r.constant;
    if (r.f.grain == 0) r.f.hi = r.f.lo;
    return r;
  }

  void checkSum(int layer, const std::string& what, const FormFact& f, LayerProof& lp) const {
    if (f.absSum == 0 || f.finest == 0) return;
    const double units = std::max(f.pos, -f.neg) / f.finest;
    if (units > kExactInt)
      refuse(layer, fmt::format("{}: its sum can reach {:.4g} units of its grain {:.3g} (more than 2^24: inexact in f32)",
                                what, units, f.finest));
    lp.sumHeadroomBits = std::min(lp.sumHeadroomBits, log2Safe(kExactInt / units));
  }

  // The margin of a SiLU argument g in {constant + grain*k} within [lo, hi]: every such
  // value must avoid (-89, 0) and (0, 17); the margin is the distance of the nearest one.
  double siluMargin(int layer, const std::string& who, const FormFact& g) const {
    const double K = g.constant, q = g.f.grain, lo = g.f.lo, hi = g.f.hi;
    // Smallest progression element >= t (t itself if it is one).
    auto firstAtLeast = [&](double t) { return q == 0 ? K : K + q * std::ceil((t - K) / q); };
    auto lastAtMost = [&](double t) { return q == 0 ? K : K + q * std::floor((t - K) / q); };
    auto badIn = [&](double A, double B) {  // an element in the open (A, B) and in [lo, hi]?
      double x = firstAtLeast(std::max(lo, A));
      if (x == A) x = q == 0 ? A : x + q;
      return x > A && x < B && x >= lo && x <= hi ? std::optional<double>(x) : std::nullopt;
    };
    if (auto v = badIn(0.0, kSiluOne))
      refuse(layer, fmt::format("{}: its pre-activation can be {}, below 17 where silu(x) = x", who, *v));
    if (auto v = badIn(kSiluZero, 0.0))
      refuse(layer, fmt::format("{}: its pre-activation can be {}, inside (-89, 0) where silu is not exactly 0", who, *v));
    double margin = std::numeric_limits<double>::infinity();
    double pos = firstAtLeast(std::max(lo, 0.0));
    if (pos == 0) pos = q == 0 ? -1 : pos + q;
    if (pos > 0 && pos <= hi && pos >= lo) margin = std::min(margin, pos - kSiluOne);
    double neg = lastAtMost(std::min(hi, 0.0));
    if (neg == 0) neg = q == 0 ? 1 : neg - q;
    if (neg < 0 && neg >= lo && neg <= hi) margin = std::min(margin, kSiluZero - neg);
    if (margin < o_.minMargin)
      refuse(layer, fmt::format("{}: margin {} below the required {}", who, margin, o_.minMargin));
    return margin;
  }

  void layer(int l) {
    const int L = l + 1;
    LayerProof lp;
    lp.layer = L;
    lp.minMargin = lp.readMargin = lp.saturationMargin = std::numeric_limits<double>::infinity();
    lp.normSlackBits = lp.sumHeadroomBits = std::numeric_limits<double>::infinity();
    const std::string p = fmt::format("model.layers.{}.", l);
    mixer(L, p, lp);
    const std::vector<Fact> x = norm(L, p + "post_attention_layernorm.weight", lp);
    const model::TensorView& gate = tensor(p + "mlp.gate_proj.weight");
    const model::TensorView& up = tensor(p + "mlp.up_proj.weight");
    const model::TensorView& down = tensor(p + "mlp.down_proj.weight");
    const size_t I = static_cast<size_t>(u_.config.intermediateSize);
    std::vector<FormFact> g(I), uu(I);
    std::vector<Fact> prod(I);
    std::vector<bool> inexactProduct(I, false);
    for (size_t n = 0; n < I; ++n) {
      g[n] = form(gate, n, x);
      uu[n] = form(up, n, x);
      if (g[n].absSum == 0 && g[n].constant == 0) continue;  // silu(0) = 0: the neuron is off
      ++lp.neurons;
      if (uu[n].inexactTerms) {
        // Only a clear may carry an inexact read (checked with its down row, isClear).
        if (g[n].inexactTerms || g[n].f.grain != 0 || uu[n].inexactTerms != 1 || uu[n].f.grain != 0)
          refuse(L, fmt::format("{}: its up projection reads an inexact memory read (only a clear may)", neuronName(L, n)));
        inexactProduct[n] = true;
        continue;
      }
      if (g[n].inexactTerms) requantise(L, n, g[n], uu[n], x, lp);
      checkSum(L, neuronName(L, n) + " gate projection", g[n], lp);
      checkSum(L, neuronName(L, n) + " up projection", uu[n], lp);
      const double m = siluMargin(L, neuronName(L, n), g[n]);
      if (m < lp.minMargin) {
        lp.minMargin = m;
        lp.tightestGate = neuronName(L, n);
      }
      // silu(g) * u = g * u where g >= 17, else +-0: the product's bounds and grain.
      const double gmax = std::max(std::fabs(g[n].f.lo), std::fabs(g[n].f.hi));
      const double umax = std::max(std::fabs(uu[n].f.lo), std::fabs(uu[n].f.hi));
      const double gg = dyadicGcd(g[n].constant, g[n].f.grain), ug = dyadicGcd(uu[n].constant, uu[n].f.grain);
      Fact& pf = prod[n];
      pf.lo = -gmax * umax;
      pf.hi = gmax * umax;
      if (g[n].f.lo >= kSiluOne) {  // always in silu's identity regime: the interval product
        const double c[4] = {g[n].f.lo * uu[n].f.lo, g[n].f.lo * uu[n].f.hi, g[n].f.hi * uu[n].f.lo,
                             g[n].f.hi * uu[n].f.hi};
        pf.lo = *std::min_element(c, c + 4);
        pf.hi = *std::max_element(c, c + 4);
      }
      pf.grain = gg * ug;
      if (pf.grain > 0 && gmax * umax / pf.grain > kExactInt)
        refuse(L, fmt::format("{}: silu(g) * u can reach {:.4g} (more than 2^24 of its grain: inexact)", neuronName(L, n),
                              gmax * umax));
    }
    // Down projection: each channel's increment, then the residual add. The gates read the
    // layer's input: a step's record names its channels' versions before this layer's writes
    // (a channel cleared here, after its last reader, is a newer version for later readers).
    std::vector<Fact> next = facts_;
    const std::vector<uint64_t> inputVersion = version_;
    for (int c = 0; c < H_; ++c) {
      FormFact d;
      std::vector<size_t> writers, inexactWriters;
      for (size_t n = 0; n < I; ++n) {
        const double wd = at(down, static_cast<size_t>(c) * I + n);
        if (wd == 0) continue;
        if (inexactProduct[n]) {
          inexactWriters.push_back(n);
          continue;
        }
        if (prod[n].grain == 0) continue;
        writers.push_back(n);
        d.f.lo += std::min(wd * prod[n].lo, wd * prod[n].hi);
        d.f.hi += std::max(wd * prod[n].lo, wd * prod[n].hi);
        d.f.grain = dyadicGcd(d.f.grain, wd * prod[n].grain);
        d.absSum += std::fabs(wd) * std::max(std::fabs(prod[n].lo), std::fabs(prod[n].hi));
        d.pos += std::max(0.0, std::max(wd * prod[n].lo, wd * prod[n].hi));
        d.neg += std::min(0.0, std::min(wd * prod[n].lo, wd * prod[n].hi));
        d.finest = dyadicGcd(d.finest, wd * prod[n].grain);
      }
      if (!inexactWriters.empty()) {
        // A multi-level read's deep levels are tiny: the norm's x * 2^-k can be subnormal (no
        // longer x's bits), and the clear would leave a residue where a later write expects 0.
        if (!facts_[c].levels.empty())
          refuse(L, fmt::format("down projection into channel {}: clears a counter's multi-level read, whose deep "
                                "levels underflow in the norm (the clear would not leave an exact 0)",
                                c));
        if (!writers.empty() || !facts_[c].inexact || !isClear(l, inexactWriters, c, g, uu, down))
          refuse(L, fmt::format("down projection into channel {}: an inexact memory read is written anywhere but "
                                "into its own channel's clear",
                                c));
        next[c] = Fact{};  // x - x = +0
        ++version_[static_cast<size_t>(c)];
        continue;
      }
      if (writers.empty()) continue;
      checkSum(L, fmt::format("down projection into {}", channelName(L, c)), d, lp);
      const Fact& old = facts_[c];
      if (old.isConstant() && old.lo != 0) refuse(L, fmt::format("down projection writes anchor channel {}", c));
      if (old.inexact) refuse(L, fmt::format("down projection adds to channel {}, an inexact memory read", c));
      Fact nf;
      nf.lo = old.lo + d.f.lo;
      nf.hi = old.hi + d.f.hi;
      nf.grain = dyadicGcd(old.grain, d.f.grain);
      if (nf.grain > 0 && std::max(std::fabs(nf.lo), std::fabs(nf.hi)) / nf.grain > kExactInt)
        refuse(L, fmt::format("residual channel {} can reach {:.4g}: inexact in f32", c, nf.hi));
      std::optional<size_t> unitStep;
      if (old.isConstant() && old.lo == 0)
        if (std::optional<Fact> chain = stepChain(l, writers, c, g, uu, down)) {
          nf = *chain;
          if (writers.size() == 2 && nf.isBit())
            unitStep = g[writers[0]].constant < g[writers[1]].constant ? writers[0] : writers[1];
        }
      if (!old.isConstant() && isClear(l, writers, c, g, uu, down)) nf = {0, 0, 0, false};  // x - x = +0
      // A declared channel (an exclusiveOr, an exclusiveSum): its write is exact whatever its
      // writers sum to (checked above); its value lies in the declared range, a property of
      // the machine that the evaluator checks at every position — the fact its readers use.
      if (const std::optional<Range> r = declaredRange(L, c); r && old.isConstant() && old.lo == 0 && nf.grain > 0) {
        const double lo = std::max(nf.lo, static_cast<double>(r->lo)), hi = std::min(nf.hi, static_cast<double>(r->hi));
        if (lo > hi) refuse(L, fmt::format("{}: its writers cannot reach its declared range [{}, {}]", channelName(L, c), r->lo, r->hi));
        // The IR's values are integers, and the write computes them exactly.
        nf = Fact(std::ceil(lo), std::floor(hi), 1.0, std::ceil(lo) >= 0 && std::floor(hi) <= 1);
      }
      next[c] = nf;
      ++version_[static_cast<size_t>(c)];
      if (unitStep) recordStep(l, c, *unitStep, g[*unitStep], inputVersion);
    }
    facts_ = std::move(next);
    report_.layers.push_back(lp);
  }

  // A neuron whose gate reads an inexact memory read r: g = C + w r with one constant term
  // C in [2^e, 2^(e+1)) and w a power of two, and a constant up row. f32 evaluates that dot
  // product with one rounding in any order (every other term is an exact 0), to the grid of
  // spacing 2^(e-23): each of r's two intervals must lie inside one grid cell, and g becomes
  // the exact two-point lattice of those cells' centres.
  void requantise(int L, size_t n, FormFact& g, const FormFact& u, const std::vector<Fact>& x, LayerProof& lp) {
    const std::string who = neuronName(L, n);
    if (g.inexactTerms != 1 || g.f.grain != 0 || g.constantTerms != 1)
      refuse(L, fmt::format("{}: reads an inexact memory read but is not a re-quantiser (one read and one constant "
                            "term)",
                            who));
    if (u.inexactTerms || u.f.grain != 0 || u.constant == 0)
      refuse(L, fmt::format("{}: a re-quantiser's up projection must be a non-zero constant", who));
    const double w = g.inexactWeight, C = g.constant;
    if (!x[static_cast<size_t>(g.inexactChannel)].levels.empty())
      refuse(L, fmt::format("{}: reads a counter's multi-level read (only its threshold heads may)", who));
    if (!isPowerOfTwo(w)) refuse(L, fmt::format("{}: the read's weight {} is not a power of two", who, w));
    int e;
    std::frexp(C, &e);  // C in [2^(e-1), 2^e)
    if (C <= 0) refuse(L, fmt::format("{}: a re-quantiser's offset must be positive", who));
    const double spacing = std::ldexp(1.0, e - 1 - 23), binLo = std::ldexp(1.0, e - 1), binHi = std::ldexp(1.0, e);
    const Fact& r = x[static_cast<size_t>(g.inexactChannel)];
    auto cell = [&](double a, double b, const char* what) {
      if (C + a < binLo || C + b >= binHi) refuse(L, fmt::format("{}: the {} read leaves the offset's binade", who, what));
      const double A = a / spacing, B = b / spacing, m = std::round((A + B) / 2);
      const double margin = std::min(A - (m - 0.5), (m + 0.5) - B);
      if (margin < o_.minReadMargin)
        refuse(L, fmt::format("{}: its {} read [{:.6g}, {:.6g}] comes within {:.3g} grid units of a rounding boundary "
                              "(required {})",
                              who, what, a, b, margin, o_.minReadMargin));
      if (margin < lp.readMargin) lp.readMargin = margin;
      return C + m * spacing;
    };
    const double v0 = cell(w * r.zlo, w * r.zhi, "zero"), v1 = cell(w * r.lo, w * r.hi, "non-zero");
    FormFact out;
    out.f.lo = std::min(v0, v1);
    out.f.hi = std::max(v0, v1);
    out.f.grain = out.f.hi - out.f.lo;
    out.constant = out.f.lo;
    out.absSum = out.pos = out.f.hi;
    out.finest = spacing;
    g = out;
  }

  void recordStep(int l, int c, size_t n, const FormFact& g, const std::vector<uint64_t>& inputVersion) {
    const model::TensorView& gate = tensor(fmt::format("model.layers.{}.mlp.gate_proj.weight", l));
    StepRecord r;
    r.version = version_[static_cast<size_t>(c)];
    r.constant = g.constant;
    for (int ch = 0; ch < H_; ++ch) {
      const double wgt = at(gate, n * H_ + static_cast<size_t>(ch));
      if (wgt == 0 || facts_[ch].isConstant()) continue;
      const double wr = wgt * scale_[static_cast<size_t>(ch)];  // on the raw channel
      r.terms.push_back({static_cast<uint32_t>(ch), inputVersion[static_cast<size_t>(ch)], wr, facts_[ch].lo, facts_[ch].hi});
    }
    records_[static_cast<uint32_t>(c)] = std::move(r);
  }

  // Channels a and b hold unit steps [g_a >= 0], [g_b >= 0] (still as recorded) with
  // g_a + g_b < 0 everywhere: never both 1.
  bool exclusive(uint32_t a, uint32_t b) const {
    auto ra = records_.find(a), rb = records_.find(b);
    if (ra == records_.end() || rb == records_.end()) return false;
    if (ra->second.version != version_[a] || rb->second.version != version_[b]) return false;
    std::map<std::pair<uint32_t, uint64_t>, std::tuple<double, double, double>> terms;  // (w, lo, hi)
    for (const StepRecord* r : {&ra->second, &rb->second})
      for (const StepRecord::T& t : r->terms) {
        auto& [w, lo, hi] = terms[{t.ch, t.version}];
        w += t.w;
        lo = t.lo;
        hi = t.hi;
      }
    double max = ra->second.constant + rb->second.constant;
    for (const auto& [key, v] : terms) max += std::max(std::get<0>(v) * std::get<1>(v), std::get<0>(v) * std::get<2>(v));
    return max < 0;
  }

  bool allExclusive(const std::vector<uint32_t>& chs) {
    std::vector<std::pair<uint32_t, uint64_t>> key;
    for (uint32_t c : chs) key.push_back({c, version_[c]});
    if (chs.size() <= 1 || provenExclusive_.count(key)) return true;
    for (size_t i = 0; i < chs.size(); ++i)
      for (size_t j = i + 1; j < chs.size(); ++j)
        if (!exclusive(chs[i], chs[j])) return false;
    provenExclusive_.insert(key);
    return true;
  }

  // Channel c receives a chain of steps on one form X: pairs (silu(g1) - silu(g2)) * k / G
  // with g1 = g2 + G, u = 1, g2 in G*Z, G >= 89 a power of two and k an integer — that is
  // k * [g2 >= 0] — whose gate rows agree outside the constant channels. g2 = G (X + t):
  // [X + t >= 0] is nested in t, so the sum is a prefix sum of the k in decreasing t.
  // Returns the channel's fact, or nothing when the writers are not such a chain.
  std::optional<Fact> stepChain(int l, const std::vector<size_t>& writers, int c, const std::vector<FormFact>& g,
                                const std::vector<FormFact>& u, const model::TensorView& down) const {
    if (writers.empty() || writers.size() % 2 != 0) return std::nullopt;
    const size_t I = static_cast<size_t>(u_.config.intermediateSize);
    auto wd = [&](size_t n) { return static_cast<double>(at(down, static_cast<size_t>(c) * I + n)); };
    for (size_t n : writers)
      if (!(u[n].f.grain == 0 && u[n].constant == 1)) return std::nullopt;
    const model::TensorView& gate = tensor(fmt::format("model.layers.{}.mlp.gate_proj.weight", l));
    for (size_t n : writers)
      for (int ch = 0; ch < H_; ++ch) {
        if (facts_[ch].isConstant()) continue;
        if (at(gate, n * H_ + static_cast<size_t>(ch)) != at(gate, writers[0] * H_ + static_cast<size_t>(ch)))
          return std::nullopt;
      }
    // Pair them: the lowest remaining constant is a low neuron; its partner has constant
    // g + G and the opposite down weight (identical candidates are interchangeable).
    std::vector<size_t> rest = writers;
    std::sort(rest.begin(), rest.end(), [&](size_t a, size_t b) { return g[a].constant < g[b].constant; });
    std::vector<std::pair<double, double>> steps;  // (t, k)
    double G = 0;
    while (!rest.empty()) {
      const size_t lo = rest.front();
      rest.erase(rest.begin());
      auto it = std::find_if(rest.begin(), rest.end(), [&](size_t n) {
        return wd(n) == -wd(lo) && g[n].f.grain == g[lo].f.grain && (G == 0 || g[n].constant - g[lo].constant == G);
      });
      if (it == rest.end()) return std::nullopt;
      const size_t hi = *it;
      rest.erase(it);
      const double gain = g[hi].constant - g[lo].constant;
      if (gain < -kSiluZero || !isPowerOfTwo(gain) || (G != 0 && gain != G)) return std::nullopt;
      G = gain;
      if (std::fmod(g[lo].constant, G) != 0 || std::fmod(g[lo].f.grain, G) != 0) return std::nullopt;
      const double k = wd(hi) * G;
      if (k == 0 || k != std::round(k)) return std::nullopt;
      steps.push_back({g[lo].constant / G, k});
    }
    std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Fact f{0, 0, 0, false};
    double prefix = 0;
    for (const auto& [t, k] : steps) {
      prefix += k;
      f.lo = std::min(f.lo, prefix);
      f.hi = std::max(f.hi, prefix);
      f.grain = dyadicGcd(f.grain, k);
    }
    f.bit = f.lo == 0 && f.hi == 1 && f.grain == 1;
    return f;
  }

  // Channel c's only writer computes exactly -x_c: a constant gate g >= 17 (silu(g) = g),
  // an up row that reads channel c alone, and g * up weight * norm scale * down weight =
  // -1 with every factor a power of two (each product exact). Then x + (-x) = +0.
  bool isClear(int l, const std::vector<size_t>& writers, int c, const std::vector<FormFact>& g,
               const std::vector<FormFact>& u, const model::TensorView& down) const {
    if (writers.size() != 1) return false;
    const size_t n = writers[0], I = static_cast<size_t>(u_.config.intermediateSize);
    if (g[n].f.grain != 0 || g[n].constant < kSiluOne || !isPowerOfTwo(g[n].constant)) return false;
    if (u[n].constant != 0) return false;
    const model::TensorView& up = tensor(fmt::format("model.layers.{}.mlp.up_proj.weight", l));
    for (int ch = 0; ch < H_; ++ch)
      if (ch != c && at(up, n * H_ + static_cast<size_t>(ch)) != 0 && !(facts_[ch].isConstant() && facts_[ch].lo == 0))
        return false;
    const double wu = at(up, n * H_ + static_cast<size_t>(c)), wd = at(down, static_cast<size_t>(c) * I + n);
    const double k = scale_[static_cast<size_t>(c)];
    if (!isPowerOfTwo(std::fabs(wu)) || !isPowerOfTwo(std::fabs(wd)) || !isPowerOfTwo(k)) return false;
    return g[n].constant * wu * k * wd == -1.0;
  }

  void mixer(int L, const std::string& p, LayerProof& lp) {
    const model::TensorView& in = tensor(p + "input_layernorm.weight");
    bool zeroInput = true;
    for (int c = 0; c < H_; ++c) zeroInput = zeroInput && (1.0f + at(in, static_cast<size_t>(c))) == 0.0f;
    const bool deltaNet = u_.config.layerTypes.at(static_cast<size_t>(L - 1)) == model::LayerType::LinearAttention;
    bool zeroOut = deltaNet;
    if (deltaNet) {
      const model::TensorView& out = tensor(p + "linear_attn.out_proj.weight");
      for (size_t i = 0; i < out.numel() && zeroOut; ++i) zeroOut = at(out, i) == 0.0f;
    }
    if (deltaNet && !zeroInput && !zeroOut) return mixerMemory(L, p, lp);
    if (!deltaNet && !zeroInput) {
      const model::TensorView& o = tensor(p + "self_attn.o_proj.weight");
      bool silentOut = true;
      for (size_t i = 0; i < o.numel() && silentOut; ++i) silentOut = at(o, i) == 0.0f;
      if (!silentOut) return mixerLookup(L, p, lp);
    }
    mixerSilent(L, p);
  }

  // Dual-rail pair of rows (ra = V x bit, rb = V - V x bit), or a constant pad (ra = 0,
  // rb = V: a bit that is always 0); nullopt when both rows are zero; refuses anything else.
  std::optional<double> railPair(int L, const model::TensorView& m, size_t ra, size_t rb, const std::vector<Fact>& x,
                                 const std::string& what) const {
    auto bit = bitRow(L, m, ra, x, what);
    if (!bit) {
      const FormFact comp = form(m, rb, x);
      if (comp.absSum == 0 && comp.constant == 0) return std::nullopt;
      if (comp.f.grain != 0 || comp.inexactTerms || comp.constantTerms != 1 || comp.constant <= 0)
        refuse(L, fmt::format("{}: neither a dual-rail bit nor a constant pad", what));
      return comp.constant;
    }
    checkComplement(L, m, rb, x, *bit, what);
    return bit->second;
  }

  // An attention layer whose heads are a lookup (docs/compiler.md §3, "lookups"). Proves, for
  // the key-value head and each query head that o_proj reads: query and key are dual rail over
  // the same pairs of the unrotated dims (RoPE leaves them alone), so each has n entries of one
  // magnitude and its RMSNorm scale is exact (mean square a power of 4 >= 64); the normalised
  // entries and the 1/sqrt(hd) scaling are powers of two, so every score is an exact integer,
  // and one mismatched bit lowers a score by at least 104: the softmax is exactly one-hot
  // where exactly one position holds the query's key (the precondition the IR checks); the
  // output gate is exactly 1; o_proj copies each value dim of a head into its own exact
  // channel. Each written channel takes the value's fact. A head o_proj does not read adds 0.
  void mixerLookup(int L, const std::string& p, LayerProof& lp) {
    const model::ModelConfig& cfg = u_.config;
    const std::vector<Fact> x = norm(L, p + "input_layernorm.weight", lp);
    if (cfg.numKvHeads != 1) refuse(L, "a lookup layer must have one key-value head");
    const model::TensorView& qp = tensor(p + "self_attn.q_proj.weight");
    const model::TensorView& kp = tensor(p + "self_attn.k_proj.weight");
    const model::TensorView& vp = tensor(p + "self_attn.v_proj.weight");
    const model::TensorView& op = tensor(p + "self_attn.o_proj.weight");
    const model::TensorView& qn = tensor(p + "self_attn.q_norm.weight");
    const model::TensorView& kn = tensor(p + "self_attn.k_norm.weight");
    for (const model::TensorView* t : {&qp, &kp, &vp, &op, &qn, &kn})
      for (size_t i = 0; i < t->numel(); ++i)
        if (!std::isfinite(at(*t, i))) refuse(L, "a lookup tensor is not finite");
    const int hd = cfg.headDim, rd = cfg.rotaryDim(), nh = cfg.numHeads;
    // Which query heads o_proj reads.
    std::vector<bool> headRead(static_cast<size_t>(nh), false);
    for (int c = 0; c < H_; ++c)
      for (int j = 0; j < nh * hd; ++j)
        if (at(op, static_cast<size_t>(c) * static_cast<size_t>(nh * hd) + static_cast<size_t>(j)) != 0)
          headRead[static_cast<size_t>(j / hd)] = true;
    // Query (rows from `row0`) and key: dual-rail pairs in dims rd.., nothing in the rotated
    // dims; returns the normalised entry, and which dims hold pairs.
    if ((hd - rd) % 2) refuse(L, "an odd number of unrotated dims");
    auto railScale = [&](const model::TensorView& m, int row0, const model::TensorView& gain, const std::string& what,
                         std::vector<bool>& used) {
      for (int d = 0; d < rd; ++d)
        if (!rowZero(m, static_cast<size_t>(row0 + d))) refuse(L, fmt::format("lookup {} dim {} is rotated by RoPE", what, d));
      double V = 0, G = 0;
      int n = 0;
      used.assign(static_cast<size_t>(hd), false);
      for (int d = rd; d < hd; d += 2) {
        auto v = railPair(L, m, static_cast<size_t>(row0 + d), static_cast<size_t>(row0 + d + 1), x,
                          fmt::format("lookup {} dims {}, {}", what, d, d + 1));
        if (!v) continue;
        if (V != 0 && *v != V) refuse(L, fmt::format("lookup {}: rails of different magnitudes", what));
        V = *v;
        ++n;
        used[static_cast<size_t>(d)] = used[static_cast<size_t>(d + 1)] = true;
        for (int e : {d, d + 1}) {
          const double g = 1.0 + static_cast<double>(at(gain, static_cast<size_t>(e)));
          if (G != 0 && g != G) refuse(L, fmt::format("lookup {} norm: gains differ", what));
          G = g;
        }
      }
      if (n == 0) refuse(L, fmt::format("lookup {}: no dual-rail pair", what));
      const double mean = n * V * V / hd;
      int e2;
      if (std::frexp(mean, &e2) != 0.5 || (e2 - 1) % 2 != 0 || mean < 64)
        refuse(L, fmt::format("lookup {}: the mean square {} is not a power of 4 >= 64", what, mean));
      const double entry = V / std::sqrt(mean) * G;
      if (!isPowerOfTwo(entry)) refuse(L, fmt::format("lookup {}: normalised entries {} are not a power of two", what, entry));
      return entry;
    };
    std::vector<bool> keyDims, queryDims;
    const double keyScale = railScale(kp, 0, kn, "key", keyDims);
    const double scaling = 1.0 / std::sqrt(static_cast<double>(hd));
    if (!isPowerOfTwo(scaling)) refuse(L, fmt::format("lookup: 1/sqrt({}) is not a power of two (scores inexact)", hd));
    for (int h = 0; h < nh; ++h) {
      if (!headRead[static_cast<size_t>(h)]) continue;
      const std::string what = nh == 1 ? "query" : fmt::format("query (head {})", h);
      const double perBit = railScale(qp, 2 * h * hd, qn, what, queryDims) * keyScale * scaling;
      if (queryDims != keyDims) refuse(L, fmt::format("lookup {} and key use different dims", what));
      if (perBit < 104)
        refuse(L, fmt::format("lookup {}: a mismatched bit lowers the score by {}, less than 104 (softmax not one-hot)",
                              what, perBit));
      const double margin = perBit - 104;  // past exp's exact 0 at -104
      if (margin < lp.minMargin) {
        lp.minMargin = margin;
        lp.tightestGate = "lookup score gap";
      }
    }
    // Output gate and o_proj: each channel o_proj writes reads one value dim of one head.
    for (int c = 0; c < H_; ++c) {
      std::vector<int> dims;
      for (int j = 0; j < nh * hd; ++j)
        if (at(op, static_cast<size_t>(c) * static_cast<size_t>(nh * hd) + static_cast<size_t>(j)) != 0) dims.push_back(j);
      if (dims.empty()) continue;
      if (dims.size() != 1) refuse(L, fmt::format("o_proj into channel {}: more than one value dim", c));
      const int h = dims[0] / hd, i = dims[0] % hd;
      const double wo = at(op, static_cast<size_t>(c) * static_cast<size_t>(nh * hd) + static_cast<size_t>(dims[0]));
      const FormFact gate = form(qp, static_cast<size_t>(2 * h * hd + hd + i), x);
      if (gate.f.grain != 0 || gate.inexactTerms || gate.constant < kSiluOne)
        refuse(L, fmt::format("lookup output gate dim {}: not a constant >= 17 (sigmoid exactly 1)", i));
      const FormFact v = form(vp, static_cast<size_t>(i), x);
      if (v.inexactTerms) refuse(L, fmt::format("lookup value dim {} reads an inexact channel", i));
      checkSum(L, fmt::format("lookup value dim {}", i), v, lp);
      if (!(facts_[c].isConstant() && facts_[c].lo == 0)) refuse(L, fmt::format("o_proj into channel {}: not an exact 0", c));
      Fact nf;
      nf.lo = std::min(wo * v.f.lo, wo * v.f.hi);
      nf.hi = std::max(wo * v.f.lo, wo * v.f.hi);
      nf.grain = std::fabs(wo) * (v.f.grain == 0 ? std::fabs(v.constant) : dyadicGcd(v.f.grain, v.constant));
      if (nf.grain > 0 && std::max(std::fabs(nf.lo), std::fabs(nf.hi)) / nf.grain > kExactInt)
        refuse(L, fmt::format("o_proj into channel {}: inexact", c));
      facts_[c] = nf;
      ++version_[static_cast<size_t>(c)];
    }
    ++lp.lookups;
  }

  bool rowZero(const model::TensorView& m, size_t row) const {
    for (int c = 0; c < H_; ++c)
      if (at(m, row * H_ + static_cast<size_t>(c)) != 0) return false;
    return true;
  }

  // Row rb is the complement rail of `bit` (channel, weight V): V from the ONE channel minus
  // V times the bit, nothing else.
  void checkComplement(int L, const model::TensorView& m, size_t rb, const std::vector<Fact>& x,
                       const std::pair<uint32_t, double>& bit, const std::string& what) const {
    const double V = bit.second;
    const auto comp = complementRow(m, rb, x);
    if (!comp || *comp != bit) refuse(L, fmt::format("{}: the complement rail is not {} - {} x bit", what, V, V));
  }

  // The single channel a row reads, with its weight, when the row is w * (a bit channel)
  // and nothing else (no constant); nullopt for an all-zero row; refuses anything else.
  std::optional<std::pair<uint32_t, double>> bitRow(int L, const model::TensorView& m, size_t row,
                                                    const std::vector<Fact>& x, const std::string& what) const {
    std::optional<std::pair<uint32_t, double>> r;
    for (int c = 0; c < H_; ++c) {
      const double wgt = at(m, row * H_ + static_cast<size_t>(c));
      if (wgt == 0 || (x[c].isConstant() && x[c].lo == 0)) continue;
      if (r || !x[c].isBit()) refuse(L, fmt::format("{}: not a weight times one bit channel", what));
      r = std::pair<uint32_t, double>{static_cast<uint32_t>(c), wgt};
    }
    return r;
  }

  // The constant of a row that reads constant channels only (ONE: a counter head's key,
  // query or constant data bit); nullopt for any other row.
  std::optional<double> constantRow(const model::TensorView& m, size_t row, const std::vector<Fact>& x) const {
    const FormFact f = form(m, row, x);
    if (f.absSum == 0 || f.f.grain != 0 || f.inexactTerms || f.constantTerms != 1) return std::nullopt;
    return f.constant;
  }

  static bool canBeZero(const FormFact& beta) {
    const double K0 = beta.constant, q0 = beta.f.grain;
    return beta.f.lo <= 0 && beta.f.hi >= 0 && (q0 == 0 ? K0 == 0 : std::fmod(K0, q0) == 0);
  }

  // Row `row` as V - V x (one bit channel), V from constant channels: the channel and V.
  std::optional<std::pair<uint32_t, double>> complementRow(const model::TensorView& m, size_t row,
                                                           const std::vector<Fact>& x) const {
    const FormFact f = form(m, row, x);
    if (f.inexactTerms || f.constantTerms != 1 || f.constant <= 0) return std::nullopt;
    std::optional<std::pair<uint32_t, double>> r;
    for (int c = 0; c < H_; ++c) {
      const double wgt = at(m, row * H_ + static_cast<size_t>(c));
      if (wgt == 0 || x[c].isConstant()) continue;
      if (r || !x[c].isBit() || wgt != -f.constant) return std::nullopt;
      r = std::pair<uint32_t, double>{static_cast<uint32_t>(c), f.constant};
    }
    return r;
  }

  // A counter's halving head (docs/compiler.md §3, "counters"). Its key is its one data bit
  // m dual rail (slot s0 = V x m, slot s1 = V - V x m: exactly one of them), its query reads
  // both slots with equal constants, beta is exactly 1 everywhere, and its decay is exactly 1
  // (argument <= -104) or one fixed d = exp(-exp(A_log) x0) (argument x0 >= 20, where
  // softplus is the identity), never where m = 1. So every position writes: a marker sets
  // slot s0 to (V, 0), any other position sets slot s1 to (0, V) after the decay; slot s0
  // holds (V d^k, 0) after k decays since the last marker (0 before any marker), slot s1
  // (0, V) (or 0 until a position without a marker). Returns d.
  double halvingHead(int L, const std::string& head, const HeadFacts& f, const Slots& q, const Slots& k,
                     const FormFact& beta, const model::TensorView& a, size_t h, double dtBias, double aLog,
                     const std::vector<Fact>& x) const {
    const FormFact decay = form(a, h, x);
    if (f.width != 1 || !f.bit)
      refuse(L, fmt::format("{}: the decay is not exactly 1 (a = 0, dt_bias <= -104, A_log <= 80 needed), and the head "
                            "is no counter's halving head (that stores exactly one dual-rail bit, its marker)",
                            head));
    const uint32_t m = *f.bit;
    if (k.bits.size() != 1 || k.complements.size() != 1 || !k.constants.empty() || k.bits.begin()->second != m ||
        k.complements.begin()->second != m)
      refuse(L, fmt::format("{}: a decaying head's key must be its marker bit dual rail (two slots)", head));
    const int s0 = k.bits.begin()->first, s1 = k.complements.begin()->first;
    if (q.constants.size() != 2 || !q.bits.empty() || !q.complements.empty() || !q.constants.count(s0) ||
        !q.constants.count(s1) || q.constants.at(s0) != q.constants.at(s1))
      refuse(L, fmt::format("{}: a decaying head's query must read both key slots with one constant", head));
    if (beta.f.grain != 0 || beta.inexactTerms || beta.constant < kSiluOne + o_.minMargin)
      refuse(L, fmt::format("{}: a decaying head's beta must be a constant >= 17 (it writes at every position)", head));
    if (decay.inexactTerms) refuse(L, fmt::format("{}: its decay reads an inexact channel", head));
    if (aLog > 80) refuse(L, fmt::format("{}: A_log {} above 80 (exp may overflow)", head, aLog));
    // Every element of the argument's lattice: <= -104 (decay 1) or the one value x0.
    const double K0 = decay.constant + dtBias, q0 = decay.f.grain;
    std::optional<double> x0;
    const double lo = decay.f.lo + dtBias, hi = decay.f.hi + dtBias;
    if (q0 == 0) {
      if (lo > -104) x0 = lo;
    } else {
      if ((hi - lo) / q0 > 4096) refuse(L, fmt::format("{}: its decay argument takes too many values to check", head));
      for (double e = K0 + q0 * std::ceil((lo - K0) / q0); e <= hi; e += q0) {
        if (e <= -104.0 - o_.minMargin) continue;
        if (x0 && *x0 != e) refuse(L, fmt::format("{}: its decay takes two values below 1 ({} and {})", head, *x0, e));
        x0 = e;
      }
    }
    if (!x0) refuse(L, fmt::format("{}: its decay is never below 1", head));
    if (*x0 < 20.0 + o_.minMargin)
      refuse(L, fmt::format("{}: its decay argument {} is where softplus is not the identity (below 20)", head, *x0));
    std::vector<Fact> fixed = x;  // the marker set: the decay must be exactly 1
    fixed[m] = Fact{1, 1, 0, false};
    const FormFact onMarker = form(a, h, fixed);
    if (onMarker.f.hi + dtBias > -104.0 - o_.minMargin)
      refuse(L, fmt::format("{}: its decay can be below 1 where the marker bit is 1", head));
    const double d = std::exp(-std::exp(aLog) * *x0);
    if (!(d > 0 && d < 1)) refuse(L, fmt::format("{}: its decay {} is not in (0, 1)", head, d));
    return d;
  }

  // The read of a halving head's marker rail: sqrt(dv) a / sqrt(a^2 + b^2) times A (out
  // weight, norm weight, z, sqrt(dv)) for the read (a, b) = (V d^k, V): levels
  // A d^k / sqrt(d^2k + 1) for k >= 0 and A for a marker whose other slot is still empty,
  // each within the assumed relative read error and the decay's, compounded over k:
  // (1 +- delta)(1 +- eta)^k; every deeper level, and 0 (no marker yet), in the tail.
  Fact halvingRead(double A, double d, double meanMin, double eps) const {
    constexpr int kLevels = 40;
    const double delta = o_.readError + eps / (2 * meanMin), eta = o_.decayError;
    auto span = [](double u, double v) { return std::pair<double, double>{std::min(u, v), std::max(u, v)}; };
    auto level = [&](int kk) { return std::pow(d, kk) / std::sqrt(std::pow(d, 2 * kk) + 1); };
    Fact nf;
    nf.inexact = true;
    nf.levels.push_back(span(A * (1 - delta), A * (1 + delta)));
    for (int kk = 0; kk < kLevels; ++kk)
      nf.levels.push_back(span(A * level(kk) * (1 - delta) * std::pow(1 - eta, kk), A * level(kk) * (1 + delta) * std::pow(1 + eta, kk)));
    const double tail = std::fabs(A) * level(kLevels) * (1 + delta) * std::pow(1 + eta, kLevels);
    nf.zlo = -tail;
    nf.zhi = tail;
    nf.lo = nf.zlo;
    nf.hi = nf.zhi;
    for (const auto& [lo, hi] : nf.levels) {
      nf.lo = std::min(nf.lo, lo);
      nf.hi = std::max(nf.hi, hi);
    }
    return nf;
  }

  // A counter's threshold head: beta (b) and the decay's softplus argument (a + dt_bias) read
  // one multi-level read r and constants. At every level (and the tail) beta must be
  // exactly 1 (b >= 17) or 0 (b <= -89) and the decay exactly 1 (argument <= -104:
  // softplus underflows to 0) or 0 (exp(A_log) x argument >= 110 beyond softplus's
  // threshold 20: exp underflows), with f32's roundings of the two-term dot products
  // allowed for; and wherever beta is 0 the decay must be 0. So each position either writes
  // its slot (beta 1) or erases the state (beta and decay 0): a slot holds its last write or
  // 0, a 0/1 memory read like any bank's.
  void thresholdHead(int L, const std::string& head, const FormFact& beta, const FormFact& decay, double dtBias,
                     double aLog, const std::vector<Fact>& x, LayerProof& lp) const {
    const auto ch = static_cast<size_t>(beta.inexactChannel);
    const Fact& r = x[ch];
    if (beta.inexactTerms != 1 || beta.f.grain != 0 || r.levels.empty())
      refuse(L, fmt::format("{} beta: reads an inexact channel, but not one counter's multi-level read and constants", head));
    if (decay.inexactTerms > 1 || decay.f.grain != 0 || (decay.inexactTerms == 1 && static_cast<size_t>(decay.inexactChannel) != ch))
      refuse(L, fmt::format("{} decay: its argument must read the count read of its beta and constants", head));
    if (aLog > 80) refuse(L, fmt::format("{}: A_log {} above 80 (exp may overflow)", head, aLog));
    const double A = std::exp(aLog);
    std::vector<std::pair<double, double>> intervals = r.levels;
    intervals.push_back({r.zlo, r.zhi});
    for (size_t lv = 0; lv < intervals.size(); ++lv) {
      const auto [lo, hi] = intervals[lv];
      const std::string level = lv + 1 == intervals.size() ? "the tail level" : fmt::format("level {}", lv);
      auto range = [&](const FormFact& f, double c0) {
        const double wgt = f.inexactTerms ? f.inexactWeight : 0.0, c = c0 + f.constant;
        const double slack = std::ldexp(std::fabs(c0) + std::fabs(f.constant) + std::fabs(wgt) * std::max(std::fabs(lo), std::fabs(hi)), -20);
        return std::pair<double, double>{c + std::min(wgt * lo, wgt * hi) - slack, c + std::max(wgt * lo, wgt * hi) + slack};
      };
      const auto [b1, b2] = range(beta, 0);
      bool betaOne = false;
      double margin;
      if (b1 >= kSiluOne + o_.minMargin) {
        betaOne = true;
        margin = b1 - kSiluOne;
      } else if (b2 <= kSiluZero - o_.minMargin) {
        margin = kSiluZero - b2;
      } else {
        refuse(L, fmt::format("{} beta at {} of its count read: [{:.6g}, {:.6g}], inside (-89, 17) where sigmoid is not "
                              "exactly 0 or 1",
                              head, level, b1, b2));
      }
      const auto [d1, d2] = range(decay, dtBias);
      bool decayZero = false;
      if (d2 <= -104.0 - o_.minMargin) {
        margin = std::min(margin, -104.0 - d2);
      } else if (d1 >= 20.0 + o_.minMargin && A * d1 >= 110.0 + o_.minMargin) {
        decayZero = true;
        margin = std::min(margin, A * d1 - 110.0);
      } else {
        refuse(L, fmt::format("{} decay at {} of its count read: argument [{:.6g}, {:.6g}], neither exactly 1 nor exactly 0",
                              head, level, d1, d2));
      }
      if (!betaOne && !decayZero)
        refuse(L, fmt::format("{} at {} of its count read: beta 0 and decay 1 would keep an older slot", head, level));
      lp.saturationMargin = std::min(lp.saturationMargin, margin);
    }
  }

  // A mixer whose DeltaNet heads are memory banks (docs/compiler.md §3, "memory heads").
  // Proves, head by head: the conv is the identity; the query and key are one-hot (a power
  // of two >= 32 on pairwise exclusive steps: silu passes them, the L2 norm gives exactly
  // e_j); the data is dual rail (channel i holds V * bit, channel dv/2 + i its complement,
  // so a written slot always holds W entries V); beta is exactly 0 or 1; decay is exactly 1;
  // z is 0 or a power of two >= 32. Then S holds exact integers, each slot the last data
  // written to it, and a read of bit i comes out of the gated norm as sqrt(dv / W) * wn * z
  // up to the assumed relative error (or about 0). out_proj puts each bit of heads with
  // exclusive read selects into one channel, which becomes an inexact fact.
  void mixerMemory(int L, const std::string& p, LayerProof& lp) {
    const model::ModelConfig& cfg = u_.config;
    const std::vector<Fact> x = norm(L, p + "input_layernorm.weight", lp);
    if (cfg.linearKeyHeads != cfg.linearValueHeads) refuse(L, "memory heads need as many key heads as value heads");
    const model::TensorView& qkv = tensor(p + "linear_attn.in_proj_qkv.weight");
    const model::TensorView& z = tensor(p + "linear_attn.in_proj_z.weight");
    const model::TensorView& b = tensor(p + "linear_attn.in_proj_b.weight");
    const model::TensorView& a = tensor(p + "linear_attn.in_proj_a.weight");
    const model::TensorView& conv = tensor(p + "linear_attn.conv1d.weight");
    const model::TensorView& dt = tensor(p + "linear_attn.dt_bias");
    const model::TensorView& alog = tensor(p + "linear_attn.A_log");
    const model::TensorView& wn = tensor(p + "linear_attn.norm.weight");
    const model::TensorView& out = tensor(p + "linear_attn.out_proj.weight");
    const int heads = cfg.linearValueHeads, dk = cfg.linearKeyHeadDim, dv = cfg.linearValueHeadDim, K = cfg.convKernel;
    const int keyDim = heads * dk, rail = dv / 2;
    for (const model::TensorView* t : {&qkv, &z, &b, &a, &conv, &dt, &alog, &wn, &out})
      for (size_t i = 0; i < t->numel(); ++i)
        if (!std::isfinite(at(*t, i))) refuse(L, "a memory mixer tensor is not finite");
    // Conv: one tap of 1 on every channel a projection writes: the current token for the
    // query and key, one token (the same for all of a head's value channels: a conv-window
    // read when it is not the current one) for the value. Facts hold at every position,
    // and the zero padding before the start gives all-zero data, which reads exactly 0.
    std::vector<int> valueTap(static_cast<size_t>(heads), -1);
    for (int c = 0; c < cfg.convDim(); ++c) {
      if (rowZero(qkv, static_cast<size_t>(c))) continue;
      int tap = -1;
      for (int j = 0; j < K; ++j) {
        const float t = at(conv, static_cast<size_t>(c * K + j));
        if (t == 0) continue;
        if (t != 1.0f || tap >= 0) tap = -2;
        if (tap == -1) tap = j;
      }
      const bool value = c >= 2 * keyDim;
      if (tap < 0 || (!value && tap != K - 1))
        refuse(L, fmt::format("conv channel {} is not the identity on the current token{}", c,
                              value ? " nor a single earlier one" : ""));
      if (value) {
        int& head = valueTap[static_cast<size_t>((c - 2 * keyDim) / dv)];
        if (head >= 0 && head != tap) refuse(L, fmt::format("conv channel {}: its head's values come from several tokens", c));
        head = tap;
      }
    }
    std::vector<HeadFacts> hf(static_cast<size_t>(heads));
    for (int h = 0; h < heads; ++h) {
      const std::string head = fmt::format("head {}", h);
      // Query and key rows: V x a bit (one-hot over pairwise exclusive steps), V - V x a bit
      // (a halving head's dual-rail key), or a constant V (a counter head's).
      Slots parts[2];
      for (int part = 0; part < 2; ++part) {
        Slots& sl = parts[part];
        std::vector<uint32_t> keys;
        for (int j = 0; j < dk; ++j) {
          const size_t row = static_cast<size_t>(part * keyDim + h * dk + j);
          const std::string what = fmt::format("{} {} slot {}", head, part ? "key" : "query", j);
          auto weightOk = [&](double V) {
            if (!isPowerOfTwo(V) || V < 32)
              refuse(L, fmt::format("{}: weight {} (a power of two >= 32 keeps silu and the L2 norm exact)", what, V));
          };
          if (const std::optional<double> c = constantRow(qkv, row, x)) {
            weightOk(*c);
            sl.constants[j] = *c;
            continue;
          }
          if (const auto comp = complementRow(qkv, row, x)) {
            weightOk(comp->second);
            sl.complements[j] = comp->first;
            continue;
          }
          auto r = bitRow(L, qkv, row, x, what);
          if (!r) continue;
          weightOk(r->second);
          keys.push_back(r->first);
          sl.bits[j] = r->first;
        }
        if (!allExclusive(keys))
          refuse(L, fmt::format("{}: its {} is not provably one-hot (its slot channels are not exclusive steps)", head,
                                part ? "key" : "query"));
      }
      // Data: dual rail (or a constant 1: one entry V, no complement).
      HeadFacts& f = hf[static_cast<size_t>(h)];
      for (int i = 0; i < rail; ++i) {
        const size_t ra = static_cast<size_t>(2 * keyDim + h * dv + i), rb = ra + static_cast<size_t>(rail);
        const std::string what = fmt::format("{} data bit {}", head, i);
        if (const std::optional<double> c = constantRow(qkv, ra, x)) {
          if (*c < 32 || !isPowerOfTwo(*c) || !rowZero(qkv, rb))
            refuse(L, fmt::format("{}: a constant bit must be a power of two >= 32 without a complement rail", what));
          if (f.used && f.value != *c) refuse(L, fmt::format("{}: its bits are stored with different magnitudes", head));
          f.used = true;
          f.value = *c;
          ++f.width;
          f.bit.reset();
          continue;
        }
        auto bit = bitRow(L, qkv, ra, x, what);
        if (!bit) {
          if (!rowZero(qkv, rb)) refuse(L, fmt::format("{}: a complement rail without its bit", what));
          continue;
        }
        const double V = bit->second;
        if (V < 32 || !isPowerOfTwo(V)) refuse(L, fmt::format("{}: weight {} is not a power of two >= 32", what, V));
        checkComplement(L, qkv, rb, x, *bit, what);
        if (f.used && f.value != V) refuse(L, fmt::format("{}: its bits are stored with different magnitudes", head));
        f.used = true;
        f.value = V;
        f.bit = f.width == 0 ? std::optional<uint32_t>(bit->first) : std::nullopt;
        ++f.width;
      }
      // Which kind of head, from its beta and decay: a bank (beta exactly 0 or 1, decay
      // exactly 1), a threshold head (beta and decay saturating on a count read), or a
      // halving head (beta 1, a decay that is 1 or a fixed value below 1).
      FormFact beta = form(b, static_cast<size_t>(h), x);
      const bool decayOne = rowZero(a, static_cast<size_t>(h)) && at(dt, static_cast<size_t>(h)) <= -104.0f &&
                            at(alog, static_cast<size_t>(h)) <= 80.0f;
      const bool threshold = f.used && beta.inexactTerms > 0;
      const Slots& q = parts[0];
      const Slots& k = parts[1];
      if (f.used) checkSum(L, head + " beta", beta, lp);
      if (threshold) {
        if (q.constants.size() != 1 || k.constants.size() != 1 || q.constants.begin()->first != k.constants.begin()->first ||
            !q.bits.empty() || !k.bits.empty() || !q.complements.empty() || !k.complements.empty())
          refuse(L, fmt::format("{}: a threshold head's query and key must be one constant slot", head));
        thresholdHead(L, head, beta, form(a, static_cast<size_t>(h), x), at(dt, static_cast<size_t>(h)),
                      at(alog, static_cast<size_t>(h)), x, lp);
      } else if (f.used && !decayOne) {
        f.decay = halvingHead(L, head, f, q, k, beta, a, static_cast<size_t>(h), at(dt, static_cast<size_t>(h)),
                              at(alog, static_cast<size_t>(h)), x);
        f.halving = true;
      } else {
        if (!decayOne)
          refuse(L, fmt::format("{}: the decay is not exactly 1 (a = 0, dt_bias <= -104, A_log <= 80 needed)", head));
        if (!q.constants.empty() || !k.constants.empty() || !q.complements.empty() || !k.complements.empty())
          refuse(L, fmt::format("{}: constant or complement key slots belong to counter heads only", head));
        if (f.used) {
          const std::string who = head + " beta (sigmoid is exactly 0 or 1 only outside (-89, 17))";
          (void)siluMargin(L, who, beta);
          // silu(0) = 0 is exact, sigmoid(0) = 1/2 is not a write decision.
          if (canBeZero(beta)) refuse(L, fmt::format("{}: it can be 0", who));
        }
      }
      if (f.used) ++lp.memoryHeads;
      if (f.halving || threshold) ++lp.counterHeads;
    }
    // Read bits: out_proj rows.
    const double eps = cfg.rmsNormEps;
    for (int c = 0; c < H_; ++c) {
      std::vector<std::pair<int, int>> entries;  // (head, channel)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < dv; ++i)
          if (at(out, static_cast<size_t>(c) * static_cast<size_t>(heads * dv) + static_cast<size_t>(h * dv + i)) != 0)
            entries.push_back({h, i});
      if (entries.empty()) continue;
      const std::string what = fmt::format("out_proj into channel {}", c);
      std::vector<uint32_t> selects;
      Fact nf;
      nf.inexact = true;
      nf.lo = nf.zlo = std::numeric_limits<double>::infinity();
      nf.hi = nf.zhi = -std::numeric_limits<double>::infinity();
      std::set<int> seenHeads;
      for (const auto& [h, i] : entries) {
        const HeadFacts& f = hf[static_cast<size_t>(h)];
        const std::string from = fmt::format("{}: head {} channel {}", what, h, i);
        if (!f.used || i >= rail || !seenHeads.insert(h).second ||
            rowZero(qkv, static_cast<size_t>(2 * keyDim + h * dv + i)))
          refuse(L, fmt::format("{} is not a data bit of a memory head (or a second one of that head)", from));
        // z: a constant or one select bit, times a power of two >= 32.
        const size_t zrow = static_cast<size_t>(h * dv + i);
        double Z = 0;
        const FormFact zf = form(z, zrow, x);
        if (zf.f.grain == 0 && !zf.inexactTerms) {  // a constant: the head always answers
          Z = zf.constant;
          if (entries.size() > 1) refuse(L, fmt::format("{}: several heads, one without a read select", from));
        } else {
          auto sel = bitRow(L, z, zrow, x, from + " z");
          if (!sel) refuse(L, fmt::format("{}: z is neither a constant nor a select", from));
          Z = sel->second;
          selects.push_back(sel->first);
        }
        const double gain = at(wn, static_cast<size_t>(i));
        const double wo = at(out, static_cast<size_t>(c) * static_cast<size_t>(heads * dv) + static_cast<size_t>(h * dv + i));
        // silu(z) = z needs z >= 17; the products with the norm weight and the out weight are
        // each one more rounding of the (inexact) read, within the assumed error.
        if (Z < kSiluOne || !(gain > 0) || wo == 0)
          refuse(L, fmt::format("{}: z {} (>= 17 needed), norm weight {} (> 0 needed), out weight {}", from, Z, gain, wo));
        if (f.halving) {
          if (entries.size() != 1 || !selects.empty())
            refuse(L, fmt::format("{}: a halving head's read must be its channel's only writer, always read", from));
          nf = halvingRead(wo * gain * Z * std::sqrt(static_cast<double>(dv)), f.decay,
                           f.value * f.value / (2 * static_cast<double>(dk) * dv), eps);
          continue;
        }
        // A written slot holds W entries V: mean(o^2) = W V^2 / (dk dv), so a set bit reads
        // sqrt(dv / W) after the norm; eps shifts that by at most eps / (2 mean).
        const double mean = f.width * f.value * f.value / (static_cast<double>(dk) * dv);
        const double delta = o_.readError + eps / (2 * mean);
        const double A = wo * gain * Z * std::sqrt(static_cast<double>(dv) / f.width);
        const double lo = std::min(A * (1 - delta), A * (1 + delta)), hi = std::max(A * (1 - delta), A * (1 + delta));
        nf.lo = std::min(nf.lo, lo);
        nf.hi = std::max(nf.hi, hi);
        nf.zlo = std::min(nf.zlo, -std::fabs(A) * delta);
        nf.zhi = std::max(nf.zhi, std::fabs(A) * delta);
      }
      const Fact& old = facts_[c];
      if (old.inexact && (!old.levels.empty() || !nf.levels.empty()))
        refuse(L, fmt::format("{}: adds to or is added to a counter's multi-level read", what));
      if (old.inexact) {
        // A port spread over layers: earlier banks' selects must exclude these.
        std::vector<uint32_t> all = readSelects_[static_cast<uint32_t>(c)];
        all.insert(all.end(), selects.begin(), selects.end());
        if (selects.size() != entries.size() || !allExclusive(all))
          refuse(L, fmt::format("{}: adds to a read of earlier layers without exclusive read selects", what));
        nf.lo = std::min(nf.lo, old.lo);
        nf.hi = std::max(nf.hi, old.hi);
        nf.zlo = std::min(nf.zlo, old.zlo);
        nf.zhi = std::max(nf.zhi, old.zhi);
        readSelects_[static_cast<uint32_t>(c)] = all;
      } else {
        if (!(old.isConstant() && old.lo == 0)) refuse(L, fmt::format("{}: the channel does not hold an exact 0", what));
        if (!allExclusive(selects)) refuse(L, fmt::format("{}: its heads' read selects are not exclusive", what));
        readSelects_[static_cast<uint32_t>(c)] = selects;
      }
      facts_[c] = nf;
      ++version_[static_cast<size_t>(c)];
    }
  }

  void mixerSilent(int L, const std::string& p) const {
    const model::TensorView& in = tensor(p + "input_layernorm.weight");
    bool zeroInput = true;
    for (int c = 0; c < H_; ++c) zeroInput = zeroInput && (1.0f + at(in, static_cast<size_t>(c))) == 0.0f;
    const bool deltaNet = u_.config.layerTypes.at(static_cast<size_t>(L - 1)) == model::LayerType::LinearAttention;
    const std::vector<std::string> names =
        deltaNet ? std::vector<std::string>{"linear_attn.in_proj_qkv.weight", "linear_attn.in_proj_z.weight",
                                            "linear_attn.in_proj_b.weight",   "linear_attn.in_proj_a.weight",
                                            "linear_attn.conv1d.weight",      "linear_attn.dt_bias",
                                            "linear_attn.A_log",              "linear_attn.norm.weight",
                                            "linear_attn.out_proj.weight"}
                 : std::vector<std::string>{"self_attn.q_proj.weight", "self_attn.k_proj.weight",
                                            "self_attn.v_proj.weight", "self_attn.o_proj.weight",
                                            "self_attn.q_norm.weight", "self_attn.k_norm.weight"};
    for (const std::string& t : names) {
      const model::TensorView& v = tensor(p + t);
      for (size_t i = 0; i < v.numel(); ++i)
        if (!std::isfinite(at(v, i))) refuse(L, fmt::format("mixer tensor {} is not finite", t));
    }
    const model::TensorView& out = tensor(p + (deltaNet ? "linear_attn.out_proj.weight" : "self_attn.o_proj.weight"));
    bool zeroOut = true;
    for (size_t i = 0; i < out.numel(); ++i) zeroOut = zeroOut && at(out, i) == 0.0f;
    // A zero input gives zero projections: DeltaNet's q = k = v = z = 0 keep a zero state and
    // a zero gated norm (0 * finite); attention averages zero values. A zero output
    // projection gives +0 whatever it reads.
    if (!zeroInput && !zeroOut) refuse(L, "the attention mixer is not silent (attention lookups are not proven yet)");
    // Relying on the zero input alone: DeltaNet's decay must stay finite (exp(A_log) * 0 is
    // NaN once exp overflows), so that a zero state stays zero.
    if (!zeroOut && deltaNet) {
      const model::TensorView& a = tensor(p + "linear_attn.A_log");
      for (size_t i = 0; i < a.numel(); ++i)
        if (at(a, i) > 80.0f) refuse(L, "A_log above 80: exp(A_log) may overflow on a silent mixer");
    }
  }

  void finalHead() {
    LayerProof lp;
    lp.layer = u_.config.numLayers + 1;
    lp.minMargin = lp.readMargin = lp.saturationMargin = std::numeric_limits<double>::infinity();
    lp.normSlackBits = lp.sumHeadroomBits = std::numeric_limits<double>::infinity();
    lp.tightestGate = "(final norm and head)";
    const std::vector<Fact> x = norm(lp.layer, "model.norm.weight", lp);
    const model::TensorView& head = tensor("lm_head.weight");
    // Every row: the test layout's one logit per output, or token I/O's head rows over the
    // token outputs (token_io.h); each an exact integer.
    for (size_t o = 0; o < static_cast<size_t>(u_.config.vocabSize); ++o) {
      FormFact f = form(head, o, x);
      if (f.inexactTerms) refuse(lp.layer, fmt::format("logit {} reads an inexact memory read", o));
      checkSum(lp.layer, fmt::format("logit {}", o), f, lp);
      if (f.f.grain != 0 && std::fmod(f.f.grain, 1.0) != 0)
        refuse(lp.layer, o < u_.plan.outputChannels.size()
                             ? fmt::format("output {} ('{}') is not an integer", o,
                                           u_.plan.channels[u_.plan.outputChannels[o]].name)
                             : fmt::format("logit {} is not an integer", o));
    }
    report_.layers.push_back(lp);
  }

  const CompiledUnit& u_;
  const ProofOptions& o_;
  const int H_;
  std::vector<Fact> facts_;
  std::vector<double> scale_;  // per channel: the last norm's scale (norm scale x gain)
  std::vector<uint64_t> version_ = std::vector<uint64_t>(static_cast<size_t>(H_), 0);  // per channel: writes so far
  std::map<uint32_t, StepRecord> records_;  // channels holding a unit step, as written
  std::set<std::vector<std::pair<uint32_t, uint64_t>>> provenExclusive_;
  // Per inexact channel: the read selects (channel, version) of the heads that wrote it.
  std::map<uint32_t, std::vector<uint32_t>> readSelects_;
  ProofReport report_;
};

}  // namespace

ProofReport proveExact(const CompiledUnit& unit, const ProofOptions& options) { return Prover(unit, options).run(); }

}  // namespace qgpu::compiler
