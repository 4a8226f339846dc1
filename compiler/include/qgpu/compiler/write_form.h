// The machine step's write-form decision (docs/machine.md §5.2, rows 39–43; the protocol
// of §3.3): from the four lanes' results, the lanes written and the width, which of the
// five forms spells the register write (uniform, PACK4, AFFINE, LANES-HIGH, LANES: the
// cheapest, ties to the earlier), what it costs in tokens, and AFFINE's base and stride —
// machine::encodeWrite as a circuit, what the token spelling that follows reads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
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
  std::vector<WireId> writtenChunks, writtenHighChunks;  // per lane: the same, 0 where not written
  Bus first;                     // the first written lane's value (the uniform form's)
  Expr uniformChunks, baseChunks, strideChunks;
};
WriteFormWires buildWriteForm(Circuit& c, const WriteFormInputs& in);

/// The spelling: the write's token at index k of the step (k thermometer bits [k >= 1..16],
/// as a counter gives them) as the token head reads it — its class (one-hot: CHUNK-MORE,
/// CHUNK-LAST, PACK4, AFFINE, LANES n, LANES-HIGH n) and its value in the class (the
/// machine vocabulary's value bits: a chunk, PACK4's nibbles, n - 1 of the LANES prefixes,
/// 0 for AFFINE) — and whether it is the write's last.
struct WriteTokenWires {
  Bus kind;     // 6, in the order above: exclusive-or channels
  Bus payload;  // 16: the value, exclusive-or channels
  WireId last = 0;
};
constexpr uint32_t kWriteTokenKinds = 6;
/// The token id a spelled token stands for (the token head's target).
uint32_t writeTokenId(uint32_t kind, uint32_t value);
/// writeTokenId's inverse: nothing if `id` is no write token.
struct WriteTokenSpelling {
  uint32_t kind = 0, value = 0;
};
std::optional<WriteTokenSpelling> spellWriteToken(uint32_t id);
/// Another token the step spells at this position in the write's place (ACTIVE m, DONE:
/// register_write.h): while `instead` (a bit) is 1 no write token hits, and `value` (forms
/// whose values are bits, 0 unless `instead`) joins the value channels.
struct InsteadOfWrite {
  Expr instead;
  std::vector<Expr> value;
};
WriteTokenWires buildWriteToken(Circuit& c, const WriteFormInputs& in, const WriteFormWires& wf, const Bus& k,
                                const InsteadOfWrite& other = {});

/// The decision alone. Inputs: each lane's value (4 × 64 bits, cut to the width), the lanes
/// written (4, not all 0), the width one-hot (4). Outputs: the form one-hot (5), the token
/// count (1), AFFINE's base and stride (64 each: cut to the width, 0 for another form).
Unit writeFormUnit();
constexpr uint32_t kWriteFormOutputs = 5 + 1 + 64 + 64;
/// writeFormUnit's inputs.
std::vector<int64_t> writeFormInputs(const std::array<uint64_t, 4>& values, uint32_t lanes, uint32_t bytes);

/// The decision and the spelling. Inputs: writeFormUnit's, then k's thermometer bits (16).
/// Outputs: the token's kind (6), value (16), and whether it is the write's last.
Unit writeTokenUnit();
std::vector<int64_t> writeTokenInputs(const std::array<uint64_t, 4>& values, uint32_t lanes, uint32_t bytes, uint32_t k);

}  // namespace qgpu::compiler
