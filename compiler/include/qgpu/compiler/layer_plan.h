// Pass 2, allocation: residual channels for the anchors, the inputs, every wire a later
// layer reads and every output; MLP neurons per layer for every gate; the down-projection
// rows that write each channel; and the mapping of those (virtual) channels onto physical
// residual channels, a channel reused once a clear neuron has zeroed it after its last
// reader. The plan is what emission turns into tensors and what the report counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/schedule.h"

namespace qgpu::compiler {

/// Gains of the neuron kinds (docs/compiler.md §2). A step's pair needs gain >= 89 so
/// that its low neuron is exactly off at cond = -1 (silu(x) = -0 only for x <= -89); a
/// gate's single neuron needs gain >= 17 (silu(x) = x only from 17 on). Powers of two, so
/// the down projection's 1/gain is exact.
struct Gains {
  int64_t step = 128;
  int64_t gate = 32;
};

/// An integer form over channels; `constant` is carried by the ONE channel.
struct ChannelForm {
  int64_t constant = 0;
  std::vector<std::pair<uint32_t, int64_t>> terms;  // (channel, coefficient)
};

/// Clear: g = gain from the ONE channel, up = the channel itself, down -1/gain into it: the
/// channel holds an exact 0 after the layer (its last reader's), free for a later wire.
/// Requant: g = C + r (C = kRequantOffset) on an inexact memory-read channel r, up 1: f32
/// rounds C + r to the nearest integer, so the neuron gives C + round(r); Constant: the -C
/// beside it (g = gain from ONE, up -C/gain), so their down rows sum to round(r) exactly.
enum class NeuronRole { StepHigh, StepLow, Gate, Pass, Clear, Requant, Constant };
const char* neuronRoleName(NeuronRole r);

struct PlannedNeuron {
  NeuronRole role;
  std::string gateName;  // the IR node it implements (proof messages name it)
  ChannelForm gate;      // pre-activation, before the role's gain
  int64_t gain = 0;
  ChannelForm up;
};

struct PlannedWrite {
  uint32_t channel;
  std::vector<std::pair<uint32_t, double>> neurons;  // (neuron index in the layer, down weight)
};

/// f32's spacing is 1 on [2^23, 2^24): fl(C + r) = C + round(r) for |r| < 2^22.
constexpr int64_t kRequantOffset = 12582912;  // 1.5 * 2^23

/// Magnitudes in a memory head: a one-hot key or query entry, a stored bit (each rail).
/// Powers of two >= 32: silu passes them unchanged and the key's L2 norm is exact (32^2
/// absorbs the 1e-6). The read select's z is 128 sqrt(W / dv) 2^k >= 32 (emit.cpp).
constexpr int64_t kMemoryKey = 32;
constexpr int64_t kMemoryValue = 32;
/// beta = sigmoid(kWriteGain * E - kWriteGain / 2): E = 1 gives +200 (beta exactly 1), E <= 0
/// gives <= -200 (exactly 0).
constexpr int64_t kWriteGain = 400;

/// A memory bank as one DeltaNet head of a layer's mixer (docs/compiler.md §2): the keys
/// in q and k (kMemoryKey x a bit channel per slot), the data dual-rail in v (channel i holds
/// kMemoryValue x bit, channel 64 + i its complement), the write enable in b, decay off,
/// the read select in z, and out_proj into one inexact Read channel per bit.
///
/// A counter (circuit.h's Counter) takes heads of two more kinds. Its **halving** head has
/// two slots keyed by the marker bit m (slot 0 where m = 1, slot 1 where m = 0: a dual-rail
/// key), writes at every position (beta 1) m dual rail — (V, 0) into slot 0 at a marker,
/// (0, V) into slot 1 everywhere else — and decays by 1/2 where a position is counted and no
/// marker (elsewhere exactly 1); its query reads both slots. So slot 0 holds (V 2^-k, 0) and
/// slot 1 (0, V), and the read of the marker rail is the multi-level counterRead(k). Each
/// **threshold** head has ONE as its only key and query, stores a constant 1 where that
/// read is below its threshold (beta and decay exactly 1) and erases its state where it is
/// above (beta and decay exactly 0): a 0/1 read, [k >= threshold].
/// A head's data bit that no live wire reads: no Read channel, no out_proj column, no
/// re-quantiser (a register copy whose reader wants only some bits of the value it holds).
constexpr uint32_t kNotRead = 0xffffffffu;

struct PlannedHead {
  enum class Kind { Bank, Halving, Threshold };
  std::string name;
  int head = 0;  // index within the layer
  Kind kind = Kind::Bank;
  std::vector<uint32_t> readKey, writeKey, data;  // virtual channels (a threshold head's: ONE)
  ChannelForm writeEnable;  // Bank
  ChannelForm decay;        // Halving: the decay's softplus argument a (dt_bias 0)
  std::optional<uint32_t> count;  // Threshold: the halving head's Read channel
  uint32_t threshold = 0;         // Threshold: its bit is [k >= threshold]
  std::optional<uint32_t> readSelect;
  std::vector<uint32_t> out;  // per data bit: its Read channel, or kNotRead
  uint32_t delay = 0;         // the data's conv tap: this many positions back
};

/// The halving head's decay argument a = 160 counted - 160 marker - 128: 32 where counted
/// (softplus(32) = 32, times exp(A_log) = ln 2 / 32: decay 1/2 up to roundings), <= -128
/// elsewhere (softplus underflows to 0: decay exactly 1).
constexpr int64_t kCounterDecayGain = 160, kCounterDecayOff = -128, kCounterDecayOn = 32;
/// The halving head's marker-rail read after k counted positions since the marker, with the
/// emitted scale (a marker whose slot 1 is still empty reads 1, no marker yet 0):
/// sqrt(dv) a / sqrt(a^2 + V^2) for a = V 2^-k, i.e. 2^-k / sqrt(4^-k + 1). Consecutive
/// levels are at least sqrt(2.5) apart.
double counterRead(int k);
/// A threshold head's saturation: |b| and |a| at least this far from 0 at every level
/// (beyond -89 and 17 for beta, -104 and 110 for the decay, with room for roundings).
constexpr double kThresholdSwing = 128;

/// An attention lookup as the layer's attention head (docs/compiler.md §2): key and query
/// dual rail in the unrotated dims (kLookupRail x bit, kLookupRail x (1 - bit)), padded to
/// kLookupKeyBits pairs; q_norm and k_norm gains kLookupGain; the output gate constant
/// (sigmoid 1); v the value bits; o_proj into one exact channel per value bit.
struct PlannedLookup {
  std::string name;
  std::vector<uint32_t> key, value;                 // virtual channels
  std::vector<std::vector<uint32_t>> queries, outs;  // per query (attention head): its bits, its read
};
constexpr int64_t kLookupRail = 32;   // 16 entries of 32 over 256 dims: mean square 64
constexpr int64_t kLookupGain = 16;   // normalised entries 4 x 16 = 64: 256 per matching bit
constexpr int64_t kLookupGate = 200;  // sigmoid(200) = 1

struct PlannedLayer {
  std::vector<PlannedNeuron> neurons;
  std::vector<PlannedWrite> writes;
  std::vector<PlannedHead> heads;  // the mixer's memory banks (none: a silent mixer)
  std::optional<PlannedLookup> lookup;  // an attention layer's lookup
};

/// A virtual channel: one wire's value from the layer that writes it to the layer that
/// clears it. Plan forms and writes name virtual channels; emission maps them to physical.
struct ChannelInfo {
  std::string name;
  // Read: a memory read as the mixer returns it, inexact; re-quantised and cleared by the
  // MLP of the port's last layer.
  enum class Kind { Anchor, Input, Wire, Output, Read } kind;
  int writtenAt = 0;  // 0: embedding (anchors, inputs); else the layer whose MLP writes it
  Range range;        // IR range (inputs: declared)
  int clearedAt = 0;  // the layer whose MLP clears it (its last reader's); 0: never
  // Never cleared (a counter's halving read: its deep levels are so small that the norm's
  // x * 2^-k is subnormal, so a clear would not leave an exact 0); its channel is not reused.
  bool keep = false;
  // An exclusiveOr's or exclusiveSum's channel: the machine keeps it within `range` (a bit,
  // a few packed bits), which the evaluator checks at every position. The proof takes that
  // range as the channel's value once the write itself is proven exact.
  bool declared = false;
  // The IR wire whose value the channel holds (inputs, wires, outputs; none for anchors and
  // a mixer's inexact reads): what a probe compares the engine's residual with.
  std::optional<WireId> wire = std::nullopt;
  uint32_t physical = 0;  // the residual channel that holds it
};

struct LayerPlan {
  std::string unit;
  int layers = 0;
  uint32_t anchors = 0;    // channels 0..anchors-1; channel 0 normalises to ONE
  std::vector<ChannelInfo> channels;     // virtual channels
  uint32_t physicalChannels = 0;         // residual channels used
  std::vector<uint32_t> inputChannels;   // per circuit input
  std::vector<uint32_t> outputChannels;  // per circuit output
  std::vector<PlannedLayer> mlp;         // per layer (0-based; IR level l is mlp[l-1])
  Gains gains;
  bool reusesChannels = true;

  /// The residual channel of virtual channel v.
  uint32_t physical(uint32_t v) const { return channels.at(v).physical; }
};

/// The ONE channel's index: the anchor whose normalised value is 1.
constexpr uint32_t kOneChannel = 0;

/// `reuseChannels` false gives every virtual channel its own residual channel (no clears).
LayerPlan planLayers(const Circuit& c, const Schedule& s, uint32_t anchors, const Gains& gains = {},
                     bool reuseChannels = true);

}  // namespace qgpu::compiler
