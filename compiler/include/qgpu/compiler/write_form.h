// The machine step's write-form decision (docs/machine.md §5.2, rows 39–43; the protocol
// of §3.3): from the four lanes' results, the lanes written and the width, which of the
// five forms spells the register write (uniform, PACK4, AFFINE, LANES-HIGH, LANES: the
// cheapest, ties to the earlier), what it costs in tokens, and AFFINE's base and stride —
// machine::encodeWrite as a circuit, what the token spelling that follows reads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

struct WriteFormInputs {
  std::vector<Bus> value;  // per lane, 64 bits, cut to the width (bits at and above it 0)
  Bus lanes;               // 4: the lanes written (not all 0)
  Bus width;               // one-hot: 1, 2, 4, 8 bytes
};

struct WriteFormWires {
  Bus form;                 // one-hot, machine::WriteForm order
  WireId tokens = 0;        // the chosen form's token count (1..17)
  Bus base, stride;         // AFFINE's (64 bits; bits at and above the width are not cut)
  std::vector<Expr> chunks;      // per lane: chunk tokens of its value (1..4; linear forms)
  std::vector<Expr> highChunks;  // per lane: chunk tokens of its value >> 16 (LANES-HIGH)
  Expr baseChunks, strideChunks;
};
WriteFormWires buildWriteForm(Circuit& c, const WriteFormInputs& in);

/// The decision alone. Inputs: each lane's value (4 × 64 bits, cut to the width), the lanes
/// written (4, not all 0), the width one-hot (4). Outputs: the form one-hot (5), the token
/// count (1), AFFINE's base and stride (64 each: cut to the width, 0 for another form).
Unit writeFormUnit();
constexpr uint32_t kWriteFormOutputs = 5 + 1 + 64 + 64;
/// writeFormUnit's inputs.
std::vector<int64_t> writeFormInputs(const std::array<uint64_t, 4>& values, uint32_t lanes, uint32_t bytes);

}  // namespace qgpu::compiler
