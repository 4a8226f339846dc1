// Pass 4, the static exactness proof: interval, lattice and rounding bounds over the
// emitted tensors themselves (not the IR), for every input the declared ranges allow.
// It proves that each RMSNorm scale is an exact power of two, every mixer is exactly
// silent, every SiLU argument lies where SiLU is exact (0, >= 17, <= -89) with a margin,
// and every product, dot product and residual add is exact in f32 in any summation
// order. A layer that cannot be proven is refused with the layer, neuron and gate named.
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/emit.h"

namespace qgpu::compiler {

struct ProofOptions {
  // Smallest accepted distance of a SiLU argument from the inexact intervals
  // (-89, 0) and (0, 17), in pre-activation units.
  double minMargin = 1.0;
  // The relative error assumed for a DeltaNet memory read after its gated norm (both
  // engines' roundings, recurrent and chunked, stay far below it: docs/compiler.md §3), and
  // the smallest accepted distance of a re-quantised read from a rounding boundary, in
  // units of the grid it is rounded to (at most 0.5).
  double readError = 1.0 / 1024;
  double minReadMargin = 0.25;
  // The relative error assumed for a counter's decay, compounded once per counted position:
  // 1/2 up to exp's roundings in the recurrent form; HF's chunked form takes exp of
  // differences of cumulative sums of up to 64 logs (about 2^-12 at most: docs/compiler.md §3,
  // "counters"), so 2^-10 leaves a factor of 4.
  double decayError = 1.0 / 1024;
};

struct LayerProof {
  int layer = 0;            // 1-based; layers + 1 is the final norm and head
  size_t neurons = 0;       // neurons with a non-zero row
  double minMargin = 0;     // smallest SiLU margin in this layer
  std::string tightestGate; // where it is
  double normSlackBits = 0; // log2(half an ulp of the anchors' squares / the data's squares)
  double sumHeadroomBits = 0;  // log2(2^24 / the largest sum relative to its grain)
  size_t memoryHeads = 0;      // DeltaNet heads proven as memory banks
  size_t lookups = 0;          // attention heads proven as one-hot lookups (given one match)
  double readMargin = 0;       // smallest re-quantisation margin (grid units; inf: no read)
  size_t counterHeads = 0;     // halving and threshold heads of counters among memoryHeads
  // Smallest distance of a threshold head's beta or decay argument from where sigmoid or
  // the decay stop being exactly 0 or 1, over every level of its read (inf: none).
  double saturationMargin = 0;
};

struct ProofReport {
  std::vector<LayerProof> layers;
  double minMargin = 0;
  std::string tightestGate;
  int tightestLayer = 0;
  double minReadMargin = 0;  // over every layer (inf: no memory read)
  double minSaturationMargin = 0;  // over every layer (inf: no counter)
};

/// Proves `unit` exact for every input in its declared ranges; throws CompileError
/// ("proof refused: ...") naming the layer, the neuron and the gate otherwise.
ProofReport proveExact(const CompiledUnit& unit, const ProofOptions& options = {});

}  // namespace qgpu::compiler
